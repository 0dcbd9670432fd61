"""Session writes fail closed: a full disk stops the run with one clear line and no tool runs
unrecorded; a session directory that cannot be written is an error before any model call.
The session directory is a real tmpfs of 64 KiB (or a read-only one), mounted when the tests
run as root (as in CI)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer

from tether.session import CustomEntry, Session

from .support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    yield from _mounted(tmp_path / "sessions", "size=64k")


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    yield from _mounted(tmp_path / "sessions", "size=64k,ro")


def _mounted(where: Path, options: str) -> Iterator[Path]:
    where.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)]
    mounted = subprocess.run(command, check=False, capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def turn(n: int):
    command = f"head -c 20000 /dev/zero | tr '\\\\0' x; echo turn{n} >> side.log"
    return tool_reply((f"c{n}", "bash", {"command": command}))


def six_turns() -> list:
    """Six turns of ~20 KB tool output each: more than a 64 KiB disk holds."""
    return [turn(n) for n in range(6)] + [text_reply("all six done")]


RUN_OPTIONS = ("--model", MODEL, "--tools", "bash", "--gate", "yolo", "--no-sandbox")


async def test_a_full_disk_stops_the_run_with_one_clear_line_and_nothing_runs_unrecorded(
    tmp_path: Path, small_disk: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer(six_turns()) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "six steps", *RUN_OPTIONS, "--session", str(small_disk / "run.jsonl"),
            home=home, cwd=project,
        )  # fmt: skip

    assert done.code == 1
    stopped = [line for line in done.stderr.splitlines() if "could not be written" in line]
    assert stopped == [
        f"tether: stopped: the session could not be written: {small_disk / 'run.jsonl'}:"
        " No space left on device"
    ]
    assert "Traceback" not in done.stderr
    assert "tether: session " not in done.stderr  # never claimed as saved
    ran = (project / "side.log").read_text().split()
    assert 1 <= len(ran) < 6  # the run stopped early
    session = Session.load(str(small_disk / "run.jsonl"))
    started = [
        entry.data["tool_call_id"]
        for entry in session.entries
        if isinstance(entry, CustomEntry) and entry.custom_type == "tool_call_started"
    ]
    assert [f"turn{call_id[1:]}" for call_id in started] == ran  # each run is on record
    assert len(server.requests) <= len(ran) + 1  # no model call after the failure


async def test_a_read_only_session_directory_is_an_error_before_any_model_call(
    tmp_path: Path, read_only_disk: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer([text_reply("never")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "hi", "--model", MODEL, "--session", str(read_only_disk / "new.jsonl"),
            home=home, cwd=project,
        )  # fmt: skip

    assert done.code != 0
    assert f"Cannot write the session directory {read_only_disk}" in done.stderr
    assert "Traceback" not in done.stderr
    assert server.requests == []


async def test_rpc_mode_tells_a_failed_session_write_as_an_error_event(
    tmp_path: Path, small_disk: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer(six_turns()) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "--mode", "rpc", *RUN_OPTIONS, "--session", str(small_disk / "run.jsonl"),
            cwd=str(project),
            env=environment(home), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=2**24,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b'{"type": "prompt", "text": "six steps"}\n')
        seen = []
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), 60)
            assert raw, f"tether exited; seen {[e.get('type') for e in seen]}"
            seen.append(json.loads(raw))
            if seen[-1]["type"] == "error":
                break
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 30)

    assert "stopped: the session could not be written" in seen[-1]["error"]
    assert "No space left on device" in seen[-1]["error"]
    assert any(event["type"] == "agent_end" for event in seen)
