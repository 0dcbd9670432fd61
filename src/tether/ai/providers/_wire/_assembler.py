"""One assistant message built from a provider's stream, and the tether events that describe it.

Every provider translates its wire events into calls on a :class:`MessageAssembler`; the
assembler keeps ``partial`` (the one message object every event carries), opens and closes
content blocks in order, and returns the events to yield. Text and thinking are one open block
at a time (a delta of the other kind closes it); tool calls are keyed by whatever the wire uses
(an index, an item id) and may be open together. Closing a tool call parses its arguments
strictly: a call whose arguments are malformed, or cut off by a ``length`` stop, keeps its
best-effort arguments and gets ``arguments_error``, so it is never executed.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypeAlias

from ..._stream import (
    AssistantMessageEvent,
    StreamDone,
    StreamError,
    StreamStart,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ..._types import (
    FAILED_STOP_REASONS,
    AssistantMessage,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from ._arguments import StreamingArguments
from ._usage import priced_usage

__all__ = ["MessageAssembler"]

Events = list[AssistantMessageEvent]

_CUT_OFF = (
    "its arguments were cut off: the response reached the output token limit before the call "
    "was complete"
)


_OpenCall: TypeAlias = tuple[int, ToolCall, StreamingArguments | None]
"""An open tool call: its index in ``partial``'s content, its block, and its argument text once
some arrived (a scripted call ending in :meth:`MessageAssembler.tool_call_known` has none)."""


class MessageAssembler:
    """Builds ``partial`` and the events of one streamed assistant message."""

    __slots__ = ("_calls", "_open", "model", "partial", "started")

    def __init__(self, model: Model) -> None:
        self.model = model
        self.partial = AssistantMessage(
            content=[], model=model.id, provider=model.provider, api=model.api
        )
        self.started = False
        self._open: int | None = None  # index of the open text or thinking block
        self._calls: dict[Hashable, _OpenCall] = {}

    @property
    def reached_caller(self) -> bool:
        """Whether an event beyond ``start`` was handed out: a content block (trying the
        request again would then show it twice)."""
        return bool(self.partial.content)

    # -- the start ---------------------------------------------------------------------------

    def start(self) -> Events:
        """The ``start`` event, once; later calls return nothing."""
        if self.started:
            return []
        self.started = True
        return [StreamStart(self.partial)]

    # -- text and thinking ---------------------------------------------------------------------

    def text(self, delta: str) -> Events:
        """Append text, opening a text block when the open block is not one."""
        if not delta:
            return []
        events = self.start()
        block = self._open_block(TextContent, events)
        assert isinstance(block, TextContent)
        block.text += delta
        events.append(TextDelta(self._open or 0, delta, self.partial))
        return events

    def thinking(self, delta: str) -> Events:
        """Append reasoning text, opening a thinking block when the open block is not one."""
        if not delta:
            return []
        events = self.start()
        block = self._open_block(ThinkingContent, events)
        assert isinstance(block, ThinkingContent)
        block.thinking += delta
        events.append(ThinkingDelta(self._open or 0, delta, self.partial))
        return events

    def thinking_signature(self, signature: str) -> Events:
        """Attach replay data to the open thinking block (or the last one); makes one if none."""
        target = self._last_thinking()
        events = self.start()
        if target is None:
            target = ThinkingContent("")
            events.extend(self._begin(target))
        target.signature = (target.signature or "") + signature
        return events

    def thinking_block(self, thinking: str, signature: str | None, *, redacted: bool) -> Events:
        """A whole thinking block at once (redacted thinking, a finished reasoning item)."""
        events = self.start()
        events.extend(self.close_text())
        block = ThinkingContent("", signature=signature, redacted=redacted)
        events.extend(self._begin(block))
        index = len(self.partial.content) - 1
        if thinking:
            block.thinking = thinking
            events.append(ThinkingDelta(index, thinking, self.partial))
        events.extend(self.close_text())
        return events

    def text_block(self, text: str) -> Events:
        """A whole text block at once, closed (an empty one too: a script may hold one)."""
        events = self.start()
        events.extend(self.close_text())
        block = TextContent("")
        events.extend(self._begin(block))
        if text:
            block.text = text
            events.append(TextDelta(len(self.partial.content) - 1, text, self.partial))
        events.extend(self.close_text())
        return events

    def close_text(self) -> Events:
        """End the open text or thinking block, if any."""
        index = self._open
        if index is None:
            return []
        self._open = None
        block = self.partial.content[index]
        if isinstance(block, TextContent):
            return [TextEnd(index, block.text, self.partial)]
        assert isinstance(block, ThinkingContent)
        return [ThinkingEnd(index, block.thinking, self.partial)]

    # -- tool calls ------------------------------------------------------------------------------

    def has_call(self, key: Hashable) -> bool:
        return key in self._calls

    def call_block(self, key: Hashable) -> ToolCall:
        """The open tool call under ``key``."""
        return self._calls[key][1]

    def tool_call_start(self, key: Hashable, id: str, name: str) -> Events:
        """Open a tool call under ``key`` (an index, an item id...)."""
        events = self._before_block()
        if key in self._calls:
            events.extend(self.tool_call_end(key))
        block = ToolCall(id, name, {})
        content = self.partial.content
        index = len(content)
        content.append(block)
        self._calls[key] = (index, block, None)
        events.append(ToolCallStart(index, self.partial))
        return events

    def tool_call_delta(self, key: Hashable, delta: str) -> Events:
        """Append argument text to the call under ``key``; ``partial`` keeps a dict parse."""
        if not delta:
            return []
        index, block, arguments = self._calls[key]
        if arguments is None:
            arguments = self._new_arguments(key)
        block.arguments = arguments.feed(delta)
        return [ToolCallDelta(index, delta, self.partial)]

    def tool_call_arguments(self, key: Hashable, text: str) -> Events:
        """The call's whole argument text (servers that send it complete, or only at the end)."""
        index, block, arguments = self._calls[key]
        if arguments is None:
            arguments = self._new_arguments(key)
        received = arguments.text
        if text.startswith(received):
            return self.tool_call_delta(key, text[len(received) :])
        block.arguments = arguments.replace(text)
        return [ToolCallDelta(index, text, self.partial)]

    def tool_call_end(self, key: Hashable, *, cut_off: bool = False) -> Events:
        """Close the call under ``key``: strict parse; a failure sets ``arguments_error``."""
        call = self._calls.pop(key, None)
        if call is None:
            return []
        index, block, streamed = call
        arguments, problem = (streamed or StreamingArguments()).finish()
        block.arguments = arguments
        if problem is not None:
            block.arguments_error = _CUT_OFF if cut_off else problem
        return [ToolCallEnd(index, block, self.partial)]

    def tool_call_known(
        self,
        key: Hashable,
        delta: str,
        arguments: dict[str, Any],
        arguments_error: str | None = None,
    ) -> Events:
        """The last piece of a call whose arguments are known already (a scripted call): the
        call ends holding ``arguments`` and ``arguments_error``, its text not parsed."""
        index, block, _ = self._calls.pop(key)  # any text streamed before is not parsed
        block.arguments = arguments
        block.arguments_error = arguments_error
        end = ToolCallEnd(index, block, self.partial)
        if not delta:
            return [end]
        return [ToolCallDelta(index, delta, self.partial), end]

    # -- the end ---------------------------------------------------------------------------------

    def set_usage(
        self, *, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0
    ) -> None:
        """Record the request's token counts (fresh input apart from cache reads and writes)."""
        self.partial.usage = priced_usage(
            self.model, input=input, output=output, cache_read=cache_read, cache_write=cache_write
        )

    def close_all(self, *, cut_off: bool = False) -> Events:
        """End every open block; open tool calls are closed as cut off when ``cut_off``."""
        events = self.close_text()
        for key in list(self._calls):
            events.extend(self.tool_call_end(key, cut_off=cut_off))
        return events

    def done(self, stop_reason: StopReason, error_message: str | None = None) -> Events:
        """Close everything and finish. ``error``/``aborted`` end in an ``error`` event."""
        if stop_reason in FAILED_STOP_REASONS:
            return self.fail(stop_reason, error_message or f"The model stopped: {stop_reason}")
        events = self.start()
        events.extend(self.close_all(cut_off=stop_reason == "length"))
        if stop_reason == "tool_use" and not self.partial.tool_calls():
            stop_reason = "stop"
        elif stop_reason == "stop" and self.partial.tool_calls():
            stop_reason = "tool_use"
        self.partial.stop_reason = stop_reason
        self.partial.error_message = error_message
        events.append(StreamDone(self.partial, self.partial))
        return events

    def fail(self, stop_reason: StopReason, error_message: str) -> Events:
        """End in an ``error`` event; partial content is kept, open calls are not executable."""
        events = self.close_all(cut_off=False)
        for block in self.partial.content:
            if isinstance(block, ToolCall) and block.arguments_error is None:
                block.arguments_error = (
                    "the response ended before the call could be run"
                    f" ({'aborted' if stop_reason == 'aborted' else 'error'})"
                )
        self.partial.stop_reason = "aborted" if stop_reason == "aborted" else "error"
        self.partial.error_message = error_message
        events.append(StreamError(self.partial, self.partial))
        return events

    # -- internals -------------------------------------------------------------------------------

    def _new_arguments(self, key: Hashable) -> StreamingArguments:
        """Start the argument text of the open call under ``key`` (at its first piece)."""
        index, block, _ = self._calls[key]
        arguments = StreamingArguments()
        self._calls[key] = (index, block, arguments)
        return arguments

    def _before_block(self) -> Events:
        """What must come before a new block: ``start`` if not sent yet, and the end of the open
        text or thinking block, if any (most often nothing)."""
        if self.started and self._open is None:
            return []
        events = self.start()
        events.extend(self.close_text())
        return events

    def _open_block(
        self, kind: type[TextContent] | type[ThinkingContent], events: Events
    ) -> TextContent | ThinkingContent:
        index = self._open
        if index is not None:
            block = self.partial.content[index]
            if isinstance(block, kind):
                return block
            events.extend(self.close_text())
        fresh: TextContent | ThinkingContent = kind("")
        events.extend(self._begin(fresh))
        return fresh

    def _begin(self, block: TextContent | ThinkingContent) -> Events:
        self.partial.content.append(block)
        index = len(self.partial.content) - 1
        self._open = index
        if isinstance(block, TextContent):
            return [TextStart(index, self.partial)]
        return [ThinkingStart(index, self.partial)]

    def _last_thinking(self) -> ThinkingContent | None:
        for block in reversed(self.partial.content):
            if isinstance(block, ThinkingContent):
                return block
        return None
