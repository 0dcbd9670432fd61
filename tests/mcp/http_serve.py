"""``tether mcp serve --transport http`` started for a test, and the SDK's client for it.

The server runs as its own process with ``TETHER_HOME`` set to the test's directory, so its
token file is ``<home>/mcp-token``; the client is the SDK's streamable-HTTP transport on an
``httpx2`` client carrying the ``Authorization`` header (or none) and recording every status.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TETHER = os.path.join(os.path.dirname(sys.executable), "tether")


@dataclass
class HttpServer:
    url: str
    home: Path
    stderr: str
    """What the server said before it was ready (the address and where the token is)."""
    process: asyncio.subprocess.Process

    @property
    def token_path(self) -> Path:
        return self.home / "mcp-token"

    def token(self) -> str:
        return self.token_path.read_text(encoding="utf-8").strip()


@asynccontextmanager
async def serve_http(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[HttpServer]:
    """``tether mcp serve --transport http --port 0 ARGS`` with ``TETHER_HOME=home`` (and
    ``env`` added to the environment), once it listens."""
    process = await asyncio.create_subprocess_exec(
        TETHER,
        *("mcp", "serve", "--transport", "http", "--port", "0", *args),
        env={**os.environ, **(env or {}), "TETHER_HOME": str(home)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        said = ""
        while "bearer token" not in said and len(said.splitlines()) < 5:
            said += (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        match = re.search(r"http://127\.0\.0\.1:\d+/mcp", said)
        assert match, said
        yield HttpServer(match.group(0), home, said, process)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


@dataclass
class Statuses:
    """The HTTP status of every response the client received."""

    seen: list[int] = field(default_factory=list)

    async def record(self, response: httpx2.Response) -> None:
        self.seen.append(response.status_code)


@asynccontextmanager
async def sdk_client(
    url: str, token: str | None, statuses: Statuses | None = None
) -> AsyncIterator[Client]:
    """The SDK's ``Client`` over streamable HTTP, sending ``Authorization: Bearer token``."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    hooks = {"response": [statuses.record]} if statuses is not None else {}
    timeout = httpx2.Timeout(30.0, read=300.0)
    http = httpx2.AsyncClient(headers=headers, timeout=timeout, event_hooks=hooks)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        yield client
