"""One MCP server connection, owned by one task; calls reach it through a queue.

The SDK's client lives in anyio cancel scopes that must be entered and left by the same task,
and tether starts tool coroutines eagerly in whichever task runs the batch. So no tool ever
touches the SDK: the connection's own task enters the client and serves requests put on its
queue, each in a child of its task group; a caller awaits a future and cancelling it cancels that
child (the SDK then tells the server). A server that dies fails the calls in flight with
:class:`ServerGone`, and the connection stays closed until :meth:`ServerConnection.open` again.

Timeouts are the server's own (:class:`McpServerConfig`): ``startup_timeout`` bounds
``initialize`` and ``tools/list`` together — a server that misses it is stopped and the error
says which of the two it did not answer — and ``request_timeout`` bounds each call, restarted by
every progress notification; a call that misses it is cancelled (the server is told) and fails
with :class:`TimeoutError`, and the server stays. A stdio server runs under the reaper of
:mod:`tether.tools.operations`, so stopping it (the SDK's SIGTERM after 2 s without an exit)
kills its whole process tree, daemons included, and tether's own death — even by SIGKILL — does too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.ai import TetherError

from ._config import McpServerConfig

if TYPE_CHECKING:
    import anyio
    import mcp_types
    from mcp import Client

__all__ = ["ProgressFn", "ServerConnection", "ServerGone"]

_log = logging.getLogger("tether.mcp")

ProgressFn = Callable[[float, float | None, str | None], None]

_SHUTDOWN_SECONDS = 10.0
"""Bounds waiting for a connection to end; the SDK's own shutdown of a stdio server takes at most
about 6.5 s (stdin closed, 2 s, SIGTERM to the tree, 2 s, SIGKILL)."""


class ServerGone(TetherError):
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
        errlog: Path | None = None,
    ) -> None:
        self.config = config
        self.errlog = errlog
        """Where a stdio server's stderr goes (appended); ``None``: tether's own stderr."""
        self.on_tools_changed = on_tools_changed
        self.alive = False
        self._requests: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._owner: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._refusals: list[int] = []
        """HTTP 401/403 answers of a url server (the SDK's error does not carry the status)."""
        self._relist: Callable[[], object] | None = None
        """Lists the tools again in the task group of the connection that is up; ``None``
        while none is (starting, restarting, ended)."""
        self._relist_pending = False
        """A change of the tool list was announced while no connection could list it."""

    async def open(self) -> list[mcp_types.Tool]:
        """Connect (again) and return the server's tools; raises :class:`ConnectionError`
        naming the server and the reason. A server that misses its ``startup_timeout`` is
        reported at the deadline and stopped in the background (:meth:`close` waits for it)."""
        await self.close()
        self._requests = asyncio.Queue()
        ready: asyncio.Future[list[mcp_types.Tool]] = asyncio.get_running_loop().create_future()
        self._owner = owner = asyncio.ensure_future(self._own(ready, self._requests))
        try:
            # _own settles ``ready`` by the startup deadline; this backstop only guards against
            # a transport that ignores cancellation.
            tools = await asyncio.wait_for(
                asyncio.shield(ready), self.config.startup_timeout + _SHUTDOWN_SECONDS
            )
        except TimeoutError:
            await self.close()
            raise ConnectionError(
                f"{_server_label(self.config)}: did not start within "
                f"{self.config.startup_timeout:g} s"
            ) from None
        except ConnectionError:
            if owner.done():
                self._owner = None
            raise  # still stopping the server, if it was started: close() waits for that
        except BaseException:
            await self.close()
            raise
        self.alive = True
        return tools

    async def call(
        self, name: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None
    ) -> mcp_types.CallToolResult:
        """Call tool ``name``; :class:`ServerGone` when the connection is (or goes) down,
        :class:`TimeoutError` when the server does not answer within its ``request_timeout``
        (each progress notification restarts that clock; the server is told of the cancel)."""
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
        """End the connection: the SDK closes a stdio server's stdin, and a server that does not
        exit within 2 s is terminated with its whole process tree (see :meth:`_target`)."""
        was_alive, self.alive = self.alive, False
        owner, self._owner = self._owner, None
        if owner is None or owner.done():
            return
        self._requests.put_nowait(None)
        if not was_alive and self._scope is not None:
            self._scope.cancel()  # still starting: it reads no queue, stop it now
        try:
            await asyncio.wait_for(asyncio.shield(owner), _SHUTDOWN_SECONDS)
        except TimeoutError:
            if self._scope is not None:
                self._scope.cancel()  # an anyio cancel keeps the SDK's shielded shutdown
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(owner, _SHUTDOWN_SECONDS)
        except Exception:
            _log.debug("closing MCP server %s failed", self.config.name, exc_info=True)

    async def _own(
        self,
        ready: asyncio.Future[list[mcp_types.Tool]],
        requests: asyncio.Queue[_Request | None],
    ) -> None:
        # Everything _target and the SDK's client need is imported before the clock starts: a
        # first import of the SDK can take seconds on a loaded machine, and it is not the
        # server's time.
        import anyio
        import mcp.client.stdio  # noqa: F401
        from mcp import Client

        import tether.tools.operations  # noqa: F401

        config = self.config
        in_flight: list[_Request] = []
        phase = "initialize"
        scope = anyio.CancelScope()

        def missed_the_deadline() -> None:
            """Report at once; the SDK's shutdown then stops the server in this task."""
            if not ready.done():
                reason = f"did not answer {phase} within {config.startup_timeout:g} s"
                timed_out = TimeoutError(f"{reason}; tether stopped it")
                ready.set_exception(_connect_error(config, timed_out, self.errlog))
            scope.cancel()

        deadline = asyncio.get_running_loop().call_later(
            config.startup_timeout, missed_the_deadline
        )
        try:
            with scope:
                self._scope = scope
                async with AsyncExitStack() as stack:
                    target = self._target(stack)
                    client = await stack.enter_async_context(
                        Client(target, message_handler=self._on_message)
                    )
                    phase = "tools/list"
                    tools = await _list_tools(client)
                    deadline.cancel()
                    ready.set_result(tools)
                    await self._serve_requests(client, requests, in_flight)
            if scope.cancelled_caught and not ready.done():
                raise ServerGone("closed while it started")
        except BaseException as exc:
            if not ready.done():
                refused = self._refusals[-1] if self._refusals else None
                ready.set_exception(_connect_error(config, exc, self.errlog, refused))
            elif not isinstance(exc, Exception):
                raise
            else:
                _log.debug("MCP server %s: connection ended", config.name, exc_info=True)
        finally:
            deadline.cancel()
            self.alive = False
            self._scope = None
            if not ready.done():
                ready.set_exception(ServerGone(f'MCP server "{config.name}" was closed'))
            _fail_pending(config, requests, in_flight)

    async def _serve_requests(
        self, client: Client, requests: asyncio.Queue[_Request | None], in_flight: list[_Request]
    ) -> None:
        """Serve each request of the queue in a child task, until ``None``."""
        import anyio

        async with anyio.create_task_group() as group:
            self._relist = lambda: group.start_soon(self._list_changed, client)
            try:
                if self._relist_pending:  # announced while this connection was starting
                    self._relist_pending = False
                    self._relist()
                group.start_soon(self._listen_for_changes, client)
                while (request := await requests.get()) is not None:
                    in_flight.append(request)
                    group.start_soon(self._serve, client, request, requests)
                group.cancel_scope.cancel()
            finally:
                self._relist = None  # never start a task in a group that has ended

    async def _serve(
        self, client: Client, request: _Request, requests: asyncio.Queue[_Request | None]
    ) -> None:
        import anyio
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        if request.future.done():
            return
        timeout = self.config.request_timeout
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
            request.scope = scope
            progress = _progress_callback(request.on_progress, scope, timeout)
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
        if scope.cancelled_caught and not request.future.done():
            reason = f'did not answer tools/call "{request.name}" within {timeout:g} s'
            request.future.set_exception(TimeoutError(f"{_server_label(self.config)} {reason}"))

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

        if not isinstance(message, mcp_types.ToolListChangedNotification):
            return
        if self._relist is not None:
            self._relist()
        else:
            self._relist_pending = True

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
        import anyio

        try:
            with anyio.fail_after(self.config.request_timeout):
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
            return _http_target(config.url, config.headers or {}, stack, self._refusals)
        assert config.command is not None
        from tether.tools.operations import reaped_argv

        # Under the reaper, the SDK's SIGTERM to the server's process group kills the server's
        # whole tree (children that called setsid included), and so does tether's death.
        command, *args = reaped_argv([_executable(config), *config.args])
        parameters = StdioServerParameters(
            command=command, args=args, env=config.env, cwd=config.cwd
        )
        if self.errlog is None:
            return parameters
        from tether._home import open_private

        errlog = stack.enter_context(open_private(self.errlog, "a"))
        return stdio_client(parameters, errlog=errlog)


def _http_target(
    url: str, headers: dict[str, str], stack: AsyncExitStack, refusals: list[int]
) -> Any:
    """Streamable HTTP sending ``headers`` with every request (an ``Authorization`` for one):
    the SDK takes them on an ``httpx2.AsyncClient`` of the caller's, given its usual timeouts.
    A 401 or 403 is noted in ``refusals`` (the SDK reports only "an error response")."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def note_refusal(response: httpx2.Response) -> None:
        if response.status_code in (401, 403):
            refusals.append(response.status_code)

    http = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [note_refusal]},
    )
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


def _fail_pending(
    config: McpServerConfig, requests: asyncio.Queue[_Request | None], in_flight: list[_Request]
) -> None:
    """The connection ended: every call still waiting fails with :class:`ServerGone`."""
    gone = ServerGone(f'the connection to MCP server "{config.name}" ended')
    while not requests.empty():
        pending = requests.get_nowait()
        if pending is not None:
            in_flight.append(pending)
    for request in in_flight:
        if not request.future.done():
            request.future.set_exception(gone)


def _progress_callback(
    on_progress: ProgressFn | None, scope: anyio.CancelScope, timeout: float
) -> Any:
    """Reports progress, and restarts the request's clock: a server that says it is working is
    not stuck."""
    import anyio

    async def report(progress: float, total: float | None, message: str | None) -> None:
        scope.deadline = anyio.current_time() + timeout
        if on_progress is not None:
            on_progress(progress, total, message)

    return report


def _cancel_scope_if_cancelled(
    future: asyncio.Future[mcp_types.CallToolResult], request: _Request
) -> None:
    if future.cancelled() and request.scope is not None:
        request.scope.cancel()


def _connect_error(
    config: McpServerConfig, exc: BaseException, errlog: Path | None, refused: int | None = None
) -> Exception:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    reason = str(exc) or type(exc).__name__
    if refused is not None:
        reason = _refusal_reason(config, refused)
    where = f" (its stderr: {errlog})" if errlog is not None and config.url is None else ""
    return ConnectionError(f"{_server_label(config)}: {reason}{where}")


def _refusal_reason(config: McpServerConfig, status: int) -> str:
    """What a person does about a server that refused tether: send (another) token."""
    sent = any(name.lower() == "authorization" for name in config.headers or {})
    what = "refused the token sent" if sent else "wants a token"
    return (
        f"HTTP {status} {'Unauthorized' if status == 401 else 'Forbidden'}: the server {what};"
        f' set headers = {{ Authorization = "Bearer TOKEN" }} in [mcp.servers.{config.name}]'
        " (for tether mcp serve on this machine, TOKEN is in the mcp-token file of its data"
        " directory, printed when it starts)"
    )


def _server_label(config: McpServerConfig) -> str:
    return f'MCP server "{config.name}" ({config.endpoint})'


def _executable(config: McpServerConfig) -> str:
    """The server's command as an absolute path, looked up as the SDK would (its ``PATH``,
    relative paths from ``cwd``), so a missing one is named before anything starts."""
    from mcp.client.stdio import get_default_environment

    assert config.command is not None
    command = config.command
    if os.sep in command:
        found = os.path.join(config.cwd or os.getcwd(), os.path.expanduser(command))
        if os.path.isfile(found) and os.access(found, os.X_OK):
            return os.path.abspath(found)
        raise FileNotFoundError(f"cannot run {command}: no such executable file")
    path = (get_default_environment() | (config.env or {})).get("PATH", os.defpath)
    found_on_path = shutil.which(command, path=path)
    if found_on_path is None:
        raise FileNotFoundError(f"cannot run {command}: not found on PATH")
    return os.path.abspath(found_on_path)
