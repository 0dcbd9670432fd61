"""Streaming: the events a model emits while it writes one assistant message, and ``StreamFn``.

Every event carries ``partial``, the message as written so far (one object, updated in place as
the stream advances). ``done`` and ``error`` also carry ``message``, the final message; an
``error`` message has stop reason ``"error"`` or ``"aborted"`` and an ``error_message``.
A stream function reports failures as an ``error`` event, never by raising.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from ._abort import AbortSignal
from ._types import AssistantMessage, Context, Model, ToolCall

__all__ = [
    "AssistantMessageEvent",
    "ReasoningLevel",
    "StreamDone",
    "StreamError",
    "StreamFn",
    "StreamOptions",
    "StreamStart",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
]


@dataclass(slots=True)
class StreamStart:
    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass(slots=True)
class TextStart:
    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


@dataclass(slots=True)
class TextDelta:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True)
class TextEnd:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


@dataclass(slots=True)
class ThinkingStart:
    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(slots=True)
class ThinkingDelta:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True)
class ThinkingEnd:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(slots=True)
class ToolCallStart:
    content_index: int
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(slots=True)
class ToolCallDelta:
    """A piece of the arguments' JSON text; the partial tool call holds a best-effort parse."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(slots=True)
class ToolCallEnd:
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(slots=True)
class StreamDone:
    message: AssistantMessage
    partial: AssistantMessage
    type: Literal["done"] = "done"


@dataclass(slots=True)
class StreamError:
    message: AssistantMessage
    partial: AssistantMessage
    type: Literal["error"] = "error"


AssistantMessageEvent: TypeAlias = (
    StreamStart
    | TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | StreamDone
    | StreamError
)


ReasoningLevel: TypeAlias = Literal["minimal", "low", "medium", "high"]


@dataclass(slots=True)
class StreamOptions:
    """Per-request options handed to a :data:`StreamFn`.

    ``max_tokens`` defaults to the model's; ``reasoning`` is ``None`` (off) or a thinking level,
    ignored for models without reasoning; ``headers`` are added to the model's own;
    ``max_retries`` bounds retries of a request that failed before its first event;
    ``tool_choice`` is ``None`` (the server's default), ``"auto"``, ``"required"``, ``"none"`` or
    the name of one offered tool, sent in each protocol's own form and only with tools; ``extra``
    is merged into the request body as is (over ``Model.extra_body``).
    """

    signal: AbortSignal | None = None
    api_key: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning: ReasoningLevel | None = None
    headers: dict[str, str] | None = None
    max_retries: int = 3
    tool_choice: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class StreamFn(Protocol):
    """``(model, context, options) -> AsyncIterator[AssistantMessageEvent]``."""

    def __call__(
        self, model: Model, context: Context, options: StreamOptions, /
    ) -> AsyncIterator[AssistantMessageEvent]: ...
