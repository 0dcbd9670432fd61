"""``tether mcp serve`` over stdio answers every malformed request that carries an id with a
JSON-RPC error for that id, and keeps serving: raw JSON lines to the real executable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import TETHER, environment

from tether.mcp import malformed_request_reply

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

MALFORMED: list[tuple[str, int | str | None, int, str]] = [
    # (line, the id of the reply, its code, what its message says)
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}', 1, -32600, '"params"'),
    ('{"jsonrpc":"1.0","id":2,"method":"tools/list"}', 2, -32600, '"jsonrpc" must be "2.0"'),
    ('{"id":"three","method":"tools/list"}', "three", -32600, '"jsonrpc" must be "2.0"'),
    ('{"jsonrpc":"2.0","id":4,"method":5}', 4, -32600, 'a string "method"'),
    ('{"jsonrpc":"2.0","id":5}', 5, -32600, 'a string "method"'),
    ('{"jsonrpc":"2.0","id":6,"method":"tools/list","params":[1]}', 6, -32602, "not an array"),
    ('{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None, -32600, '"id" must be'),
    ('{"jsonrpc":"2.0","id":9,"method":"tools/list"', None, -32700, "Parse error"),
    ("[" * 100_000, None, -32700, "nested too deeply"),
    ("[1, 2]", None, -32600, "not a batch (an array)"),
]
"""Each malformed line, and the reply JSON-RPC 2.0 asks for."""


def _deep_request() -> str:
    arguments = "[" * 400 + "]" * 400
    return (
        '{"jsonrpc":"2.0","id":10,"method":"tools/call",'
        f'"params":{{"name":"read","arguments":{{"path":{arguments}}}}}}}'
    )


async def test_malformed_requests_get_an_error_with_their_id_and_the_server_keeps_running(
    tmp_path: Path,
):
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    home.mkdir()
    workspace.mkdir()
    process = await asyncio.create_subprocess_exec(
        TETHER,
        "mcp",
        "serve",
        "--cwd",
        str(workspace),
        "--tools",
        "read",
        "--no-sandbox",
        env=environment(home),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
    )
    assert process.stdin is not None and process.stdout is not None

    async def send(line: str) -> None:
        assert process.stdin is not None
        process.stdin.write(line.encode() + b"\n")
        await process.stdin.drain()

    async def replies(count: int) -> list[dict[str, Any]]:
        assert process.stdout is not None
        return [json.loads(await process.stdout.readline()) for _ in range(count)]

    try:
        await send(json.dumps(INITIALIZE))
        (initialized,) = await asyncio.wait_for(replies(1), 60)
        assert initialized["id"] == 0 and "result" in initialized
        await send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        # malformed notifications and responses are never answered
        await send('{"jsonrpc":"2.0","method":5}')
        await send('{"jsonrpc":"2.0","id":99,"result":5}')
        await send('{"jsonrpc":"2.0","id":98,"error":"not an object"}')
        for line, *_ in MALFORMED:
            await send(line)
        await send(_deep_request())
        # valid JSON-RPC with parameters the method does not take: the SDK answers -32602
        await send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}')
        await send('{"jsonrpc":"2.0","id":"last","method":"tools/list"}')
        got = await asyncio.wait_for(replies(len(MALFORMED) + 3), 60)
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)
    by_id: dict[Any, list[dict[str, Any]]] = {}
    for reply in got:
        assert reply["jsonrpc"] == "2.0"
        by_id.setdefault(reply["id"], []).append(reply)
    for line, request_id, code, says in MALFORMED:
        if request_id is None:
            continue
        (reply,) = by_id.pop(request_id)
        assert reply["error"]["code"] == code, line
        assert says in reply["error"]["message"], line
    (deep,) = by_id.pop(10)
    assert deep["error"]["code"] == -32600
    (unfit,) = by_id.pop(7)
    assert unfit["error"]["code"] == -32602
    (listed,) = by_id.pop("last")
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["read"]
    anonymous = sorted(
        (reply["error"]["code"], reply["error"]["message"]) for reply in by_id.pop(None)
    )
    expected = sorted((code, says) for _, rid, code, says in MALFORMED if rid is None)
    assert [code for code, _ in anonymous] == [code for code, _ in expected]
    for (_, message), (_, says) in zip(anonymous, expected, strict=True):
        assert says in message, message
    assert by_id == {}, "no reply for a notification or a response"
    assert process.returncode == 0


@pytest.mark.parametrize(("line", "request_id", "code", "says"), MALFORMED)
def test_the_reply_for_each_malformed_line(
    line: str, request_id: int | str | None, code: int, says: str
):
    reply = malformed_request_reply(line)
    assert reply is not None
    assert (reply.id, reply.error.code) == (request_id, code)
    assert says in reply.error.message


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","method":5}',
        '{"jsonrpc":"2.0","id":1,"result":5}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}',
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":5}}',
    ],
)
def test_valid_messages_notifications_and_responses_get_no_error_reply(line: str):
    assert malformed_request_reply(line) is None
