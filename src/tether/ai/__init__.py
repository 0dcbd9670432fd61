"""Layer 1 — what a model sees and says. Describes; never executes.

Content blocks and messages (lossless JSON via :func:`to_json` / :func:`from_json`), the
model-facing :class:`Tool`, :class:`Model`, the streaming events of one assistant message and the
:data:`StreamFn` that produces them, argument validation with coercion, a streaming-JSON parser
for arguments in flight, and cancellation (:class:`AbortController`). The scripted model lives in
:mod:`tether.ai.faux`.
"""

from ._abort import AbortController, AbortError, AbortSignal, first_to_finish
from ._confirm_request import (
    CONFIRM_REQUEST_PROPERTY,
    confirm_request_schema,
    without_confirm_request,
)
from ._errors import TetherError
from ._incremental_json import parse_streaming_json
from ._json import from_json, to_json
from ._repair import NO_RESULT_RECORDED, repair_transcript
from ._stream import (
    AssistantMessageEvent,
    ReasoningLevel,
    StreamDone,
    StreamError,
    StreamFn,
    StreamOptions,
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
from ._text_input import clean_text, decode_json_line
from ._types import (
    FAILED_STOP_REASONS,
    AssistantContent,
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    ModelCost,
    StopReason,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultContent,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
)
from ._validation import (
    ArgumentError,
    ToolArgumentsError,
    copy_json,
    parameters_schema,
    validate_arguments,
    validate_tool_arguments,
)

__all__ = [
    "CONFIRM_REQUEST_PROPERTY",
    "FAILED_STOP_REASONS",
    "NO_RESULT_RECORDED",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "ArgumentError",
    "AssistantContent",
    "AssistantMessage",
    "AssistantMessageEvent",
    "Context",
    "ImageContent",
    "Message",
    "Model",
    "ModelCost",
    "ReasoningLevel",
    "StopReason",
    "StreamDone",
    "StreamError",
    "StreamFn",
    "StreamOptions",
    "StreamStart",
    "TetherError",
    "TextContent",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ThinkingContent",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "Tool",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResultContent",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserMessage",
    "clean_text",
    "confirm_request_schema",
    "copy_json",
    "decode_json_line",
    "first_to_finish",
    "from_json",
    "parameters_schema",
    "parse_streaming_json",
    "repair_transcript",
    "to_json",
    "validate_arguments",
    "validate_tool_arguments",
    "without_confirm_request",
]
