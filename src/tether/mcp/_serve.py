"""``tether mcp serve``: the governed coding tools over stdio or streamable HTTP.

A call that needs a person is asked through MCP elicitation when the client declared it (the
answer bound to the call's digest, for this call only); with any other client it is denied with
:data:`NO_APPROVAL_CHANNEL` as its reason, whatever the host's own confirmation said. Over stdio
a malformed request gets a JSON-RPC error with its id (:mod:`._stdio`), and no token is needed:
the host that started the process owns its pipes. HTTP listens on 127.0.0.1 only, at ``/mcp``,
and every request needs the bearer token (:mod:`._http_auth`), written to :func:`token_path`
before the address is printed on stderr; ``--port 0`` picks a free port.

While a call runs, a request that carried a ``progressToken`` gets a progress notification at
least every :data:`HEARTBEAT_S` seconds, output or not (``TETHER_MCP_HEARTBEAT_S`` sets another
interval); a request without one asked for no progress and gets none, so a host that sends no
token and times out its requests cuts off a call that stays silent that long.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TextIO

from tether.agent import AgentTool
from tether.gate import Gate, Mode
from tether.tools import coding_tool_catalog

from ._http_auth import BearerTokenAuth, new_token, read_token_file, token_path
from ._server import HEARTBEAT_S, NO_APPROVAL_CHANNEL, NO_APPROVAL_CHANNEL_FORCED, build_server
from ._stdio import checked_stdio_server

if TYPE_CHECKING:
    from mcp.server import Server

__all__ = ["HEARTBEAT_ENV", "HTTP_HOST", "HTTP_PATH", "governed_tools", "serve", "serve_tools"]

HTTP_HOST = "127.0.0.1"
HTTP_PATH = "/mcp"
HEARTBEAT_ENV = "TETHER_MCP_HEARTBEAT_S"
"""Seconds between progress heartbeats of a running call (default :data:`HEARTBEAT_S`)."""


def governed_tools(cwd: str, names: Sequence[str], *, sandbox: bool | None) -> list[AgentTool]:
    """The tools ``tether mcp serve`` offers: the governed set a run of the command has."""
    return list(coding_tool_catalog(cwd, names=names, sandbox=sandbox).snapshot().tools)


async def serve(
    *,
    transport: Literal["stdio", "http"],
    port: int,
    mode: Mode,
    tool_names: Sequence[str],
    cwd: str,
    sandbox: bool | None = None,
    token_file: str | None = None,
    stderr: TextIO = sys.stderr,
) -> int:
    """Serve the coding tools of ``cwd`` until the host disconnects (stdio) or the process is
    interrupted (HTTP). ``token_file``: HTTP's bearer token is read from it instead of made
    (:class:`McpTokenError` when it holds none)."""
    token = None
    if transport == "http" and token_file is not None:
        token, warning = read_token_file(token_file)
        if warning is not None:
            stderr.write(f"tether mcp serve: warning: {warning}\n")
    heartbeat_s = _heartbeat_interval(os.environ.get(HEARTBEAT_ENV), stderr)
    cwd = os.path.realpath(cwd)
    gate = Gate(
        mode,
        None,
        workspace=cwd,
        no_approver_hint=NO_APPROVAL_CHANNEL,
        forced_hint=NO_APPROVAL_CHANNEL_FORCED,
    )
    tools = governed_tools(cwd, tool_names, sandbox=sandbox)
    return await serve_tools(
        tools,
        gate,
        transport=transport,
        port=port,
        token=token,
        stderr=stderr,
        heartbeat_s=heartbeat_s,
    )


def _heartbeat_interval(value: str | None, stderr: TextIO) -> float:
    if value is None or not value.strip():
        return HEARTBEAT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        stderr.write(
            f"tether mcp serve: warning: {HEARTBEAT_ENV}={value!r} is not a positive number of "
            f"seconds; heartbeats every {HEARTBEAT_S:g} s\n"
        )
        return HEARTBEAT_S
    return seconds


async def serve_tools(
    tools: Sequence[AgentTool],
    gate: Gate,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    port: int = 8000,
    token: str | None = None,
    stderr: TextIO = sys.stderr,
    heartbeat_s: float = HEARTBEAT_S,
) -> int:
    """Serve ``tools`` (governed :class:`AgentTool` s), every call through ``gate``. Over HTTP
    every request needs ``Authorization: Bearer`` ``token`` (default: a new random one). A
    running call that asked for progress hears from the server every ``heartbeat_s``."""
    server = build_server(tools, gate, heartbeat_s=heartbeat_s)
    if transport == "stdio":
        async with checked_stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return 0
    await _serve_http(server, port, token or new_token(), stderr)
    return 0


async def _serve_http(server: Server[Any], port: int, token: str, stderr: TextIO) -> None:
    import uvicorn

    from tether._home import write_private

    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=HTTP_HOST)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((HTTP_HOST, port))
    listener.listen(128)
    bound = listener.getsockname()[1]
    path = token_path()
    write_private(path, token + "\n")
    stderr.write(
        f"tether mcp serve: listening on http://{HTTP_HOST}:{bound}{HTTP_PATH}\n"
        f"tether mcp serve: every request needs the bearer token in {path} (0600): "
        'a client sends "headers": {"Authorization": "Bearer <that token>"}\n'
    )
    stderr.flush()
    config = uvicorn.Config(BearerTokenAuth(app, token), log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listener])
