"""No input kills a mode: text that is not valid Unicode becomes U+FFFD with a notice and is
recorded; JSON nested too deep is an error answer; the real executable keeps running."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from tests.ai.providers.loopback import LoopbackServer

from tether.session import Session

from .support import MODEL, TETHER, environment, run_tether, text_reply, write_models_toml


async def test_a_task_that_is_not_utf8_is_answered_and_recorded_with_a_replacement(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        task = os.fsdecode(b"bad \xff")  # the bytes a shell passes for $(printf 'bad \xff')
        done = await run_tether("-p", task, "--model", MODEL, home=home, cwd=tmp_path)

    assert done.code == 0, done.stderr
    assert done.stdout == "ok\n"
    assert "1 character of the task were not valid UTF-8" in done.stderr
    assert server.requests[0].json()["messages"][-1]["content"] == "bad \ufffd"
    (path,) = home.rglob("*.jsonl")
    assert Session.load(str(path)).messages()[0].content == "bad \ufffd"  # type: ignore[union-attr]


async def test_piped_input_that_is_not_utf8_is_kept_with_replacements(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "-p", "summarise", "--model", MODEL, cwd=str(tmp_path),
            env=environment(home), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, stderr = await asyncio.wait_for(process.communicate(b"caf\xe9 au lait\n"), 60)

    assert process.returncode == 0, stderr
    sent = server.requests[0].json()["messages"][-1]["content"]
    assert sent == "summarise\n\ncaf\ufffd au lait\n"


async def test_rpc_mode_survives_lone_surrogates_bad_bytes_and_deep_nesting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with LoopbackServer([text_reply("first"), text_reply("second")]) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "--mode", "rpc", "--model", MODEL, cwd=str(tmp_path), env=environment(home),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        seen: list[dict] = []

        async def until(predicate) -> dict:
            assert process.stdout is not None
            while True:
                raw = await asyncio.wait_for(process.stdout.readline(), 30)
                assert raw, f"tether exited; seen {[e.get('type') for e in seen]}"
                event = json.loads(raw)
                seen.append(event)
                if predicate(event):
                    return event

        def send(line: bytes) -> None:
            assert process.stdin is not None
            process.stdin.write(line + b"\n")

        send(b"[" * 100_000)
        deep = await until(lambda e: e["type"] == "response")
        send(b'{"type": "prompt", "text": "x \\ud800"}')
        notice = await until(lambda e: e["type"] == "notice")
        await until(lambda e: e["type"] == "agent_end")
        send(b'{"type": "prompt", "text": "caf\xe9"}')
        await until(lambda e: e["type"] == "agent_end")
        send(b'{"type": "get_state"}')
        state = await until(lambda e: e.get("command") == "get_state")
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 30)

    assert deep["success"] is False and "nested too deeply" in deep["error"]
    assert "replaced by U+FFFD" in notice["text"]
    users = [m for m in (r.json()["messages"] for r in server.requests)]
    assert users[0][-1]["content"] == "x \ufffd"
    assert users[1][-1]["content"] == "caf\ufffd"
    assert state["state"]["message_count"] == 4
