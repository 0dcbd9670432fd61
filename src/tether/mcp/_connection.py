"""One MCP server connection, owned by one task; calls reach it through a queue.

The SDK's client lives in anyio cancel scopes that must be entered and left by the same task,
and tether starts tool coroutines eagerly in whichever task runs the batch. So no tool ever
touches the SDK: the connection's own task enters the client and serves requests put on its
queue, each in a child of its task group; a caller awaits a future and cancelling it cancels that
child (the SDK then tells the server). A server that dies fails the calls in flight with
:class:`ServerGone`, and the connection stays closed until :meth:`ServerConnection.open` again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._config import McpServerConfig

if TYPE_CHECKING:
    import anyio
    import mcp_types
    from mcp import Client

__all__ = ["ProgressFn", "ServerConnection", "ServerGone"]

_log = logging.getLogger("tether.mcp")

ProgressFn = Callable[[float, float | None, str | None], None]


class ServerGone(Exception):
    """The server's connection ended (the process died, the stream closed)."""


@dataclass(slots=True)
class _Request:
    name: str
    arguments: dict[str, Any]
    on_progress: ProgressFn | None
    future: asyncio.Future[mcp_types.CallToolResult]
    scope: anyio.CancelScope | None = field(default=None)


class ServerConnection:
    """The connection to one configured server. Use from one event loop only."""

    def __init__(
        self,
        config: McpServerConfig,
        *,
        on_tools_changed: Callable[[list[mcp_types.Tool]], None] | None = None,
        connect_timeout: float = 30.0,
        errlog: Path | None = None,
    ) -> None:
        self.config = config
        self.errlog = errlog
        """Where a stdio server's stderr goes (appended); ``None``: tether's own stderr."""
        self.on_tools_changed = on_tools_changed
        self.connect_timeout = connect_timeout
        self.alive = False
        self._requests: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._owner: asyncio.Task[None] | None = None
        self._relist: Callable[[], object] | None = None

    async def open(self) -> list[mcp_types.Tool]:
        """Connect (again) and return the server's tools; raises on failure."""
        await self.close()
        self._requests = asyncio.Queue()
        ready: asyncio.Future[list[mcp_types.Tool]] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.ensure_future(self._own(ready, self._requests))
        try:
            tools = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except BaseException:
            await self.close()
            raise
        self.alive = True
        return tools

    async def call(
        self, name: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None
    ) -> mcp_types.CallToolResult:
        """Call tool ``name``; :class:`ServerGone` when the connection is (or goes) down."""
        if not self.alive:
            raise ServerGone(f'MCP server "{self.config.name}" is not connected')
        future: asyncio.Future[mcp_types.CallToolResult] = (
            asyncio.get_running_loop().create_future()
        )
        request = _Request(name, arguments, on_progress, future)
        future.add_done_callback(lambda done: _cancel_scope_if_cancelled(done, request))
        self._requests.put_nowait(request)
        return await future

    async def close(self) -> None:
        """End the connection (the SDK stops a stdio server's process)."""
        self.alive = False
        owner, self._owner = self._owner, None
        if owner is None or owner.done():
            return
        self._requests.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(owner), 10.0)
        except TimeoutError:
            owner.cancel()
        except Exception:
            _log.debug("closing MCP server %s failed", self.config.name, exc_info=True)

    async def _own(
        self,
        ready: asyncio.Future[list[mcp_types.Tool]],
        requests: asyncio.Queue[_Request | None],
    ) -> None:
        import anyio
        from mcp import Client

        in_flight: list[_Request] = []
        try:
            async with AsyncExitStack() as stack:
                target = self._target(stack)
                client = await stack.enter_async_context(
                    Client(target, message_handler=self._on_message)
                )
                tools = await _list_tools(client)
                ready.set_result(tools)
                async with anyio.create_task_group() as group:
                    self._relist = lambda: group.start_soon(self._list_changed, client)
                    group.start_soon(self._listen_for_changes, client)
                    while (request := await requests.get()) is not None:
                        in_flight.append(request)
                        group.start_soon(self._serve, client, request, requests)
                    group.cancel_scope.cancel()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(_connect_error(self.config, exc, self.errlog))
            elif not isinstance(exc, Exception):
                raise
            else:
                _log.debug("MCP server %s: connection ended", self.config.name, exc_info=True)
        finally:
            self.alive = False
            gone = ServerGone(f'the connection to MCP server "{self.config.name}" ended')
            while not requests.empty():
                pending = requests.get_nowait()
                if pending is not None:
                    in_flight.append(pending)
            for request in in_flight:
                if not request.future.done():
                    request.future.set_exception(gone)

    async def _serve(
        self, client: Client, request: _Request, requests: asyncio.Queue[_Request | None]
    ) -> None:
        import anyio
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        if request.future.done():
            return
        progress = _progress_callback(request.on_progress)
        with anyio.CancelScope() as scope:
            request.scope = scope
            try:
                result = await client.call_tool(
                    request.name, request.arguments, progress_callback=progress
                )
            except MCPError as exc:
                if exc.code == CONNECTION_CLOSED:
                    self._died(request, requests, exc)
                elif not request.future.done():
                    request.future.set_exception(exc)
                return
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as exc:
                self._died(request, requests, exc)
                return
            except Exception as exc:
                if not request.future.done():
                    request.future.set_exception(exc)
                return
            if not request.future.done():
                request.future.set_result(result)

    def _died(
        self, request: _Request, requests: asyncio.Queue[_Request | None], cause: BaseException
    ) -> None:
        self.alive = False
        if not request.future.done():
            message = f'MCP server "{self.config.name}" died during the call ({cause})'
            request.future.set_exception(ServerGone(message))
        requests.put_nowait(None)

    async def _on_message(self, message: Any) -> None:
        import mcp_types

        if isinstance(message, mcp_types.ToolListChangedNotification) and self._relist:
            self._relist()

    async def _listen_for_changes(self, client: Client) -> None:
        """On 2026-07-28 connections a change of the tool list arrives on a subscription;
        older servers send a notification instead (:meth:`_on_message`)."""
        from mcp.client.subscriptions import ListenNotSupportedError

        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    await self._list_changed(client)
        except ListenNotSupportedError:
            return
        except Exception:
            _log.debug("MCP server %s: no tool-change events", self.config.name, exc_info=True)

    async def _list_changed(self, client: Client) -> None:
        try:
            tools = await _list_tools(client)
        except Exception:
            _log.warning("MCP server %s: listing its changed tools failed", self.config.name)
            return
        if self.on_tools_changed is not None:
            self.on_tools_changed(tools)

    def _target(self, stack: AsyncExitStack) -> Any:
        from mcp import StdioServerParameters, stdio_client

        config = self.config
        if config.url is not None:
            return _http_target(config.url, config.headers, stack) if config.headers else config.url
        assert config.command is not None
        parameters = StdioServerParameters(
            command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
        )
        if self.errlog is None:
            return parameters
        from tether.ai.providers import open_private

        errlog = stack.enter_context(open_private(self.errlog, "a"))
        return stdio_client(parameters, errlog=errlog)


def _http_target(url: str, headers: dict[str, str], stack: AsyncExitStack) -> Any:
    """Streamable HTTP sending ``headers`` with every request (an ``Authorization`` for one):
    the SDK takes them on an ``httpx2.AsyncClient`` of the caller's, given its usual timeouts."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
    stack.push_async_callback(http.aclose)
    return streamable_http_client(url, http_client=http)


async def _list_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _progress_callback(on_progress: ProgressFn | None) -> Any:
    if on_progress is None:
        return None

    async def report(progress: float, total: float | None, message: str | None) -> None:
        on_progress(progress, total, message)

    return report


def _cancel_scope_if_cancelled(
    future: asyncio.Future[mcp_types.CallToolResult], request: _Request
) -> None:
    if future.cancelled() and request.scope is not None:
        request.scope.cancel()


def _connect_error(config: McpServerConfig, exc: BaseException, errlog: Path | None) -> Exception:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    reason = str(exc) or type(exc).__name__
    where = f" (its stderr: {errlog})" if errlog is not None and config.url is None else ""
    return ConnectionError(f'MCP server "{config.name}" ({config.endpoint}): {reason}{where}')
