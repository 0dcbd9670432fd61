"""Compaction: when the next request would crowd the model's window, the older part of the
branch is summarised by the model itself and the recent part kept whole.

:class:`Compactor` is an agent's ``transform_context``: before every request it sends the
context as the session sees it (the newest summary, then the messages from the first kept one
on), and when that context's estimated tokens leave less than ``reserve_tokens`` of the window,
it asks the model for a summary of everything before a cut, writes a ``compaction`` entry (the
file keeps every message) and sends the summary plus the tail. The cut falls at the start of a
turn, never between a tool call and its result; the tail keeps about ``keep_recent_tokens``.
What must survive a compaction (the loaded skills) is kept by ``preserve``: given the messages
summarised away, it returns those to put right after the summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from tether.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    StreamDone,
    StreamError,
    StreamFn,
    StreamOptions,
    TetherError,
    TextContent,
    TextDelta,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

from ._entries import CompactionEntry, MessageEntry
from ._session import Session, compaction_message

__all__ = [
    "SUMMARY_INSTRUCTIONS",
    "CompactionError",
    "Compactor",
    "Preserve",
    "estimate_tokens",
]

Preserve = Callable[[Sequence[Message]], list[Message]]
"""Of the messages a compaction summarises away, those to keep after the summary."""

SUMMARY_INSTRUCTIONS = """\
You are summarising the first part of a coding session so that it can go on with only your \
summary and the most recent messages. Write a dense summary for the assistant that continues \
the work: the user's goal and constraints, what was decided and why, the files read or changed \
(paths and what changed), commands run and their outcomes, errors met and how they were \
resolved, and what remains to do. Keep exact names, paths, values and error messages. Do not \
address the user; do not invent anything."""

_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 1200


class CompactionError(TetherError, RuntimeError):
    """The model could not produce a summary; the request goes on uncompacted."""


def estimate_tokens(messages: Sequence[Any]) -> int:
    """A conservative estimate: characters / 4, plus a fixed cost per image and message."""
    total = 0
    for message in messages:
        total += 4
        content = message if isinstance(message, str) else getattr(message, "content", "")
        if isinstance(content, str):
            total += len(content) // _CHARS_PER_TOKEN
            continue
        for block in content:
            if isinstance(block, TextContent):
                total += len(block.text) // _CHARS_PER_TOKEN
            elif isinstance(block, ThinkingContent):
                total += len(block.thinking) // _CHARS_PER_TOKEN
            elif isinstance(block, ToolCall):
                total += len(json.dumps(block.arguments)) // _CHARS_PER_TOKEN + 8
            elif isinstance(block, ImageContent):
                total += _IMAGE_TOKENS
    return total


