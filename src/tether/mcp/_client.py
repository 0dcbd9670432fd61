"""The configured MCP servers of one session, as governed tools named ``mcp__SERVER__TOOL``.

The connections run on an event loop of their own in a background thread, so a host can connect
from synchronous code and the agent's loop never enters the SDK (see :mod:`._connection`). Each
foreign tool is governed: every call needs a person (``default_confirm``) unless the server is
configured ``trust = "read_only"`` *and* the tool declares ``readOnlyHint`` — an annotation can
only tighten what the configuration allows, never loosen it. Arguments are validated against the
tool's input schema by the pipeline before the call; results are capped and marked untrusted.

Definitions are pinned (:mod:`._pins`): a changed or new tool is withheld, and the person is told
what changed and how to accept it. A server that dies mid-call gives that call an error result;
the next call restarts it, once — if that fails, the server stays down for the session. One that
does not start within its ``startup_timeout`` is reported with the reason and left out; a call
it does not answer within its ``request_timeout`` is an error result (:mod:`._connection`).
"""

from __future__ import annotations

import asyncio
import atexit
import re
import sys
import threading
from collections.abc import Callable, Collection, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tether.agent import CAPS_OWN_RESULT, AgentTool, AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, TextContent
from tether.gate import Governance, Review, UntrustedBoundary, govern, sanitize_for_display

from ._config import McpConfigError, McpServerConfig, config_path, load_server_configs
from ._connection import ServerConnection, ServerGone
from ._pins import PinCheck, PinStore, definition_digest
from ._results import to_agent_result

if TYPE_CHECKING:
    import mcp_types

__all__ = [
    "McpClients",
    "ServerState",
    "connect_configured_servers",
    "tool_definition",
    "tool_name_for",
]

T = TypeVar("T")

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def tool_name_for(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


def tool_definition(tool: mcp_types.Tool) -> dict[str, Any]:
    """The pinned parts of a tool as the server reports it (JSON, ``None`` where absent)."""
    annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else None
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": annotations,
    }


@dataclass(slots=True)
class ServerState:
    """What the session knows about one server."""

    config: McpServerConfig
    connection: ServerConnection
    state: Literal["connected", "down", "failed"] = "down"
    error: str | None = None
    listed: dict[str, mcp_types.Tool] = field(default_factory=dict)
    """The server's tools as it last reported them."""
    accepted: dict[str, str] = field(default_factory=dict)
    """Tool name -> the digest of the definition accepted for this session."""
    withheld: dict[str, PinCheck] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    """Tools the server lists that tether does not offer (shown names) -> why."""
    restart_failed: bool = False


