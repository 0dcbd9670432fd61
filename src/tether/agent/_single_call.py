"""One tool call through the pipeline, outside a model turn.

For hosts whose calls come from elsewhere than a model (an MCP client calling tether's tools):
the call takes the same path a model's does — validation, ``before_tool_call``, ``execute`` with
progress, the result cap, ``after_tool_call`` — and ends as exactly one
:class:`~tether.ai.ToolResultMessage`. No model is involved, so none is configured.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence

from tether.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    ToolCall,
    ToolResultMessage,
)

from ._pipeline import execute_tool_calls
from ._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES
from ._types import (
    AfterToolCallHook,
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentTool,
    BeforeToolCallHook,
)

__all__ = ["run_tool_call"]

_NO_MODEL = Model(id="", provider="", api="")


def _no_stream(
    model: Model, context: Context, options: StreamOptions, /
) -> AsyncIterator[AssistantMessageEvent]:
    raise RuntimeError("run_tool_call never asks a model")


async def run_tool_call(
    tool_call: ToolCall,
    tools: Sequence[AgentTool],
    *,
    before_tool_call: BeforeToolCallHook | None = None,
    after_tool_call: AfterToolCallHook | None = None,
    signal: AbortSignal | None = None,
    on_event: Callable[[AgentEvent], None] | None = None,
    max_result_lines: int | None = DEFAULT_MAX_LINES,
    max_result_bytes: int | None = DEFAULT_MAX_BYTES,
) -> ToolResultMessage:
    """Run ``tool_call`` against ``tools`` as the loop would; never raises for what the tool,
    the arguments or a hook do. ``on_event`` receives the call's events
    (``tool_execution_start`` / ``_update`` / ``_end``, then the result message's)."""
    config = AgentLoopConfig(
        model=_NO_MODEL,
        stream_fn=_no_stream,
        before_tool_call=before_tool_call,
        after_tool_call=after_tool_call,
        max_result_lines=max_result_lines,
        max_result_bytes=max_result_bytes,
    )
    message = AssistantMessage(content=[tool_call], stop_reason="tool_use")
    context = AgentContext("", [message], list(tools))
    outcome = await execute_tool_calls(
        message,
        [tool_call],
        tools,
        context,
        config,
        signal or AbortSignal(),
        on_event or _ignore,
    )
    return outcome.results[0]


def _ignore(event: AgentEvent) -> None:
    return None
