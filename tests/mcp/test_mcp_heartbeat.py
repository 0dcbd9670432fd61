"""Progress heartbeats of ``tether mcp serve`` on the wire: raw JSON lines to the real
executable over stdio, so that what is not sent can be seen too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cli.support import TETHER, environment

from tether.mcp import HEARTBEAT_ENV

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


@dataclass
class RawServer:
    process: asyncio.subprocess.Process

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def until_reply(self, request_id: int) -> list[dict[str, Any]]:
        """Every message up to and including the reply to ``request_id``."""
        assert self.process.stdout is not None
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1].get("id") != request_id:
            line = await asyncio.wait_for(self.process.stdout.readline(), 60)
            assert line, "the server closed its output"
            seen.append(json.loads(line))
        return seen


@asynccontextmanager
async def raw_server(tmp_path: Path, heartbeat: str) -> AsyncIterator[RawServer]:
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    home.mkdir()
    workspace.mkdir()
    process = await asyncio.create_subprocess_exec(
        TETHER,
        *("mcp", "serve", "--cwd", str(workspace), "--tools", "bash", "--no-sandbox"),
        env={**environment(home), HEARTBEAT_ENV: heartbeat},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    server = RawServer(process)
    try:
        await server.send(INITIALIZE)
        await server.until_reply(0)
        await server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield server
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)


def _silent_call(request_id: int, meta: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "bash", "arguments": {"command": "sleep 1.2; echo done"}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_heartbeats_carry_the_requests_progress_token_and_rise(tmp_path: Path):
    async with raw_server(tmp_path, "0.2") as server:
        await server.send(_silent_call(1, {"progressToken": "call-1"}))
        seen = await server.until_reply(1)
    *notes, reply = seen
    assert reply["result"]["content"][0]["text"].strip() == "done"
    assert {note["method"] for note in notes} == {"notifications/progress"}
    assert {note["params"]["progressToken"] for note in notes} == {"call-1"}
    values = [note["params"]["progress"] for note in notes]
    assert values == sorted(set(values))
    messages = [note["params"]["message"] for note in notes]
    heartbeats = [message for message in messages if message.startswith("still running")]
    assert len(heartbeats) >= 2, messages
    assert set(messages) - set(heartbeats) <= {"done"}, "the only output is the last line"


async def test_a_request_without_a_progress_token_gets_no_progress(tmp_path: Path):
    async with raw_server(tmp_path, "0.2") as server:
        await server.send(_silent_call(1, None))
        seen = await server.until_reply(1)
    assert len(seen) == 1, seen
    assert seen[0]["result"]["content"][0]["text"].strip() == "done"


async def test_an_unusable_interval_is_named_and_the_default_used(tmp_path: Path):
    async with raw_server(tmp_path, "soon") as server:
        await server.send(_silent_call(1, {"progressToken": 7}))
        seen = await server.until_reply(1)
    messages = [note["params"]["message"] for note in seen[:-1]]
    assert messages == ["done"], "the output, and no heartbeat within 1.2 s at the default"
    assert server.process.stderr is not None
    said = (await server.process.stderr.read()).decode()
    assert f"{HEARTBEAT_ENV}='soon' is not a positive number" in said
