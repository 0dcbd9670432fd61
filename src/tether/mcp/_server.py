"""tether's governed tools as an MCP server (the official SDK's low-level ``Server``).

What a host sees of a tool is what a model would: its name, description and schema with every
``x-review`` stripped, and annotations derived from tether's own governance. The ``confirm``
property the gate injects is left out (:func:`tether.ai.without_confirm_request`): it asks for a
person, and the host's model cannot be one. A call without it is judged on its own; a host that
sends ``confirm=true`` anyway still gets the approval it asked for (through elicitation, or
denied), as nothing may clear that flag.

Every call runs the whole pipeline — validation, the gate, execution with progress sent as MCP
progress notifications (and a heartbeat while it is silent), the after hook that masks secrets —
and a denial or failure is a result with ``isError`` carrying the reason. The host's own
confirmation is not an approval: a call that needs a person asks tether's approver; without one,
a client that declared MCP elicitation is asked through it (:mod:`._elicitation`), and any other
client's call is denied with :data:`NO_APPROVAL_CHANNEL` as its reason. A cancelled request
aborts its call; bash kills its process tree."""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tether.agent import AbortController, AgentEvent, AgentTool, ToolExecutionUpdate, run_tool_call
from tether.ai import (
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    parameters_schema,
    without_confirm_request,
)
from tether.gate import Gate

from ._annotations import annotations_for
from ._elicitation import CURRENT_CALL, ElicitationApprover, ElicitingCall, client_can_elicit

if TYPE_CHECKING:
    import mcp_types
    from mcp.server import Server, ServerRequestContext

__all__ = [
    "HEARTBEAT_S",
    "NO_APPROVAL_CHANNEL",
    "NO_APPROVAL_CHANNEL_FORCED",
    "build_server",
    "to_call_result",
]

NO_APPROVAL_CHANNEL = (
    "tether mcp serve asks a person through MCP elicitation, but this client did not declare "
    "the elicitation capability, and the MCP host's own confirmation is not an approval, so "
    "nobody can answer one. Use a client that supports elicitation, rerun the server with "
    "--gate yolo to run such calls unasked, or use tether itself (interactive or rpc mode)."
)
"""The reason a call that needs a person is denied by a server started without an approver."""

NO_APPROVAL_CHANNEL_FORCED = (
    "tether mcp serve asks a person through MCP elicitation, but this client did not declare "
    "the elicitation capability, and the MCP host's own confirmation is not an approval, so "
    "nobody can answer one. This call asks a person in every gate mode, --gate yolo included "
    "(docs/governance.md): use a client that supports elicitation, or tether itself "
    "(interactive or rpc mode)."
)
"""The same denial for a call that asks in every mode, where ``--gate yolo`` is no way out."""

HEARTBEAT_S = 10.0
"""How long a running call that asked for progress may go without a notification: well inside
the 60 s request timeout common among MCP hosts, which restart it on progress."""

_CANCEL_GRACE = 5.0
"""How long a cancelled call may take to stop (bash needs a moment to kill its tree)."""


