"""Layer 2 — execute. The agent loop, the tool pipeline and the stateful :class:`Agent`.

Knows tools only as :class:`AgentTool`; no UI, no files. A tool call travels a fixed pipeline
(prepare → validate → before-hook → execute → after-hook) and, whatever happens on the way, ends
as exactly one :class:`~tether.ai.ToolResultMessage`.
"""

from tether.ai import AbortController, AbortError, AbortSignal

from ._agent import Agent, AgentState, Listener
from ._errors import AgentBusyError, ToolError
from ._event_stream import AgentEventStream
from ._loop import agent_loop, agent_loop_continue, default_convert_to_llm
from ._result_cap import CAPS_OWN_RESULT
from ._review import Review
from ._single_call import run_tool_call
from ._tool_decorator import tool
from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_tail,
)
from ._types import (
    IDEMPOTENT,
    AfterToolCallContext,
    AfterToolCallHook,
    AfterToolCallResult,
    AgentContext,
    AgentEnd,
    AgentEvent,
    AgentLoopConfig,
    AgentMessage,
    AgentOptions,
    AgentStart,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallHook,
    BeforeToolCallResult,
    ExecutionMode,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecute,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UpdateCallback,
)

__all__ = [
    "CAPS_OWN_RESULT",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "IDEMPOTENT",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "AfterToolCallContext",
    "AfterToolCallHook",
    "AfterToolCallResult",
    "Agent",
    "AgentBusyError",
    "AgentContext",
    "AgentEnd",
    "AgentEvent",
    "AgentEventStream",
    "AgentLoopConfig",
    "AgentMessage",
    "AgentOptions",
    "AgentStart",
    "AgentState",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallHook",
    "BeforeToolCallResult",
    "ExecutionMode",
    "Listener",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "Review",
    "ToolError",
    "ToolExecute",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "TruncationResult",
    "TurnEnd",
    "TurnStart",
    "UpdateCallback",
    "agent_loop",
    "agent_loop_continue",
    "default_convert_to_llm",
    "format_size",
    "run_tool_call",
    "tool",
    "truncate_head",
    "truncate_tail",
]
