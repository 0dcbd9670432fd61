"""``tether --mode rpc``: JSON lines both ways, approvals answered by the program driving it."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from tests.ai.providers.loopback import LoopbackServer

from .support import MODEL, TETHER, environment, text_reply, tool_reply, write_models_toml


class RpcProcess:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.seen: list[dict] = []

    async def send(self, command: dict | str) -> None:
        assert self.process.stdin is not None
        line = command if isinstance(command, str) else json.dumps(command)
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def next_matching(self, predicate, timeout: float = 30) -> dict:
        async def read() -> dict:
            assert self.process.stdout is not None
            while True:
                raw = await self.process.stdout.readline()
                if not raw:
                    raise AssertionError(f"tether exited; seen: {[s['type'] for s in self.seen]}")
                event = json.loads(raw)
                self.seen.append(event)
                if predicate(event):
                    return event

        return await asyncio.wait_for(read(), timeout)

    async def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return await asyncio.wait_for(self.process.wait(), 30)


async def start_rpc(home, cwd, *extra: str) -> RpcProcess:
    process = await asyncio.create_subprocess_exec(
        TETHER,
        "--mode",
        "rpc",
        "--model",
        MODEL,
        *extra,
        cwd=str(cwd),
        env=environment(home),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    return RpcProcess(process)


def of_type(kind: str):
    return lambda event: event["type"] == kind


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.mark.parametrize("decision", ["allow_once", "allow_session", "deny_once", "deny_session"])
async def test_an_approval_request_is_answered_with_each_decision(tmp_path, project, decision):
    outside = tmp_path / "outside.txt"
    outside.write_text("outside text\n", encoding="utf-8")
    replies = [tool_reply(("c1", "read", {"path": str(outside)})), text_reply("done")]
    home = tmp_path / "home"
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        rpc = await start_rpc(home, project)
        header = await rpc.next_matching(of_type("session"))
        assert header["cwd"] == str(project)
        await rpc.send({"type": "prompt", "text": "read the outside file"})
        request = await rpc.next_matching(of_type("approval_request"))
        assert request["tool_name"] == "read"
        assert request["args"]["path"] == str(outside)
        assert "outside the workspace" in request["reason"]
        await rpc.send(
            {"type": "approval", "request_id": request["request_id"], "decision": decision}
        )
        end = await rpc.next_matching(of_type("tool_execution_end"))
        await rpc.next_matching(of_type("agent_end"))
        assert await rpc.close() == 0
    text = end["result"]["content"][0]["text"]
    if decision.startswith("allow"):
        assert end["is_error"] is False and "outside text" in text
    else:
        assert end["is_error"] is True and "outside text" not in text


async def test_garbage_lines_get_error_responses_and_the_loop_goes_on(tmp_path, project):
    home = tmp_path / "home"
    async with LoopbackServer([text_reply("still here")]) as server:
        write_models_toml(home, server.url)
        rpc = await start_rpc(home, project)
        await rpc.send("this is not json")
        bad = await rpc.next_matching(of_type("response"))
        assert bad["success"] is False and "not JSON" in bad["error"]
        await rpc.send({"type": "fly"})
        unknown = await rpc.next_matching(of_type("response"))
        assert unknown["success"] is False and "unknown command" in unknown["error"]
        await rpc.send({"type": "approval", "request_id": "nope", "decision": "allow_once"})
        missing = await rpc.next_matching(of_type("response"))
        assert missing["success"] is False
        await rpc.send({"type": "prompt", "text": "hello"})
        end = await rpc.next_matching(of_type("agent_end"))
        assert end["messages"][-1]["content"][0]["text"] == "still here"
        await rpc.send({"type": "get_state"})
        state = await rpc.next_matching(
            lambda e: e["type"] == "response" and e["command"] == "get_state"
        )
        assert state["state"]["is_running"] is False
        assert state["state"]["message_count"] == 2
        assert state["state"]["model"] == MODEL
        assert await rpc.close() == 0


async def test_abort_stops_a_long_bash_command(tmp_path, project):
    home = tmp_path / "home"
    marker = tmp_path / "still-running"
    script = f"sleep 30; touch {marker}"
    replies = [tool_reply(("c1", "bash", {"command": script})), text_reply("stopped")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        rpc = await start_rpc(home, project, "--gate", "yolo")
        await rpc.send({"type": "prompt", "text": "wait a while"})
        await rpc.next_matching(of_type("tool_execution_start"))
        await asyncio.sleep(0.5)
        await rpc.send({"type": "abort"})
        end = await rpc.next_matching(of_type("tool_execution_end"), timeout=15)
        assert end["is_error"] is True
        await rpc.next_matching(of_type("agent_end"), timeout=15)
        assert await rpc.close() == 0
    assert not os.path.exists(marker)
