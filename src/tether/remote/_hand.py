"""``tether hand --stdio``: a hand with its own catalog and its own, final gate (JSON lines).

The hand runs on the host where the tools act. Whoever drives it (over an SSH exec channel)
sees only the tools it offers, and every call passes the *hand's* gate and policy, whatever the
caller's own gate allowed: the hand's deny is final.

Protocol — one JSON object per line. The hand first sends ``{"type": "hello", "protocol": 1,
"mode", "workspace", "host", "tools": [{"name", "description", "parameters", "governance"}]}``:
its gate mode, where it works, and per tool the model-facing schema and, for a built-in tool,
``governance = {"builtin": NAME, "sandboxed": bool, "review_schema"}`` (else ``null``; the
review schema declares each parameter's reviewer exposure), so that the caller can
govern it with its own policy as it would the same tool locally. It reads:

- ``{"type": "call", "run_id": ID, "tool": NAME, "arguments": {...}, "approval": DIGEST?}``: run
  one call. A run id is used once: a repeated one is rejected, never run again. ``approval`` is
  the digest of an approval this hand asked for (see below);
- ``{"type": "cancel", "run_id": ID}``: abort that call (bash kills its tree).

It sends ``{"type": "progress", "run_id", "text"}`` while a call runs and ``{"type": "result",
"run_id", "is_error", "text", "content", "details"}`` once it ended (also for a rejected call):
``content`` holds every block (images too) as :func:`tether.ai.to_json` writes them, ``details``
the tool's details when they are JSON. A call the hand's gate wants a person to approve is denied,
and the hand sends ``{"type": "approval_required", "run_id", "tool", "args", "reason", "digest",
"expires_at", "expires_in"}`` first (``args`` as its gate shows them): the digest binds the exact
arguments. Sending the same call again under a new run id with that ``approval`` before
``expires_at`` (Unix seconds; ``expires_in``: the seconds left when it was sent) runs it once; an
approval is spent by its first use, and one for other arguments (another digest) or an unknown,
spent or expired one is refused with ``{"type": "approval_rejected", "run_id", "reason"}``. When
the input ends (the connection dropped), running calls are aborted; the hand never re-runs
anything by itself."""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tether.agent import AbortController, AgentEvent, AgentTool, ToolExecutionUpdate, run_tool_call
from tether.ai import TextContent, ToolCall, decode_json_line, parameters_schema, to_json
from tether.gate import ApprovalRequest, Decision, Gate, Governance, Mode
from tether.tools import BUILTIN_TOOLS, coding_tool_catalog

__all__ = ["HAND_PROTOCOL", "serve_hand", "serve_hand_on_stdio"]

HAND_PROTOCOL = 1
APPROVAL_SECONDS = 300.0
LINE_LIMIT = 64 * 2**20
"""The longest request line the hand reads (a ``write`` of the largest content a model may
send); a longer one is answered with an error and skipped, and the hand goes on."""
"""How long an approval the hand asked for stays usable."""

Send = Callable[[dict[str, Any]], None]


@dataclass
class _PendingApproval:
    tool: str
    expires_at: float


