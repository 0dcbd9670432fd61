"""The hands of one session: configured ones connected on first use, one of them current.

:class:`Hands` holds a :class:`HandClient` per hand once it is used, and remembers why a hand
could not be reached. While a hand is current, :meth:`Hands.tools_for_request` shows the model
that hand's tools in place of this machine's file and shell tools (a tool the hand lacks is not
offered), and the gate judges paths for the hand's workspace on the hand's host. A hand's tool
is bound to the catalog the model saw: called after another hand became current (or after the
hand was connected again), it fails with a clear error instead of running somewhere else.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any, Literal

from tether.agent import AgentTool, AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal
from tether.gate import Approver, Gate, Governance, Verdict

from ._connection import RemoteConnectionError
from ._hand_client import HandClient
from ._hands_config import HandConfig
from ._operations import SSHOperations

__all__ = ["HandStatus", "Hands", "probe_hand"]

HandStatus = Literal["connected", "idle", "unreachable"]


class Hands:
    """The session's hands by name. ``replaces``: the names of the local tools a current hand's
    tools stand in for. ``on_select(name)`` is told each change of the current hand (the run
    records it in the session). ``gate``, when given, is retargeted at the current hand."""

    def __init__(
        self,
        configs: Mapping[str, HandConfig],
        *,
        replaces: Collection[str] = (),
        gate: Gate | None = None,
        approver: Approver | None = None,
        no_approver_hint: str | None = None,
        on_select: Callable[[str], None] | None = None,
    ) -> None:
        self.configs = dict(configs)
        self.replaces = frozenset(replaces)
        self.gate = gate
        self.approver = approver
        self.no_approver_hint = no_approver_hint
        self.on_select = on_select
        self.current: str | None = None
        self._clients: dict[str, HandClient] = {}
        self._operations: dict[str, SSHOperations] = {}
        self._unreachable: dict[str, str] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def add(self, config: HandConfig, client: HandClient, operations: SSHOperations) -> None:
        """A hand connected already (``--remote`` through a hand)."""
        self.configs[config.name] = config
        self._clients[config.name] = client
        self._operations[config.name] = operations

    def status(self, name: str) -> HandStatus:
        client = self._clients.get(name)
        if client is not None and client.connected:
            return "connected"
        return "unreachable" if name in self._unreachable else "idle"

    def problem(self, name: str) -> str | None:
        """Why the hand could not be reached the last time it was tried."""
        return self._unreachable.get(name)

    def connected_client(self, name: str) -> HandClient | None:
        client = self._clients.get(name)
        return client if client is not None and client.connected else None

    async def client(self, name: str) -> HandClient:
        """The hand's client, connecting it now if needed; :class:`ToolError` naming the hand
        and why when it is not configured or cannot be reached."""
        config = self.configs.get(name)
        if config is None:
            known = ", ".join(self.configs) or "none is configured"
            raise ToolError(f"No hand named {name!r} (hands: {known}).")
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            client = self.connected_client(name)
            if client is not None:
                return client
            old = self._operations.pop(name, None)
            if old is not None:
                old.close_now()
            operations = config.operations()
            try:
                client = await HandClient.launch(
                    operations,
                    config.command,
                    cwd=config.cwd,
                    approver=self.approver,
                    no_approver_hint=self.no_approver_hint,
                    name=name,
                )
            except (RemoteConnectionError, ToolError, OSError) as exc:
                operations.close_now()
                self._unreachable[name] = str(exc)
                raise ToolError(
                    f"The hand {name!r} ({config.address}) is unreachable: {exc}"
                ) from None
            self._unreachable.pop(name, None)
            self._clients[name], self._operations[name] = client, operations
            if name == self.current:
                self._retarget(client, operations)
            return client

    async def select(self, name: str) -> HandClient:
        """Make ``name`` current (connecting it); the gate judges for its workspace from now."""
        client = await self.client(name)
        changed = name != self.current
        self.current = name
        self._retarget(client, self._operations[name])
        if changed and self.on_select is not None:
            self.on_select(name)
        return client

    def _retarget(self, client: HandClient, operations: SSHOperations) -> None:
        if self.gate is not None and client.workspace is not None:
            self.gate.retarget(client.workspace, operations)

    async def tools_for_request(self, active: list[AgentTool]) -> list[AgentTool]:
        """The tools to show for the next request: with a current hand, its tools in place of
        the local ones it replaces; without one (or while it is unreachable), ``active``."""
        if self.current is None:
            return active
        name = self.current
        try:
            client = await self.client(name)
        except ToolError:
            return [tool for tool in active if tool.name not in self.replaces]
        offered = [self._bound(name, client, tool) for tool in client.tools()]
        names = {tool.name for tool in offered}
        kept = [t for t in active if t.name not in self.replaces and t.name not in names]
        return [*kept, *offered]

    def _bound(self, name: str, client: HandClient, tool: AgentTool) -> AgentTool:
        """``tool`` refusing to run once its hand is no longer current (or was reconnected):
        its gate check denies such a call, and so does its execution (for ungoverned tools)."""
        inner = tool.execute

        def stale() -> bool:
            return self.current != name or self._clients.get(name) is not client

        async def execute(
            tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
        ) -> AgentToolResult | str:
            if stale():
                raise ToolError(self._stale(tool.name, name))
            return await inner(tool_call_id, params, signal, on_update)

        metadata = dict(tool.metadata)
        governance = metadata.get("governance")
        if isinstance(governance, Governance):
            check = governance.check

            def bound_check(args: Mapping[str, Any]) -> Verdict | None:
                if stale():
                    return Verdict.deny(self._stale(tool.name, name))
                return check(args) if check is not None else None

            metadata["governance"] = replace(governance, check=bound_check)
        return replace(tool, execute=execute, metadata=metadata)

    def _stale(self, tool: str, name: str) -> str:
        current = self.current
        client = self.connected_client(current) if current is not None else None
        if current == name:
            now = "it was connected again since, with a new catalog"
        else:
            now = f"the current hand is now {current!r}"
        offers = client is not None and any(e.get("name") == tool for e in client.catalog)
        then = (
            f"which offers {tool!r}: call it again" if offers else f"which does not offer {tool!r}"
        )
        return (
            f'"{tool}" was offered from the catalog of hand {name!r} that you saw, but {now}, '
            f"{then}. The next tool list is the current hand's. Nothing was run."
        )

    async def close(self) -> None:
        """End every hand's input, wait for it to exit, and close the connections."""
        for client in list(self._clients.values()):
            await client.close()
        for operations in list(self._operations.values()):
            with contextlib.suppress(Exception):
                await operations.close()
        self._clients.clear()
        self._operations.clear()

    def close_now(self) -> None:
        """Drop every connection (the hands see their input end and abort what runs)."""
        for operations in self._operations.values():
            with contextlib.suppress(Exception):
                operations.close_now()
        self._clients.clear()
        self._operations.clear()


def probe_hand(config: HandConfig) -> str | None:
    """Whether a hand answers for ``config``: ``None`` when one does, else why not. Runs on a
    connection of its own, in a thread with its own event loop (the caller may be inside one)."""

    async def probe() -> str | None:
        operations = config.operations()
        try:
            client = await HandClient.launch(operations, config.command, cwd=config.cwd)
        except (RemoteConnectionError, ToolError, OSError) as exc:
            return str(exc)
        finally:
            with contextlib.suppress(Exception):
                await operations.close()
        await client.close()
        return None

    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, probe()).result()
