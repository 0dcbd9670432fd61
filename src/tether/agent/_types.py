"""The vocabulary of layer 2: executable tools, their results, hook contracts, loop events."""

from __future__ import annotations

import difflib
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict, get_args

import pydantic

from tether.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    ImageContent,
    Message,
    Model,
    StreamFn,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
)

from ._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

__all__ = [
    "IDEMPOTENT",
    "AfterToolCallContext",
    "AfterToolCallHook",
    "AfterToolCallResult",
    "AgentContext",
    "AgentEnd",
    "AgentEvent",
    "AgentLoopConfig",
    "AgentMessage",
    "AgentOptions",
    "AgentStart",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallHook",
    "BeforeToolCallResult",
    "ExecutionMode",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "ToolExecute",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "TurnEnd",
    "TurnStart",
    "UpdateCallback",
]

ExecutionMode: TypeAlias = Literal["parallel", "sequential"]

IDEMPOTENT = "idempotent"
"""``AgentTool.metadata`` key: true when running the call twice does what running it once does
(the read-only tools). A durable run re-runs such a call after a crash instead of answering it
``interrupted``."""

AgentMessage: TypeAlias = Message | Any
"""A transcript entry: an LLM message, or an application message that ``convert_to_llm`` maps."""


@dataclass(slots=True)
class AgentToolResult:
    """What a tool produced. ``terminate`` asks the loop to stop after this batch (it does when
    every result of the batch asks); ``added_tool_names`` activates tools from here on."""

    content: list[TextContent | ImageContent]
    details: Any = None
    terminate: bool = False
    added_tool_names: list[str] | None = None


UpdateCallback: TypeAlias = Callable[[AgentToolResult], None]
ToolExecute: TypeAlias = Callable[
    [str, Any, AbortSignal, UpdateCallback | None], Awaitable[AgentToolResult | str]
]


@dataclass(slots=True)
class AgentTool:
    """A tool the loop can run: the model-facing name, description and parameters, plus code.

    ``parameters`` is a JSON-Schema dict, or a pydantic model class whose instances the tool then
    receives. ``execute(tool_call_id, params, signal, on_update)`` returns a result or a plain
    string, and signals failure by raising. ``metadata`` is never sent to a model; upper layers
    keep their facts there (governance, rendering).
    """

    name: str
    label: str
    description: str
    parameters: dict[str, Any] | type[pydantic.BaseModel]
    execute: ToolExecute
    prepare_arguments: Callable[[Any], Any] | None = None
    execution_mode: ExecutionMode | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class AgentContext:
    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool] = field(default_factory=list)


@dataclass(slots=True)
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    """The raw block as the model sent it."""
    args: Any
    """The prepared and validated arguments the tool would receive."""
    context: AgentContext


@dataclass(slots=True)
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass(slots=True)
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass(slots=True)
class AfterToolCallResult:
    """Each field that is not ``None`` replaces that field of the result; the rest is kept."""

    content: list[TextContent | ImageContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


BeforeToolCallHook: TypeAlias = Callable[
    [BeforeToolCallContext, AbortSignal],
    Awaitable[BeforeToolCallResult | None] | BeforeToolCallResult | None,
]
"""A plain function or a coroutine function: the loop awaits what it returns when awaitable."""
AfterToolCallHook: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal],
    Awaitable[AfterToolCallResult | None] | AfterToolCallResult | None,
]
"""A plain function or a coroutine function, like :data:`BeforeToolCallHook`."""
ConvertToLlm: TypeAlias = Callable[[list[AgentMessage]], list[Message] | Awaitable[list[Message]]]
TransformContext: TypeAlias = Callable[
    [list[AgentMessage], AbortSignal | None],
    list[AgentMessage] | Awaitable[list[AgentMessage]],
]


@dataclass(slots=True)
class AgentLoopConfig:
    """How one run behaves. Only ``model`` and ``stream_fn`` are required.

    ``abort_grace`` is how long (seconds) tools may take to stop after an abort before the loop
    cancels them; ``api_key`` is handed to the stream function. ``available_tools`` and
    ``system_prompt_for``: dynamic tools (see :mod:`tether.agent._dynamic_tools`).
    """

    model: Model
    stream_fn: StreamFn
    convert_to_llm: ConvertToLlm | None = None
    transform_context: TransformContext | None = None
    tool_execution: ExecutionMode = "parallel"
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    get_steering_messages: Callable[[], Awaitable[list[AgentMessage]]] | None = None
    get_follow_up_messages: Callable[[], Awaitable[list[AgentMessage]]] | None = None
    abort_grace: float = 1.0
    api_key: str | None = None
    stream_options: StreamOptions | None = None
    """Per-request options (thinking level, max tokens, ...); the loop sets the abort signal and,
    when ``api_key`` is given, the key."""
    available_tools: Sequence[AgentTool] = ()
    """Tools a result may activate by name (``added_tool_names``), from that point on."""
    system_prompt_for: Callable[[list[AgentTool]], str] | None = None
    """Builds the system prompt from the active tools: at the start of a run (replacing the
    context's) and whenever a result activates tools."""
    tools_for_request: Callable[[list[AgentTool]], Awaitable[list[AgentTool]]] | None = None
    """The tools to show the model in the next request, given the active ones (e.g. a remote
    hand's tools in place of the local ones); the response's calls resolve against them. A
    failing hook is logged and the active tools are shown."""
    before_execute: Callable[[], Awaitable[None]] | None = None
    """Awaited just before each tool's ``execute`` starts. An :class:`~tether.agent.Agent` sets
    it to wait until its listeners have handled every event so far, so what they record of the
    call's start (a session's ``tool_call_started``) is written before the tool can act: a run
    killed mid-call then still says the call began."""
    max_result_lines: int | None = DEFAULT_MAX_LINES
    max_result_bytes: int | None = DEFAULT_MAX_BYTES
    """Every tool result's text is cut to these caps (``None``: no cap) before the
    ``after_tool_call`` hook sees it, ending with a notice of what was cut — except for tools
    whose ``metadata["caps_own_result"]`` is true (:data:`~tether.agent.CAPS_OWN_RESULT`)."""

    def __post_init__(self) -> None:
        check_loop_options(self)