@dataclass
class _HandApprover:
    """The hand's approver: a person is never asked here. A call that needs one is denied and
    an approval bound to its digest is offered; the call carrying that digest is allowed once.
    """

    send: Send
    clock: Callable[[], float]
    pending: dict[str, _PendingApproval] = field(default_factory=dict)
    presented: dict[str, str | None] = field(default_factory=dict)
    """Per run id, the approval digest its call carried."""

    async def confirm(self, request: ApprovalRequest) -> Decision:
        run_id = _RUN_ID.get()
        offered = self.presented.get(run_id)
        if offered is not None:
            problem = self._redeem(offered, request)
            if problem is None:
                return "allow_once"
            self.send({"type": "approval_rejected", "run_id": run_id, "reason": problem})
            return "deny_once"
        expires_at = self.clock() + APPROVAL_SECONDS
        self.pending[request.digest] = _PendingApproval(request.tool_name, expires_at)
        self.send(
            {
                "type": "approval_required",
                "run_id": run_id,
                "tool": request.tool_name,
                "args": dict(request.args),
                "reason": request.reason,
                "digest": request.digest,
                "expires_at": expires_at,
                "expires_in": APPROVAL_SECONDS,
            }
        )
        return "deny_once"

    def _redeem(self, offered: str, request: ApprovalRequest) -> str | None:
        """``None`` when ``offered`` approves exactly this request (it is then spent)."""
        if offered != request.digest:
            return "the approval is for other arguments (digest mismatch)"
        approval = self.pending.pop(offered, None)
        if approval is None:
            return "no such approval: unknown or already used"
        if approval.tool != request.tool_name or self.clock() > approval.expires_at:
            return "the approval has expired"
        return None


_RUN_ID: contextvars.ContextVar[str] = contextvars.ContextVar("hand_run_id")
"""The run id of the call a gate callback belongs to (each call runs in a task of its own)."""


def catalog(tools: Sequence[AgentTool]) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "description": t.description,
            "parameters": parameters_schema(t.parameters),
            "governance": _announced_governance(t),
        }
        for t in tools
    ]


def _announced_governance(tool: AgentTool) -> dict[str, Any] | None:
    governance = tool.metadata.get("governance")
    if tool.name not in BUILTIN_TOOLS or not isinstance(governance, Governance):
        return None
    return {
        "builtin": tool.name,
        "sandboxed": governance.sandboxed,
        "review_schema": tool.metadata.get("review_schema"),
    }


async def serve_hand(
    lines: AsyncIterator[str],
    send: Send,
    *,
    tools: Sequence[AgentTool],
    mode: Mode,
    workspace: str,
    clock: Callable[[], float] = time.time,
) -> None:
    """Serve one caller: ``lines`` in, ``send`` out, until the input ends."""
    approver = _HandApprover(send, clock)
    calls = _HandCalls(send, tools, Gate(mode, approver, workspace=workspace), approver)
    send(
        {
            "type": "hello",
            "protocol": HAND_PROTOCOL,
            "mode": mode,
            "workspace": workspace,
            "host": socket.gethostname(),
            "tools": catalog(tools),
        }
    )
    try:
        async for line in lines:
            calls.receive(_parse(line))
    finally:
        await calls.close()


class _HandCalls:
    """One caller's calls: each runs in a task of its own through the hand's gate and can be
    cancelled by its run id; a run id is used once."""

    def __init__(
        self, send: Send, tools: Sequence[AgentTool], gate: Gate, approver: _HandApprover
    ) -> None:
        self.send = send
        self.tools = tools
        self.gate = gate
        self.approver = approver
        self.used: set[str] = set()
        self.running: dict[str, AbortController] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def receive(self, message: dict[str, Any] | None) -> None:
        """Act on one request line (``None``: one that was not a JSON object)."""
        kind = message.get("type") if message is not None else None
        run_id = message.get("run_id") if message is not None else None
        if message is None or not isinstance(run_id, str) or kind not in ("call", "cancel"):
            self.send({"type": "error", "error": "expected a call or cancel object with a run_id"})
        elif kind == "cancel":
            controller = self.running.get(run_id)
            if controller is not None:
                controller.abort("cancelled by the caller")
        elif run_id in self.used:
            self.send(
                _refusal(run_id, f"run id {run_id!r} was already used; a call never runs twice")
            )
        else:
            self._start(run_id, message)

    def _start(self, run_id: str, message: dict[str, Any]) -> None:
        self.used.add(run_id)
        arguments = message.get("arguments")
        approval = message.get("approval")
        self.approver.presented[run_id] = approval if isinstance(approval, str) else None
        controller = AbortController()
        self.running[run_id] = controller
        tool_call = ToolCall(
            run_id,
            str(message.get("tool")),
            arguments if isinstance(arguments, dict) else {},
        )
        task = asyncio.ensure_future(self._run(run_id, tool_call, controller))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, run_id: str, tool_call: ToolCall, controller: AbortController) -> None:
        _RUN_ID.set(run_id)

        def observe(event: AgentEvent) -> None:
            if isinstance(event, ToolExecutionUpdate):
                self.send(
                    {"type": "progress", "run_id": run_id, "text": _text(event.partial_result)}
                )

        try:
            result = await run_tool_call(
                tool_call,
                self.tools,
                before_tool_call=self.gate.before_tool_call,
                after_tool_call=self.gate.after_tool_call,
                signal=controller.signal,
                on_event=observe,
            )
            self.send(
                {
                    "type": "result",
                    "run_id": run_id,
                    "is_error": result.is_error,
                    "text": _text(result),
                    "content": json.loads(to_json(list(result.content))),
                    "details": _json_details(result.details),
                }
            )
        finally:
            self.running.pop(run_id, None)
            self.approver.presented.pop(run_id, None)

    async def close(self) -> None:
        """The input ended: abort the calls still running and wait for them to end."""
        for controller in list(self.running.values()):
            controller.abort("the caller's connection ended")
        if self.tasks:
            await asyncio.wait(set(self.tasks))


