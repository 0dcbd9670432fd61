"""The caller's side of a hand: ``tether hand --stdio`` started on the remote host over an SSH
exec channel, its catalog turned into tools for this side's agent.

The model is shown only the tools the hand offers. Each call goes to the hand under a fresh run
id and is governed twice: by this side's gate (as any tool) and by the hand's own, which is
final. A call the hand wants approved fails with the digest it asked for in the message (this
side does not answer approvals on the hand's behalf). When the connection drops, every call in
flight fails as lost, naming the host; nothing is ever sent again by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tether.agent import AgentTool, AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, TextContent

from ._operations import SSHOperations

if TYPE_CHECKING:
    import asyncssh

__all__ = ["HandClient"]

_HELLO_SECONDS = 30.0


class HandClient:
    """A running hand on the host of ``operations``; :meth:`tools` are its offered tools."""

    def __init__(
        self, process: asyncssh.SSHClientProcess[str], address: str, hello: dict[str, Any]
    ) -> None:
        self._process = process
        self.address = address
        self.catalog: list[dict[str, Any]] = list(hello.get("tools") or [])
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._updates: dict[str, UpdateCallback] = {}
        self._notes: dict[str, list[str]] = {}
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
    ) -> HandClient:
        """Start ``TETHER hand --stdio`` in ``cwd`` on the host and read its catalog."""
        argv = [tether, "hand", "--stdio", "--cwd", cwd, "--gate", gate]
        if tools is not None:
            argv += ["--tools", ",".join(tools)]
        connection = await operations.connection.connection()
        with operations.connection.translating_errors():
            process = await connection.create_process(shlex.join(argv))
        line = await asyncio.wait_for(process.stdout.readline(), _HELLO_SECONDS)
        hello = _parse(line)
        if hello is None or hello.get("type") != "hello":
            process.close()
            raise ToolError(f"no hand answered on {operations.address}: {line.strip()!r}")
        return cls(process, operations.address, hello)

    def tools(self) -> list[AgentTool]:
        return [self._tool(entry) for entry in self.catalog]

    def _tool(self, entry: dict[str, Any]) -> AgentTool:
        name = str(entry["name"])

        async def execute(
            tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
        ) -> AgentToolResult:
            return await self._call(name, params, signal, on_update)

        return AgentTool(
            name=name,
            label=f"{name} on {self.address}",
            description=str(entry.get("description", "")),
            parameters=dict(entry.get("parameters") or {"type": "object"}),
            execute=execute,
        )

    async def _call(
        self, name: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult:
        if self._reader.done():
            raise ToolError(self._lost_message())
        run_id = uuid.uuid4().hex
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[run_id] = future
        if on_update is not None:
            self._updates[run_id] = on_update
        message = {"type": "call", "run_id": run_id, "tool": name, "arguments": dict(params)}
        remove = signal.add_listener(
            lambda _reason: self._send({"type": "cancel", "run_id": run_id})
        )
        try:
            self._send(message)
            result = await future
        finally:
            remove()
            self._waiting.pop(run_id, None)
            self._updates.pop(run_id, None)
        notes = self._notes.pop(run_id, [])
        text = "\n".join([str(result.get("text", "")), *notes]).strip()
        if result.get("is_error"):
            raise ToolError(text)
        return AgentToolResult([TextContent(text)])

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
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ToolError(self._lost_message()))

    def _dispatch(self, message: dict[str, Any]) -> None:
        run_id = str(message.get("run_id"))
        kind = message.get("type")
        if kind == "result" and run_id in self._waiting:
            if not self._waiting[run_id].done():
                self._waiting[run_id].set_result(message)
        elif kind == "progress" and run_id in self._updates:
            self._updates[run_id](AgentToolResult([TextContent(str(message.get("text", "")))]))
        elif kind == "approval_required":
            self._notes.setdefault(run_id, []).append(
                f"The hand on {self.address} asks for approval (digest {message.get('digest')}, "
                f"until {message.get('expires_at')}); it was not given."
            )
        elif kind == "approval_rejected":
            self._notes.setdefault(run_id, []).append(
                f"The hand on {self.address} refused the approval: {message.get('reason')}."
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


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