def build_server(
    tools: Sequence[AgentTool],
    gate: Gate,
    *,
    name: str = "tether",
    heartbeat_s: float = HEARTBEAT_S,
) -> Server[Any]:
    """A low-level MCP server publishing ``tools`` (in their model-facing, governed form); a
    call that asked for progress hears from it at least every ``heartbeat_s`` seconds."""
    import mcp_types as types
    from mcp.server import Server

    from tether import __version__

    served = list(tools)
    asking = _asking_gate(gate)
    listing = types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=without_confirm_request(parameters_schema(tool.parameters)),
                annotations=types.ToolAnnotations(**annotations_for(tool)),
            )
            for tool in served
        ]
    )
    call_ids = itertools.count(1)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        tool_call = ToolCall(f"mcp-{next(call_ids)}", params.name, dict(params.arguments or {}))
        deciding = asking if asking is not None and client_can_elicit(ctx) else gate
        call = ElicitingCall(ctx, params)
        token = CURRENT_CALL.set(call)
        try:
            result = await _run_cancellable(ctx, tool_call, served, deciding, heartbeat_s)
        finally:
            CURRENT_CALL.reset(token)
        if call.input_required is not None:  # the client retries the call with the answer
            return call.input_required
        return to_call_result(result)

    return Server(
        name,
        version=__version__,
        instructions="tether's governed coding tools; every call passes tether's gate.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _asking_gate(gate: Gate) -> Gate | None:
    """``gate`` asking through elicitation, for clients that can answer; ``None`` when ``gate``
    has an approver of its own. It shares the gate's policies, records and session memory."""
    if gate.approver is not None:
        return None
    asking = copy.copy(gate)
    asking.approver = ElicitationApprover()
    return asking


async def _run_cancellable(
    ctx: ServerRequestContext[Any],
    tool_call: ToolCall,
    tools: list[AgentTool],
    gate: Gate,
    heartbeat_s: float,
) -> ToolResultMessage:
    """The call in a task of its own, so that a cancelled request aborts it (bash then kills
    its tree) and waits, shielded, for it to stop before the cancellation goes on."""
    import anyio

    controller = AbortController()
    reporter = _ProgressReporter(ctx, heartbeat_s)
    task = asyncio.ensure_future(
        run_tool_call(
            tool_call,
            tools,
            before_tool_call=gate.before_tool_call,
            after_tool_call=gate.after_tool_call,
            signal=controller.signal,
            on_event=reporter.observe,
        )
    )
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        controller.abort("the MCP request was cancelled")
        with anyio.CancelScope(shield=True):
            await asyncio.wait([task], timeout=_CANCEL_GRACE)
        raise
    finally:
        reporter.close()


class _ProgressReporter:
    """The call's MCP progress notifications, when the request carried a progress token: each
    ``tool_execution_update`` (one at a time, the newest winning), and a heartbeat after every
    ``heartbeat_s`` without one, so that a host whose request timeout restarts on progress does
    not cut off a call that is silent for a while (a bash command printing nothing for a minute).
    Progress rises by one with each notification. Without a token the client asked for no
    progress, and MCP gives a server no other way to say it is still working."""

    def __init__(self, ctx: ServerRequestContext[Any], heartbeat_s: float) -> None:
        self.ctx = ctx
        self.heartbeat_s = heartbeat_s
        self.sent = 0
        self.pending: str | None = None
        self.woken = asyncio.Event()
        self.started = asyncio.get_running_loop().time()
        wanted = _progress_token(ctx) is not None
        self.sender = asyncio.ensure_future(self._send()) if wanted else None

    def observe(self, event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionUpdate):
            self.pending = _last_line(event.partial_result.content)
            self.woken.set()

    async def _send(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self.woken.wait(), self.heartbeat_s)
            except TimeoutError:
                elapsed = asyncio.get_running_loop().time() - self.started
                message = f"still running after {elapsed:.0f} s"
            else:
                self.woken.clear()
                message, self.pending = self.pending or "", None
            self.sent += 1
            try:
                await self.ctx.session.report_progress(float(self.sent), None, message)
            except Exception:
                return

    def close(self) -> None:
        if self.sender is not None and not self.sender.done():
            self.sender.cancel()


def _progress_token(ctx: ServerRequestContext[Any]) -> str | int | None:
    """The request's ``_meta.progressToken`` as sent, if it is one MCP allows."""
    meta = (ctx.params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


def _last_line(content: Sequence[TextContent | ImageContent]) -> str:
    text = "".join(block.text for block in content if isinstance(block, TextContent))
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def to_call_result(result: ToolResultMessage) -> mcp_types.CallToolResult:
    """A tether tool result as an MCP one: text and images as content blocks, errors flagged."""
    import mcp_types as types

    content: list[types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, TextContent):
            content.append(types.TextContent(text=block.text))
        elif isinstance(block, ImageContent):
            content.append(types.ImageContent(data=block.data, mime_type=block.mime_type))
    return types.CallToolResult(content=content, is_error=result.is_error)
