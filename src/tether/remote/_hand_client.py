"""The caller's side of a hand: ``tether hand --stdio`` started on the remote host over an SSH
exec channel, its catalog turned into tools for this side's agent.

The model is shown only the tools the hand offers. Each call goes to the hand under a fresh run
id and is governed twice: by this side's gate, with the governance the hand announced for each
built-in tool (so ``read`` inside the hand's workspace is allowed here as it would be locally,
paths resolved on the hand's host), and by the hand's own gate, which is final.

When the hand's gate wants a person, its request (tool, arguments as the hand shows them,
reason, digest) goes to this side's approver; an approval is sent back bound to that digest, once,
before the hand's expiry, and the hand runs the call under a new run id. ``allow_session`` here
is never a standing permission there: the next such call asks again. Without an approver the call
fails with a reason saying nobody here could answer. When the connection drops, every call in
flight fails as lost, naming the host; nothing is ever sent again by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import posixpath
import shlex
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tether.agent import CAPS_OWN_RESULT, AgentTool, AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, ImageContent, TextContent, from_json
from tether.gate import ApprovalRequest, Approver, Governance, Policies, govern
from tether.tools import BUILTIN_TOOLS, PROVED_READ_ONLY, builtin_governance

from ._operations import SSHOperations

if TYPE_CHECKING:
    import asyncssh

__all__ = ["HandClient"]

_HELLO_SECONDS = 30.0


@dataclass
class _Exchange:
    """What the hand sent about one run id."""

    result: asyncio.Future[dict[str, Any]]
    approval: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


class HandClient:
    """A running hand on the host of ``operations``; :meth:`tools` are its offered tools.

    ``approver`` answers the hand's approval requests (``None``: nobody can, and the call fails
    with ``no_approver_hint`` in its reason). ``name`` is the configured hand's name, if any.
    """

    def __init__(
        self,
        process: asyncssh.SSHClientProcess[str],
        address: str,
        hello: dict[str, Any],
        *,
        approver: Approver | None = None,
        no_approver_hint: str | None = None,
        name: str | None = None,
    ) -> None:
        self._process = process
        self.address = address
        self.name = name
        self.catalog: list[dict[str, Any]] = [
            entry for entry in hello.get("tools") or [] if isinstance(entry, dict)
        ]
        workspace = hello.get("workspace")
        self.workspace = workspace if isinstance(workspace, str) else None
        """The hand's workspace on its host, as it announced it."""
        self.mode = str(hello.get("mode", "unknown"))
        """The hand's own gate mode."""
        self.host = str(hello.get("host", ""))
        self.approver = approver
        self.no_approver_hint = no_approver_hint
        self._exchanges: dict[str, _Exchange] = {}
        self._updates: dict[str, UpdateCallback] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(
        cls,
        operations: SSHOperations,
        cwd: str,
        *,
        tools: Sequence[str] | None = None,
        gate: str = "normal",
        tether: str = "tether",
        approver: Approver | None = None,
        no_approver_hint: str | None = None,
        name: str | None = None,
    ) -> HandClient:
        """Start ``TETHER hand --stdio`` in ``cwd`` on the host and read its catalog."""
        argv = [tether, "hand", "--stdio", "--gate", gate]
        if tools is not None:
            argv += ["--tools", ",".join(tools)]
        return await cls.launch(
            operations,
            shlex.join(argv),
            cwd=cwd,
            approver=approver,
            no_approver_hint=no_approver_hint,
            name=name,
        )

    @classmethod
    async def launch(
        cls,
        operations: SSHOperations,
        command: str,
        *,
        cwd: str | None = None,
        approver: Approver | None = None,
        no_approver_hint: str | None = None,
        name: str | None = None,
    ) -> HandClient:
        """Run the shell ``command`` (a hand, such as ``tether hand --stdio``) on the host, with
        ``--cwd CWD`` added when given, and read its catalog. :class:`ToolError` when what
        answered is no hand; :class:`~tether.remote.RemoteConnectionError` when the host is
        not reachable."""
        if cwd is not None:
            command = f"{command} --cwd {shlex.quote(cwd)}"
        connection = await operations.connection.connection()
        with operations.connection.translating_errors():
            process = await connection.create_process(command)
        try:
            line = await asyncio.wait_for(process.stdout.readline(), _HELLO_SECONDS)
        except TimeoutError:
            line = ""
        hello = _parse(line)
        if hello is None or hello.get("type") != "hello":
            process.close()
            errors = ""
            with contextlib.suppress(Exception):
                errors = (await asyncio.wait_for(process.stderr.read(), 2)).strip()
            said = line.strip() or errors or "nothing"
            raise ToolError(f"no hand answered {command!r} on {operations.address}: {said[:300]}")
        return cls(
            process,
            operations.address,
            hello,
            approver=approver,
            no_approver_hint=no_approver_hint,
            name=name,
        )

    @property
    def where(self) -> str:
        """The hand as a person names it: ``NAME (user@host:port)`` or the address."""
        return f"{self.name} ({self.address})" if self.name else self.address

    @property
    def connected(self) -> bool:
        return not self._reader.done()

    def tools(self) -> list[AgentTool]:
        return [self._tool(entry) for entry in self.catalog]

    def _tool(self, entry: dict[str, Any]) -> AgentTool:
        name = str(entry["name"])

        async def execute(
            tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
        ) -> AgentToolResult:
            # this side's jail word is not the hand's: its own gate decides how it runs there
            sent = {k: v for k, v in dict(params).items() if k != PROVED_READ_ONLY}
            return await self.call(name, sent, signal, on_update)

        parameters: dict[str, Any] = dict(entry.get("parameters") or {"type": "object"})
        metadata: dict[str, Any] = {"hand": self.where}
        announced = entry.get("governance")
        governance = self._governance(name, announced)
        if governance is not None and isinstance(announced, dict):
            parameters = dict(announced["review_schema"])
            metadata.update({"governance": governance, CAPS_OWN_RESULT: True})
        return govern(
            AgentTool(
                name=name,
                label=f"{name} on {self.name or self.address}",
                description=str(entry.get("description", "")),
                parameters=parameters,
                execute=execute,
                metadata=metadata,
            )
        )

    def _governance(self, name: str, announced: Any) -> Governance | None:
        """This side's governance of a tool the hand announced as a built-in one: the same
        policy as locally, judged for the hand's workspace; session memory kept per hand."""
        if not isinstance(announced, dict) or announced.get("builtin") != name:
            return None
        if name not in BUILTIN_TOOLS or not isinstance(announced.get("review_schema"), dict):
            return None
        if self.workspace is None or not posixpath.isabs(self.workspace):
            return None
        governance = builtin_governance(
            name, self.workspace, sandboxed=announced.get("sandboxed") is True
        )
        inner = governance.action_key
        address = self.address

        def action_key(args: Mapping[str, Any], policies: Policies) -> str:
            what = inner(args, policies) if inner is not None else json.dumps(args, sort_keys=True)
            return f"{address}\x00{what}"

        return replace(governance, action_key=action_key)

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> AgentToolResult:
        """Run ``name`` on the hand; an approval the hand asks for goes to :attr:`approver`."""
        exchange = await self._run_once(name, arguments, None, signal, on_update)
        notes = list(exchange.notes)
        request = exchange.approval
        if request is not None:
            approval, why = await self._answer(name, request)
            notes.append(why)
            if approval is not None:
                exchange = await self._run_once(name, arguments, approval, signal, on_update)
                notes = [why, *exchange.notes]
        return self._result(exchange, notes)

    async def _run_once(
        self,
        name: str,
        arguments: dict[str, Any],
        approval: str | None,
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> _Exchange:
        if self._reader.done():
            raise ToolError(self._lost_message())
        run_id = uuid.uuid4().hex
        exchange = _Exchange(asyncio.get_running_loop().create_future())
        self._exchanges[run_id] = exchange
        if on_update is not None:
            self._updates[run_id] = on_update
        message: dict[str, Any] = {
            "type": "call",
            "run_id": run_id,
            "tool": name,
            "arguments": arguments,
        }
        if approval is not None:
            message["approval"] = approval
        remove = signal.add_listener(
            lambda _reason: self._send({"type": "cancel", "run_id": run_id})
        )
        try:
            self._send(message)
            await exchange.result
        finally:
            remove()
            self._exchanges.pop(run_id, None)
            self._updates.pop(run_id, None)
        return exchange

    async def _answer(self, name: str, request: dict[str, Any]) -> tuple[str | None, str]:
        """The digest to send back (``None``: none) and what to tell the model about it."""
        digest, reason = str(request.get("digest", "")), str(request.get("reason", ""))
        # the hand's own clock may differ from this one: count its lifetime from now
        expires_in = request.get("expires_in")
        lifetime = float(expires_in) if isinstance(expires_in, int | float) else 0.0
        deadline = time.monotonic() + lifetime
        where = self.where
        if self.approver is None:
            hint = f" {self.no_approver_hint}" if self.no_approver_hint else ""
            return None, (
                f"The hand on {where} asks a person to approve this call ({reason}), but nobody "
                f"here can answer an approval.{hint}"
            )
        args = request.get("args")
        shown = ApprovalRequest(
            f"{name} on {self.name or self.address}",
            dict(args) if isinstance(args, dict) else {},
            f"the hand on {where} asks: {reason}",
            digest,
        )
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                decision = await self.approver.confirm(shown)
        except Exception:  # a timeout or a failing approver: no approval
            decision = "deny_once"
        if decision not in ("allow_once", "allow_session"):
            return None, f"A person here did not approve the hand's request ({decision})."
        if time.monotonic() > deadline:
            return None, f"The hand's approval request on {where} expired before the answer."
        return digest, f"A person here approved the call once on {where}."

    def _result(self, exchange: _Exchange, notes: list[str]) -> AgentToolResult:
        message = exchange.result.result()
        content = _content(message)
        if notes:
            content = [*content, TextContent("\n".join(notes))]
        details = message.get("details")
        ran_on = {"hand": self.name, "address": self.address}
        details = {**details, "ran_on": ran_on} if isinstance(details, dict) else {"ran_on": ran_on}
        if message.get("is_error"):
            text = "\n".join(block.text for block in content if isinstance(block, TextContent))
            raise ToolError(text.strip(), details=details)
        return AgentToolResult(content, details)

    def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a dropped connection is reported by the reader
            self._process.stdin.write(json.dumps(message) + "\n")

    async def _read(self) -> None:
        try:
            while line := await self._process.stdout.readline():
                self._dispatch(_parse(line) or {})
        except Exception:
            pass
        finally:
            for exchange in self._exchanges.values():
                if not exchange.result.done():
                    exchange.result.set_exception(ToolError(self._lost_message()))

    def _dispatch(self, message: dict[str, Any]) -> None:
        run_id = str(message.get("run_id"))
        kind = message.get("type")
        exchange = self._exchanges.get(run_id)
        if kind == "progress" and run_id in self._updates:
            self._updates[run_id](AgentToolResult([TextContent(str(message.get("text", "")))]))
        elif exchange is None:
            return
        elif kind == "result" and not exchange.result.done():
            exchange.result.set_result(message)
        elif kind == "approval_required":
            exchange.approval = message
        elif kind == "approval_rejected":
            exchange.notes.append(
                f"The hand on {self.where} refused the approval: {message.get('reason')}."
            )

    def _lost_message(self) -> str:
        return (
            f"The connection to the hand on {self.address} was lost; the call's outcome is "
            "unknown and it was not run again."
        )

    async def close(self) -> None:
        """End the hand's input (it aborts what still runs) and wait for it to exit."""
        with contextlib.suppress(Exception):
            self._process.stdin.write_eof()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._process.wait(), 10)
        self._process.close()
        with contextlib.suppress(Exception):
            await self._reader


def _content(message: dict[str, Any]) -> list[TextContent | ImageContent]:
    """The result's blocks (images kept); its text when it sent none."""
    raw = message.get("content")
    if isinstance(raw, list) and raw:
        try:
            blocks = from_json(json.dumps(raw))
        except ValueError:
            blocks = []
        kept = [b for b in blocks if isinstance(b, TextContent | ImageContent)]
        if kept:
            return kept
    return [TextContent(str(message.get("text", "")))]


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
