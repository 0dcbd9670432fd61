"""The stdio transport of ``tether mcp serve``: the SDK's, plus a JSON-RPC error for every
malformed request.

The SDK hands a line that is not a valid JSON-RPC message to the server as an exception, which
logs it and answers nothing, so a host waits forever on that request's id. Here each line is
checked before the SDK sees it, and one that cannot be served is answered as JSON-RPC 2.0 says:

- not JSON (or nested beyond what a parser takes): ``-32700`` Parse error, ``id`` null;
- JSON that is not a valid request object (not an object, ``jsonrpc`` not ``"2.0"``, no string
  ``method``, ``params`` neither object nor array, an ``id`` that is not a string or integer):
  ``-32600`` Invalid Request, with the request's ``id`` when it has a usable one, else null;
- ``params`` an array (JSON-RPC allows it, MCP does not): ``-32602`` Invalid params.

A malformed notification or response (no ``id``, or a ``result``/``error``) gets no answer, as
JSON-RPC requires; it is passed on for the SDK to log. The server keeps running either way.

stdin is claimed as the SDK claims it (fd 0 points at the null device while serving, so a tool's
child reads EOF and never the wire); stdout is left to the SDK.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    import mcp_types
    from anyio.streams.memory import MemoryObjectSendStream

__all__ = ["checked_stdio_server", "malformed_request_reply"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


def malformed_request_reply(line: str) -> mcp_types.JSONRPCError | None:
    """The error reply ``line`` needs, or ``None``: it is a valid message, or a malformed one
    that must not be answered (a notification or a response)."""
    import mcp_types

    try:
        valid = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        pass
    else:
        # the SDK reads a request whose id is not a string or integer as a notification
        if not isinstance(valid, mcp_types.JSONRPCNotification) or '"id"' not in line:
            return None
    try:
        message = json.loads(line.strip())
    except RecursionError:
        return _error(None, PARSE_ERROR, "Parse error: nested too deeply")
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: {exc}")
    if not isinstance(message, dict):
        kind = "a batch (an array)" if isinstance(message, list) else type(message).__name__
        return _error(None, INVALID_REQUEST, f"Invalid Request: a message is an object, not {kind}")
    if "result" in message or "error" in message:
        return None  # a response: never answered
    if "id" not in message:
        return None  # a notification: never answered
    raw_id = message["id"]
    usable = isinstance(raw_id, str) or (isinstance(raw_id, int) and not isinstance(raw_id, bool))
    request_id = raw_id if usable else None
    code, reason = _what_is_wrong(message, usable)
    return _error(request_id, code, reason)


def _what_is_wrong(message: dict[str, Any], usable_id: bool) -> tuple[int, str]:
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'
    if not usable_id:
        return INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer'
    if not isinstance(message.get("method"), str):
        return INVALID_REQUEST, 'Invalid Request: a request needs a string "method"'
    params = message.get("params")
    if isinstance(params, list):
        return INVALID_PARAMS, 'Invalid params: MCP "params" must be an object, not an array'
    if "params" in message and not isinstance(params, dict):
        return INVALID_REQUEST, 'Invalid Request: "params" must be an object'
    return INVALID_REQUEST, "Invalid Request: nested too deeply or not a valid request"


def _error(request_id: str | int | None, code: int, message: str) -> mcp_types.JSONRPCError:
    import mcp_types

    return mcp_types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=mcp_types.ErrorData(code=code, message=message)
    )


@contextlib.asynccontextmanager
async def checked_stdio_server() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` streams, with malformed requests answered here."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    replies, pending = anyio.create_memory_object_stream[SessionMessage](64)
    with _claimed_stdin() as wire:
        text = io.TextIOWrapper(wire, encoding="utf-8", errors="replace")
        lines = _CheckedLines(anyio.wrap_file(text), replies)
        async with (
            stdio_server(stdin=lines) as (read_stream, write_stream),  # type: ignore[arg-type]
            anyio.create_task_group() as group,
        ):
            group.start_soon(_send_replies, pending, write_stream.clone())
            yield read_stream, write_stream
            group.cancel_scope.cancel()


class _CheckedLines:
    """Lines of the wire that the SDK can serve; the others are answered on ``replies``."""

    def __init__(self, lines: Any, replies: MemoryObjectSendStream[Any]) -> None:
        self._lines = lines
        self._replies = replies

    async def __aiter__(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage

        async with self._replies:
            async for line in self._lines:
                if not line.strip():
                    continue
                reply = malformed_request_reply(line)
                if reply is None:
                    yield line
                else:
                    await self._replies.send(SessionMessage(reply))


async def _send_replies(pending: Any, write_stream: Any) -> None:
    import anyio

    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        async with write_stream:
            async for reply in pending:
                await write_stream.send(reply)


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """A private duplicate of fd 0 to read the wire from, fd 0 pointing at the null device
    meanwhile; restored on exit. The duplicate is never closed: a worker thread may still be
    blocked reading it (as in the SDK)."""
    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield sys.stdin.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