class Compactor:
    """``transform_context`` that keeps requests inside ``model``'s window.

    ``model`` is a :class:`Model` or a function that returns the current one (a run whose model
    the person can switch passes ``lambda: agent.state.model``, so there is one source of
    truth); the reserve and the kept tail follow the current model's window unless given."""

    def __init__(
        self,
        session: Session | None,
        model: Model | Callable[[], Model],
        stream_fn: StreamFn,
        *,
        system_prompt: str = "",
        reserve_tokens: int | None = None,
        keep_recent_tokens: int | None = None,
        api_key: str | None = None,
        preserve: Preserve | None = None,
    ) -> None:
        self.session = session
        self.preserve = preserve
        self._model = model
        self.stream_fn = stream_fn
        self.system_prompt = system_prompt
        self._reserve_tokens = reserve_tokens
        self._keep_recent_tokens = keep_recent_tokens
        self.api_key = api_key
        self.summary: str | None = None
        self.first_kept: Message | None = None
        self._force_next = False
        self.compactions = 0
        self.compacted_at: int | None = None
        """How many messages the transcript had when the newest summary was made."""
        self.last_error: str | None = None
        """Why the newest attempt to summarise failed (``None`` after one that worked)."""
        self.on_summary_text: Callable[[str], None] | None = None
        """Called with the summary written so far while it streams (progress for a person)."""

    @property
    def model(self) -> Model:
        """The model whose window is kept and which writes the summaries."""
        return self._model() if callable(self._model) else self._model

    @property
    def reserve_tokens(self) -> int:
        window = self.model.context_window
        return self._reserve_tokens or min(16_384, max(window // 4, 256))

    @property
    def keep_recent_tokens(self) -> int:
        window = self.model.context_window
        return self._keep_recent_tokens or min(20_000, max(window // 4, 256))

    def compact_before_next_request(self) -> None:
        """Summarise before the next request whatever the estimate (after a context overflow)."""
        self._force_next = True

    async def compact_now(
        self,
        messages: list[Any],
        signal: AbortSignal | None = None,
        on_summary_text: Callable[[str], None] | None = None,
    ) -> list[Any]:
        """Summarise the older part of ``messages`` now, whatever the estimate (``/compact``);
        the compacted view. ``on_summary_text`` sees the summary as it streams."""
        self._force_next, self.on_summary_text = True, on_summary_text
        try:
            return await self(messages, signal)
        finally:
            self._force_next, self.on_summary_text = False, None

    def context_tokens(self, messages: list[Any]) -> int:
        """The estimated tokens of the next request: the system prompt and the context as
        compacted so far (the newest summary, then the kept messages)."""
        return estimate_tokens([self.system_prompt, *self._view(messages)])

    async def __call__(self, messages: list[Any], signal: AbortSignal | None) -> list[Any]:
        view = self._view(messages)
        budget = self.model.context_window - self.reserve_tokens
        tokens = estimate_tokens([self.system_prompt, *view]) if view else 0
        if not (self._force_next or tokens > budget):
            return view
        self._force_next = False
        cut = self._cut(view)
        if cut is None:
            return view
        try:
            summary = await self._summarise(view[:cut], signal)
        except CompactionError as error:
            self.last_error = str(error)
            return view
        self.last_error = None
        self.summary = summary
        self.first_kept = view[cut]
        self.compactions += 1
        self.compacted_at = len(messages)
        if self.session is not None:
            self.session.append(
                CompactionEntry(
                    summary=summary,
                    first_kept_entry_id=self._entry_id(view[cut]),
                    tokens_before=tokens,
                )
            )
        return self._view(messages)

    def _view(self, messages: list[Any]) -> list[Any]:
        """The newest summary, what ``preserve`` keeps of the older messages, then the
        transcript from the first kept message on."""
        if self.summary is None or self.first_kept is None:
            return list(messages)
        for position, message in enumerate(messages):
            if message is self.first_kept:
                kept = self.preserve(messages[:position]) if self.preserve is not None else []
                return [compaction_message(self.summary), *kept, *messages[position:]]
        return list(messages)

    def _cut(self, view: list[Any]) -> int | None:
        """Where the kept tail starts: the earliest turn boundary whose tail fits the keep
        budget (at least the newest turn), never a tool result; ``None`` when nothing is left
        to summarise."""
        kept = 0
        cut: int | None = None
        for position in range(len(view) - 1, 0, -1):
            kept += estimate_tokens([view[position]])
            if isinstance(view[position], ToolResultMessage):
                continue
            if cut is not None and kept > self.keep_recent_tokens:
                break
            cut = position
        return cut

    async def _summarise(self, older: list[Any], signal: AbortSignal | None) -> str:
        transcript = "\n\n".join(_as_text(message) for message in older)
        request = Context(
            SUMMARY_INSTRUCTIONS,
            [UserMessage(f"<conversation>\n{transcript}\n</conversation>\n\nSummarise it.")],
        )
        options = StreamOptions(signal=signal, api_key=self.api_key)
        final: AssistantMessage | None = None
        written = ""
        async for event in self.stream_fn(self.model, request, options):
            if isinstance(event, TextDelta) and self.on_summary_text is not None:
                written += event.delta
                self.on_summary_text(written)
            if isinstance(event, StreamDone | StreamError):
                final = event.message
        if final is None or final.failed or not final.text().strip():
            reason = final.error_message if final is not None else "no answer"
            raise CompactionError(f"the summary request failed: {reason}")
        return final.text().strip()

    def _entry_id(self, message: Any) -> str | None:
        if self.session is None:
            return None
        for entry in reversed(self.session.entries):
            if isinstance(entry, MessageEntry) and entry.message is message:
                return entry.id
        return None


def _as_text(message: Any) -> str:
    if isinstance(message, UserMessage):
        content = message.content
        text = (
            content
            if isinstance(content, str)
            else " ".join(b.text if isinstance(b, TextContent) else "(image)" for b in content)
        )
        return f"[user]\n{text}"
    if isinstance(message, AssistantMessage):
        parts = []
        for block in message.content:
            if isinstance(block, TextContent):
                parts.append(block.text)
            elif isinstance(block, ToolCall):
                parts.append(f"(calls {block.name} {json.dumps(block.arguments)[:2000]})")
        return "[assistant]\n" + "\n".join(parts)
    if isinstance(message, ToolResultMessage):
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        status = " (error)" if message.is_error else ""
        return f"[{message.tool_name} result{status}]\n{text[:4000]}"
    return f"[{getattr(message, 'role', 'message')}]"