class AgentOptions(TypedDict, total=False):
    """The :class:`AgentLoopConfig` fields an :class:`~tether.agent.Agent` takes as keyword
    options (it owns ``model``, ``stream_fn``, the steering and follow-up queues and
    ``before_execute``)."""

    convert_to_llm: ConvertToLlm | None
    transform_context: TransformContext | None
    tool_execution: ExecutionMode
    before_tool_call: BeforeToolCallHook | None
    after_tool_call: AfterToolCallHook | None
    abort_grace: float
    api_key: str | None
    stream_options: StreamOptions | None
    available_tools: Sequence[AgentTool]
    system_prompt_for: Callable[[list[AgentTool]], str] | None
    tools_for_request: Callable[[list[AgentTool]], Awaitable[list[AgentTool]]] | None
    max_result_lines: int | None
    max_result_bytes: int | None


_CALLABLE_OPTIONS = (
    "convert_to_llm",
    "transform_context",
    "before_tool_call",
    "after_tool_call",
    "get_steering_messages",
    "get_follow_up_messages",
    "before_execute",
    "system_prompt_for",
)


def check_loop_options(config: AgentLoopConfig) -> None:
    """Refuse option values that could only fail later, inside a run, where only the model
    would see why: ``ValueError`` for a value out of range, ``TypeError`` for a wrong kind."""
    modes = get_args(ExecutionMode)
    if config.tool_execution not in modes:
        closest = difflib.get_close_matches(str(config.tool_execution), modes, n=1)
        hint = f"; did you mean {closest[0]!r}?" if closest else ""
        raise ValueError(
            f"tool_execution must be 'parallel' or 'sequential', got "
            f"{config.tool_execution!r}{hint}"
        )
    for name in _CALLABLE_OPTIONS:
        value = getattr(config, name)
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be a function or None, got {type(value).__name__}.")
    grace = config.abort_grace
    if isinstance(grace, bool) or not isinstance(grace, int | float) or not math.isfinite(grace):
        raise TypeError(f"abort_grace must be a number of seconds, got {grace!r}.")
    if grace < 0:
        raise ValueError(f"abort_grace must be 0 or more seconds, got {grace!r}.")
    if config.api_key is not None and not isinstance(config.api_key, str):
        raise TypeError(f"api_key must be a str or None, got {type(config.api_key).__name__}.")
    if config.stream_options is not None and not isinstance(config.stream_options, StreamOptions):
        raise TypeError(
            "stream_options must be a tether.ai.StreamOptions or None, got "
            f"{type(config.stream_options).__name__}."
        )
    for tool in config.available_tools:
        if not isinstance(tool, AgentTool):
            raise TypeError(f"available_tools must hold AgentTools, got {type(tool).__name__}.")
    for name in ("max_result_lines", "max_result_bytes"):
        cap = getattr(config, name)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int)):
            raise TypeError(f"{name} must be an int or None, got {cap!r}.")
        if cap is not None and cap < 1:
            raise ValueError(f"{name} must be at least 1 (None: no cap), got {cap}.")


@dataclass(slots=True)
class AgentStart:
    type: Literal["agent_start"] = "agent_start"


@dataclass(slots=True)
class AgentEnd:
    messages: list[AgentMessage]
    """Every message this run added, in transcript order."""
    type: Literal["agent_end"] = "agent_end"


@dataclass(slots=True)
class TurnStart:
    type: Literal["turn_start"] = "turn_start"


@dataclass(slots=True)
class TurnEnd:
    message: AgentMessage
    tool_results: list[ToolResultMessage]
    """In the order the model wrote the calls, whatever order they finished in."""
    type: Literal["turn_end"] = "turn_end"


@dataclass(slots=True)
class MessageStart:
    message: AgentMessage
    type: Literal["message_start"] = "message_start"


@dataclass(slots=True)
class MessageUpdate:
    message: AssistantMessage
    event: AssistantMessageEvent
    type: Literal["message_update"] = "message_update"


@dataclass(slots=True)
class MessageEnd:
    message: AgentMessage
    type: Literal["message_end"] = "message_end"


@dataclass(slots=True)
class ToolExecutionStart:
    tool_call_id: str
    tool_name: str
    args: Any
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(slots=True)
class ToolExecutionUpdate:
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: AgentToolResult
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(slots=True)
class ToolExecutionEnd:
    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool
    type: Literal["tool_execution_end"] = "tool_execution_end"


AgentEvent: TypeAlias = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
)