def _refusal(run_id: str, text: str) -> dict[str, Any]:
    return {"type": "result", "run_id": run_id, "is_error": True, "text": text}


async def split_lines(
    reader: asyncio.StreamReader, limit: int, on_overlong: Callable[[], None]
) -> AsyncIterator[bytes]:
    """The lines of ``reader`` without their newlines; a line longer than ``limit`` is dropped
    (``on_overlong`` is told once) and reading goes on with the next one."""
    pending = bytearray()
    dropping = False  # inside a line that was too long
    while chunk := await reader.read(1 << 20):
        searched = len(pending)
        pending += chunk
        while (end := pending.find(b"\n", searched)) != -1:
            line = bytes(pending[:end])
            del pending[: end + 1]
            searched = 0
            if dropping:
                dropping = False
            elif len(line) > limit:
                on_overlong()
            else:
                yield line
        if len(pending) > limit:
            if not dropping:
                on_overlong()
            dropping = True
            pending.clear()
    if pending and not dropping:
        yield bytes(pending)


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value, _ = decode_json_line(line)  # total: too deep is a ValueError, not a crash
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _json_details(details: Any) -> Any:
    """``details`` as JSON, or ``None`` when they are not JSON-able."""
    try:
        return json.loads(to_json(details))
    except (ValueError, TypeError):
        return None


def _text(result: Any) -> str:
    content = getattr(result, "content", None) or []
    return "".join(block.text for block in content if isinstance(block, TextContent))


async def serve_hand_on_stdio(
    cwd: str, tool_names: Sequence[str], mode: Mode, *, sandbox: bool | None = None
) -> int:
    """``tether hand --stdio``: the named tools for ``cwd`` served on stdin/stdout.

    The SSH client variables are dropped first: with them, bash reads ``~/.bashrc`` for every
    ``bash -c`` (as it does for a command run over SSH), so the bash tool here would behave
    unlike the same tool run locally (and print what the rc file prints)."""
    for variable in ("SSH_CLIENT", "SSH2_CLIENT"):
        os.environ.pop(variable, None)
    tools = coding_tool_catalog(cwd, names=tool_names, sandbox=sandbox).snapshot().tools
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def send(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def refuse_overlong() -> None:
        send({"type": "error", "error": f"a line over {LINE_LIMIT} bytes is refused"})

    async def lines() -> AsyncIterator[str]:
        async for line in split_lines(reader, LINE_LIMIT, refuse_overlong):
            yield line.decode("utf-8", errors="replace")

    await serve_hand(lines(), send, tools=tools, mode=mode, workspace=cwd)
    return 0
