"""A scripted HTTP/1.1 server on 127.0.0.1 for driving the real SDKs over real sockets.

Each request is answered by the next :class:`Reply` of the script: a status, headers, and a body
sent in pieces (bytes; :data:`DISCONNECT` drops the connection there; :data:`HANG` keeps it open
until the client closes it; a float pauses that many seconds). Every request is recorded
(method, path, headers, JSON body), and so is whether the client closed the connection while a
reply was still being sent — what an abort must do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

DISCONNECT = object()
HANG = object()

Piece = bytes | float | object


@dataclass
class Reply:
    status: int = 200
    body: Sequence[Piece] = ()
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def sse(events: Iterable[Any], *, named: bool = False, done: bool = False) -> list[bytes]:
    """Server-sent events, one piece each: ``data: <json>`` (or ``event: <type>`` first when
    ``named``, from each event's ``type``), and ``data: [DONE]`` at the end when ``done``."""
    pieces = []
    for event in events:
        data = event if isinstance(event, str) else json.dumps(event)
        head = f"event: {event['type']}\n" if named and isinstance(event, dict) else ""
        pieces.append(f"{head}data: {data}\n\n".encode())
    if done:
        pieces.append(b"data: [DONE]\n\n")
    return pieces


def json_reply(status: int, payload: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, [json.dumps(payload).encode()], dict(headers or {}), "application/json")


class LoopbackServer:
    """``async with LoopbackServer(replies) as server:`` — ``server.url`` is its root URL."""

    def __init__(self, replies: Sequence[Reply] = ()) -> None:
        self.replies = list(replies)
        self.requests: list[Request] = []
        self.client_closed = asyncio.Event()
        """Set when a client closed its connection before a reply was fully sent."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.url = ""

    async def __aenter__(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    def add(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                self.requests.append(request)
                reply = (
                    self.replies.pop(0)
                    if self.replies
                    else json_reply(500, {"error": {"message": "loopback script exhausted"}})
                )
                if not await self._send(reply, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _send(
        self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Send one reply; False when the connection is gone (dropped or closed by the client)."""
        head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        headers = {"content-type": reply.content_type, "transfer-encoding": "chunked"}
        headers.update({k.lower(): v for k, v in reply.headers.items()})
        head += [f"{name}: {value}" for name, value in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        try:
            for piece in reply.body:
                if piece is DISCONNECT:
                    writer.transport.abort()
                    return False
                if piece is HANG:
                    await writer.drain()
                    await reader.read()  # returns at EOF: the client closed the connection
                    self.client_closed.set()
                    return False
                if isinstance(piece, float):
                    await writer.drain()
                    await asyncio.sleep(piece)
                    continue
                assert isinstance(piece, bytes)
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except ConnectionError:
            self.client_closed.set()
            return False
        return True


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
    return Request(method, path, headers, body)


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    529: "Overloaded",
}
