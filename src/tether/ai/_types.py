"""The vocabulary of layer 1: content blocks, messages, models, tools and request contexts.

Every type is a plain slotted dataclass with a string discriminator (``type`` for content blocks,
``role`` for messages) so transcripts round-trip through JSON losslessly (see :mod:`._json`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "FAILED_STOP_REASONS",
    "AssistantContent",
    "AssistantMessage",
    "Context",
    "ImageContent",
    "Message",
    "Model",
    "ModelCost",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "Tool",
    "ToolCall",
    "ToolResultContent",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserMessage",
]

StopReason: TypeAlias = Literal["stop", "length", "tool_use", "error", "aborted"]

FAILED_STOP_REASONS: frozenset[StopReason] = frozenset({"error", "aborted"})
"""The terminal stop reasons of a reply that did not complete: its tool calls are not run."""


@dataclass(slots=True)
class TextContent:
    text: str
    type: Literal["text"] = "text"


@dataclass(slots=True)
class ImageContent:
    data: str
    """Base64-encoded image bytes."""
    mime_type: str
    type: Literal["image"] = "image"


@dataclass(slots=True)
class ThinkingContent:
    """A model's reasoning. ``signature`` is provider-opaque replay data (Anthropic's signature,
    a Responses reasoning item as JSON); ``redacted`` thinking carries only that data."""

    thinking: str
    signature: str | None = None
    redacted: bool = False
    type: Literal["thinking"] = "thinking"


@dataclass(slots=True)
class ToolCall:
    """A model's request to run a tool; ``arguments`` is exactly what the model sent."""

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None
    """Set by a provider when the final arguments did not parse strictly (malformed, or cut off
    by a ``length`` stop): such a call is never executed; its result is this error."""
    type: Literal["tool_call"] = "tool_call"


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall
ToolResultContent: TypeAlias = TextContent | ImageContent


@dataclass(slots=True)
class Usage:
    """Token counts of one response; ``cost`` is the total in US dollars when known."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: float = 0.0


@dataclass(slots=True)
class UserMessage:
    content: str | list[UserContent]
    timestamp: float = field(default_factory=time.time)
    role: Literal["user"] = "user"


@dataclass(slots=True)
class AssistantMessage:
    content: list[AssistantContent]
    stop_reason: StopReason = "stop"
    model: str = ""
    provider: str = ""
    api: str = ""
    usage: Usage = field(default_factory=Usage)
    error_message: str | None = None
    timestamp: float = field(default_factory=time.time)
    role: Literal["assistant"] = "assistant"

    @property
    def failed(self) -> bool:
        """The reply ended in an error or an abort (:data:`FAILED_STOP_REASONS`)."""
        return self.stop_reason in FAILED_STOP_REASONS

    def tool_calls(self) -> list[ToolCall]:
        """The tool-call blocks of this message, in the order the model wrote them."""
        return [block for block in self.content if isinstance(block, ToolCall)]

    def text(self) -> str:
        """The concatenated text blocks (thinking and tool calls left out)."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


@dataclass(slots=True)
class ToolResultMessage:
    """The one result every tool call ends in, success or failure."""

    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent]
    details: Any = None
    is_error: bool = False
    added_tool_names: list[str] | None = None
    """Tools active from this transcript point on; ``None`` unless non-empty."""
    timestamp: float = field(default_factory=time.time)
    role: Literal["tool_result"] = "tool_result"

    def __post_init__(self) -> None:
        if not self.added_tool_names:
            self.added_tool_names = None


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(slots=True, frozen=True)
class ModelCost:
    """Prices in US dollars per million tokens, one per usage bucket."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(slots=True)
class Model:
    """Which model to call and how: ``api`` selects the wire protocol, ``provider`` the vendor.

    ``compat`` holds per-server switches of the wire format (see :mod:`tether.ai.providers`);
    ``headers`` are sent with every request; ``extra_body`` holds request fields (sampling
    settings, ``tool_choice``...) merged into every request body, under ``StreamOptions.extra``.
    """

    id: str
    provider: str
    api: str
    base_url: str | None = None
    context_window: int = 128_000
    max_tokens: int = 16_384
    input: tuple[str, ...] = ("text",)
    name: str = ""
    reasoning: bool = False
    cost: ModelCost = field(default_factory=ModelCost)
    compat: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    extra_body: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        """``provider/id``: how ``--model``, ``models.toml`` and the session name this model."""
        return f"{self.provider}/{self.id}"


@dataclass(slots=True)
class Tool:
    """What a model is told about a tool: a name, a description and a JSON-Schema for arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(slots=True)
class Context:
    """Everything one model request carries."""

    system_prompt: str
    messages: list[Message]
    tools: list[Tool] = field(default_factory=list)
