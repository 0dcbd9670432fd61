"""A scripted model: deterministic, offline, and streamed like a real provider.

``FauxModel(script)`` answers request *n* with step *n* of its script. A step is an
:class:`AssistantMessage`, a content block or list of blocks (wrapped by :func:`faux_message`), or a
callable ``(context) -> AssistantMessage`` that can look at what it was sent. Each answer streams in
deltas (text and thinking in ``chunk_size`` pieces, tool-call arguments as growing JSON text), and
every context received is kept in :attr:`FauxModel.contexts`. When the script runs out, or a step
raises, the stream ends in an ``error`` event; an abort ends it in an ``aborted`` one. It never
raises to its caller.

This is product, not a test fixture: use it for tests, demos, benchmarks and offline runs.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import replace
from typing import TypeAlias

from pydantic_core import to_json

from ._abort import AbortSignal
from ._stream import AssistantMessageEvent, StreamDone, StreamError, StreamOptions
from ._types import (
    FAILED_STOP_REASONS,
    AssistantContent,
    AssistantMessage,
    Context,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from ._validation import copy_json
from .providers._wire import ABORTED, Events, MessageAssembler

__all__ = ["FauxModel", "FauxStep", "faux_message", "faux_text", "faux_tool_call"]

FauxStep: TypeAlias = (
    AssistantMessage
    | AssistantContent
    | Sequence[AssistantContent]
    | Callable[[Context], AssistantMessage]
)

_call_ids = itertools.count(1)


def faux_text(text: str) -> TextContent:
    """A text block for :func:`faux_message`."""
    return TextContent(text)


def faux_tool_call(name: str, arguments: dict[str, object], id: str | None = None) -> ToolCall:
    """A tool-call block; without ``id`` a unique, deterministic-per-process one is made."""
    return ToolCall(id if id is not None else f"faux_call_{next(_call_ids)}", name, arguments)


def faux_message(
    *content: AssistantContent | str, stop_reason: StopReason | None = None
) -> AssistantMessage:
    """An assistant message; plain strings become text blocks.

    ``stop_reason`` defaults to ``"tool_use"`` when the content holds a tool call, else ``"stop"``.
    """
    blocks: list[AssistantContent] = [
        TextContent(item) if isinstance(item, str) else item for item in content
    ]
    if stop_reason is None:
        stop_reason = "tool_use" if any(isinstance(b, ToolCall) for b in blocks) else "stop"
    return AssistantMessage(content=blocks, stop_reason=stop_reason)


class FauxModel:
    """A :data:`~tether.ai.StreamFn` that plays back a script, one step per request.

    ``delay`` controls pacing between deltas: ``None`` (default) streams without suspending,
    ``0`` yields to the event loop between deltas, a positive number sleeps that many seconds.
    """

    def __init__(
        self,
        script: Sequence[FauxStep] = (),
        *,
        model: Model | None = None,
        chunk_size: int = 32,
        delay: float | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        self.script: list[FauxStep] = list(script)
        self.model = model or Model(id="faux-1", provider="faux", api="faux")
        self.chunk_size = chunk_size
        self.delay = delay
        self.contexts: list[Context] = []
        self._next_step = 0

    @property
    def remaining(self) -> int:
        """How many scripted steps have not been played yet."""
        return len(self.script) - self._next_step

    def append(self, *steps: FauxStep) -> None:
        """Extend the script."""
        self.script.extend(steps)

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Stream the next scripted step for ``context``."""
        signal = options.signal if options is not None else None
        self.contexts.append(
            Context(context.system_prompt, list(context.messages), list(context.tools))
        )
        assembler = MessageAssembler(model)
        partial = assembler.partial
        partial.api = ""  # no wire protocol answers: the script does
        scripted = self._take_step(context)
        if isinstance(scripted, str):
            for failure in assembler.fail("error", scripted):
                yield failure
            return
        pacing = self.delay is not None
        for batch in self._step_events(scripted, assembler, signal):
            for event in batch:
                if pacing:
                    await asyncio.sleep(self.delay or 0)
                if signal is not None and signal.aborted:
                    break  # and the next batch is not built
                yield event
        if signal is not None and signal.aborted:
            for ending in assembler.fail("aborted", ABORTED):
                yield ending
            return
        partial.stop_reason = scripted.stop_reason
        partial.usage = replace(scripted.usage)
        partial.error_message = scripted.error_message
        if scripted.stop_reason in FAILED_STOP_REASONS:
            if partial.error_message is None:
                partial.error_message = f"FauxModel scripted stop reason {scripted.stop_reason!r}"
            yield StreamError(partial, partial)
        else:
            yield StreamDone(partial, partial)

    def _take_step(self, context: Context) -> AssistantMessage | str:
        """The next step as a message, or an error text when there is none or it failed."""
        if self._next_step >= len(self.script):
            return (
                f"FauxModel script exhausted: request {self._next_step + 1} has no scripted "
                f"step ({len(self.script)} scripted)"
            )
        step = self.script[self._next_step]
        self._next_step += 1
        if isinstance(step, AssistantMessage):
            return step
        if isinstance(step, TextContent | ThinkingContent | ToolCall):
            return faux_message(step)
        if callable(step):
            try:
                produced = step(context)
            except Exception as exc:  # a scripted step is user code: report, never raise
                return f"FauxModel step {self._next_step} raised {type(exc).__name__}: {exc}"
            if isinstance(produced, AssistantMessage):
                return produced
            return (
                f"FauxModel step {self._next_step} returned {type(produced).__name__}, "
                "expected an AssistantMessage"
            )
        return faux_message(*step)

    def _step_events(
        self, scripted: AssistantMessage, assembler: MessageAssembler, signal: AbortSignal | None
    ) -> Iterator[Events]:
        """The events of the step's blocks, each batch built by the shared assembler just
        before it is yielded (none once the signal fired, so ``partial`` holds only what was
        streamed); a tool call ends with the script's own arguments and error."""
        yield assembler.start()
        for index, block in enumerate(scripted.content):
            if signal is not None and signal.aborted:
                return
            if isinstance(block, TextContent):
                chunks = self._chunks(block.text)
                if not chunks:
                    yield assembler.text_block("")
                for chunk in chunks:
                    if signal is not None and signal.aborted:
                        return
                    yield assembler.text(chunk)
                yield assembler.close_text()
            elif isinstance(block, ThinkingContent):
                chunks = self._chunks(block.thinking)
                if not chunks:
                    yield assembler.thinking_block("", None, redacted=False)
                for chunk in chunks:
                    if signal is not None and signal.aborted:
                        return
                    yield assembler.thinking(chunk)
                yield assembler.close_text()
            else:
                yield assembler.tool_call_start(index, block.id, block.name)
                chunks = self._chunks(to_json(block.arguments).decode())
                last = chunks.pop() if chunks else ""
                for chunk in chunks:
                    if signal is not None and signal.aborted:
                        return
                    yield assembler.tool_call_delta(index, chunk)
                arguments = copy_json(block.arguments)
                yield assembler.tool_call_known(index, last, arguments, block.arguments_error)

    def _chunks(self, text: str) -> list[str]:
        size = self.chunk_size
        if len(text) <= size:
            return [text] if text else []
        return [text[start : start + size] for start in range(0, len(text), size)]