class McpClients:
    """Connect with :meth:`connect`, take :meth:`tools`, :meth:`close` at the end."""

    def __init__(
        self,
        configs: Sequence[McpServerConfig],
        *,
        pins: PinStore | None = None,
        notify: Callable[[str], None] | None = None,
        boundary: UntrustedBoundary | None = None,
        log_dir: Path | None = None,
    ) -> None:
        """``log_dir`` receives each stdio server's stderr as ``NAME.log`` (default
        ``<data dir>/mcp-logs``), so a server's logging never lands in tether's terminal."""
        self.pins = pins or PinStore()
        self.notify = notify or _to_stderr
        self.boundary = boundary or UntrustedBoundary()
        self.servers = {
            config.name: ServerState(
                config,
                ServerConnection(
                    config,
                    on_tools_changed=partial(self._tools_changed, config.name),
                    errlog=(log_dir or _default_log_dir()) / f"{config.name}.log",
                ),
            )
            for config in configs
        }
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tether-mcp-clients", daemon=True
        )
        self._thread.start()
        self._closed = False
        atexit.register(self.close)  # a host that never closes still stops every server

    def connect(self) -> None:
        """Connect every server (concurrently); a server that fails is reported, not raised."""
        self._run(self._connect_all())

    def tools(self, only: Collection[str] | None = None) -> list[AgentTool]:
        """The accepted tools of every connected server, governed; with ``only``, just those
        whose names (``mcp__SERVER__TOOL``) it holds."""
        tools = []
        for state in self.servers.values():
            for name in state.accepted:
                if only is None or tool_name_for(state.config.name, name) in only:
                    tools.append(self._agent_tool(state, state.listed[name]))
        return tools

    def known_tool_names(self) -> list[str]:
        """Every tool name the servers list, offered or not (withheld, left out), sorted."""
        names: list[str] = []
        for server, state in self.servers.items():
            names.extend(tool_name_for(server, tool) for tool in state.listed)
            names.extend(tool_name_for(server, tool) for tool in state.left_out)
        return sorted(names)

    def unknown_tool_names(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` that are no tool of a configured server. A tool of a server that
        did not connect is not unknown: that server was reported, and its tools left out."""
        known = set(self.known_tool_names())
        down = {f"mcp__{s}__" for s, state in self.servers.items() if state.state != "connected"}
        return [
            name
            for name in names
            if name not in known and not any(name.startswith(prefix) for prefix in down)
        ]

    def close(self) -> None:
        """Stop every server, each with its whole process tree; returns when they are gone."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)

        async def close_all() -> None:
            await asyncio.gather(*(s.connection.close() for s in self.servers.values()))

        try:
            self._run(close_all())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def _connect_all(self) -> None:
        await asyncio.gather(*(self._connect(state) for state in self.servers.values()))

    async def _connect(self, state: ServerState) -> None:
        try:
            tools = await state.connection.open()
        except Exception as exc:
            reason = str(exc) or f'MCP server "{state.config.name}": {type(exc).__name__}'
            state.state, state.error = "down", reason
            self.notify(f"tether: {reason}; its tools are left out of this run")
            return
        state.state, state.error = "connected", None
        self._take_listing(state, tools, first_connect=True)

    def _take_listing(
        self, state: ServerState, tools: list[mcp_types.Tool], *, first_connect: bool
    ) -> None:
        name = state.config.name
        usable = {}
        left_out = {}
        for tool in tools:
            reason = _why_left_out(name, tool)
            if reason is None:
                usable[tool.name] = tool
                continue
            shown = sanitize_for_display(tool.name)[:80]
            left_out[shown] = reason
            if state.left_out.get(shown) != reason:
                self.notify(f'tether: MCP server "{name}": tool {shown!r} left out ({reason})')
        state.listed, state.left_out = usable, left_out
        definitions = {key: tool_definition(tool) for key, tool in usable.items()}
        if first_connect and not self.pins.knows(name):
            self.pins.pin(name, list(definitions.values()))
            self.notify(
                f'tether: MCP server "{name}": pinned {len(definitions)} tool(s) on first use'
            )
        for key, definition in definitions.items():
            digest = definition_digest(definition)
            if state.accepted.get(key) == digest:
                state.withheld.pop(key, None)
                continue
            check = self.pins.check(name, definition)
            if check.status == "pinned":
                state.accepted[key] = digest
                state.withheld.pop(key, None)
                continue
            state.accepted.pop(key, None)
            if state.withheld.get(key) != check:
                self.notify(f"tether: {_withheld_message(name, key, check)}")
            state.withheld[key] = check
        for key in list(state.accepted):
            if key not in usable:
                del state.accepted[key]

    def _tools_changed(self, name: str, tools: list[mcp_types.Tool]) -> None:
        self._take_listing(self.servers[name], tools, first_connect=False)

    def _agent_tool(self, state: ServerState, tool: mcp_types.Tool) -> AgentTool:
        config = state.config
        schema = dict(tool.input_schema)
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        schema["properties"] = {
            key: {**spec, "x-review": Review.INCLUDE.value} if isinstance(spec, dict) else spec
            for key, spec in properties.items()
        }
        read_only = bool(
            config.trust == "read_only" and tool.annotations and tool.annotations.read_only_hint
        )
        governance = Governance(default_confirm=not read_only, owns_confirm="confirm" in properties)
        remote_name = tool.name

        async def execute(
            tool_call_id: str,
            params: Any,
            signal: AbortSignal,
            on_update: UpdateCallback | None,
        ) -> AgentToolResult:
            return await self._call_from_agent(state, remote_name, params, signal, on_update)

        description = (tool.description or "").strip() or f"Tool {tool.name}."
        description = (
            f'[MCP server "{config.name}"] {description}\n\n{self.boundary.instructions()}'
        )
        return govern(
            AgentTool(
                name=tool_name_for(config.name, tool.name),
                label=sanitize_for_display(f"{config.name}: {tool.title or tool.name}")[:120],
                description=description,
                parameters=schema,
                execute=execute,
                metadata={
                    "governance": governance,
                    CAPS_OWN_RESULT: True,
                    "mcp_server": config.name,
                    "mcp_tool": tool.name,
                },
            )
        )

    async def _call_from_agent(
        self,
        state: ServerState,
        name: str,
        params: Any,
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> AgentToolResult:
        """In the agent's loop: hand the call to the connections' loop, abort it on ``signal``."""
        arguments = dict(params) if isinstance(params, dict) else {}

        def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is not None:
                of = f"/{total:g}" if total is not None else ""
                text = sanitize_for_display(message or "")
                on_update(AgentToolResult([TextContent(f"[progress {value:g}{of}] {text}")]))

        future = asyncio.wrap_future(
            asyncio.run_coroutine_threadsafe(
                self._call(state, name, arguments, progress), self._loop
            )
        )
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait((future, aborted), return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if not future.done():
            future.cancel()
            raise ToolError(f'The call to MCP tool "{name}" was aborted.')
        return future.result()

    async def _call(
        self,
        state: ServerState,
        name: str,
        arguments: dict[str, Any],
        progress: Callable[[float, float | None, str | None], None],
    ) -> AgentToolResult:
        """In the connections' loop: restart a dead server once, check the pin, call."""
        from mcp import MCPError

        server = state.config.name
        if not state.connection.alive:
            await self._restart(state)
        tool = state.listed.get(name)
        if tool is None:
            raise ToolError(f'MCP server "{server}" no longer offers tool "{name}".')
        if state.accepted.get(name) != definition_digest(tool_definition(tool)):
            check = self.pins.check(server, tool_definition(tool))
            if check.status != "pinned":
                raise ToolError(_withheld_message(server, name, check))
            state.accepted[name] = definition_digest(tool_definition(tool))
        try:
            result = await state.connection.call(name, arguments, progress)
        except ServerGone as exc:
            state.state, state.error = "down", str(exc)
            raise ToolError(f"{exc}; it will be restarted on the next call.") from None
        except TimeoutError as exc:
            raise ToolError(f"{exc}; the call was cancelled.") from None
        except MCPError as exc:
            message = sanitize_for_display(exc.error.message)
            raise ToolError(f'MCP server "{server}" refused the call: {message}') from None
        except Exception as exc:
            reason = sanitize_for_display(str(exc) or type(exc).__name__)
            raise ToolError(f'The call to MCP server "{server}" failed: {reason}') from None
        return to_agent_result(result, self.boundary, server)

    async def _restart(self, state: ServerState) -> None:
        server = state.config.name
        if state.restart_failed:
            raise ToolError(
                f'MCP server "{server}" is down: restarting it failed once ({state.error}); '
                "tether does not try again in this session."
            )
        self.notify(f'tether: MCP server "{server}" is down; restarting it')
        try:
            tools = await state.connection.open()
        except Exception as exc:
            state.state, state.error, state.restart_failed = "failed", str(exc), True
            self.notify(f'tether: restarting MCP server "{server}" failed: {exc}')
            raise ToolError(
                f'MCP server "{server}" died and restarting it failed ({exc}); '
                "tether does not try again in this session."
            ) from None
        state.state, state.error = "connected", None
        self._take_listing(state, tools, first_connect=False)


def connect_configured_servers(
    notify: Callable[[str], None] | None = None, *, for_tools: Iterable[str] | None = None
) -> McpClients | None:
    """The servers of ``config.toml``, connected; ``None`` when none is configured. With
    ``for_tools`` (``mcp__SERVER__TOOL`` names), only the servers those tools belong to — unless
    one of them belongs to no configured server: then all, so that the error can list what the
    servers offer. Raises :class:`McpConfigError` for a bad table, or servers configured without
    the SDK installed."""
    import importlib.util

    configs = load_server_configs()
    if for_tools is not None:
        for_tools = tuple(for_tools)
        wanted = [c for c in configs if any(_belongs_to(name, c.name) for name in for_tools)]
        if all(any(_belongs_to(name, c.name) for c in configs) for name in for_tools):
            configs = wanted
    if not configs:
        return None
    if importlib.util.find_spec("mcp") is None:
        raise McpConfigError(
            f"{config_path()} configures MCP servers, but the MCP SDK is not installed: "
            "pip install 'tether[mcp]'"
        )
    clients = McpClients(configs, notify=notify)
    clients.connect()
    return clients


def _belongs_to(tool_name: str, server: str) -> bool:
    return tool_name.startswith(tool_name_for(server, ""))


TASKS_REQUIRED = (
    'it requires MCP task augmentation (execution.taskSupport "required"), '
    "which tether's client does not support"
)
"""Why a tool that can only run as an MCP task is not offered: a plain call of it fails."""


def _why_left_out(server: str, tool: mcp_types.Tool) -> str | None:
    """Why ``tool`` is not offered to the model, or ``None`` when it is usable."""
    if not _TOOL_NAME.fullmatch(tool.name) or len(tool_name_for(server, tool.name)) > 64:
        return "its name"
    if tool.execution is not None and tool.execution.task_support == "required":
        return TASKS_REQUIRED
    return None


def _withheld_message(server: str, tool: str, check: PinCheck) -> str:
    if check.status == "changed":
        what = f"its definition changed since it was accepted ({check.change})"
    else:
        what = "it is new since the server's tools were accepted"
    return (
        f'MCP tool "{tool}" of server "{server}" is withheld: {what}. A person can review it '
        f"with `tether mcp list` and accept it with `tether mcp accept {server} {tool}`."
    )


def _default_log_dir() -> Path:
    from tether._home import data_dir

    return Path(data_dir()) / "mcp-logs"


def _to_stderr(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
