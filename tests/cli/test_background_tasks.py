"""Background tasks through the real ``tether`` command against the loopback model: a task
started, left running over other work, read and cancelled, all in the session replay; print
mode stopping what still runs; ``kill -9`` leaving no process; resume showing ``lost``; rpc."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from pathlib import Path

import psutil
import pytest
from tests.ai.providers.loopback import LoopbackServer

from .support import (
    MODEL,
    TETHER,
    as_at_a_terminal,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)

OPTIONS = ("--model", MODEL, "--tools", "read,bash", "--no-sandbox", "--gate", "yolo")
"""yolo: print mode has nobody to approve a background command that is not read-only."""
TICKER = "for i in $(seq 1 100000); do echo tick $i; sleep 0.05; done"


def marked(home: Path, marker: str) -> dict[str, str]:
    """tether's environment with a marker every process it starts inherits."""
    return {**environment(home), "TETHER_TEST_MARKER": marker}


def processes_marked(marker: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            mine = process.environ().get("TETHER_TEST_MARKER") == marker
            if mine and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def wait_until_none_marked(marker: str, within: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while left := processes_marked(marker):
        if asyncio.get_running_loop().time() > deadline:  # a process may die while it is named
            raise AssertionError(f"still alive: {[command_of(p) for p in left]}")
        await asyncio.sleep(0.05)


def name_of(process: psutil.Process) -> str:
    """The process's name; ``""`` once it is gone (the ticker's short sleeps come and go)."""
    try:
        return process.name()
    except psutil.Error:
        return ""


def command_of(process: psutil.Process) -> list[str] | str:
    try:
        return process.cmdline()
    except psutil.Error as gone_now:
        return f"pid {process.pid}: {type(gone_now).__name__}"


def tool_results(request_messages: list[dict]) -> dict[str, str]:
    return {
        m["tool_call_id"]: m["content"] if isinstance(m["content"], str) else json.dumps(m)
        for m in request_messages
        if m.get("role") == "tool"
    }


async def test_a_task_runs_over_two_turns_of_other_work_is_read_cancelled_and_replayed(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the notes\n")
    replies = [
        tool_reply(("c1", "bash", {"command": TICKER, "background": True})),
        tool_reply(("c2", "read", {"path": "notes.txt"})),
        tool_reply(("c3", "bash", {"command": "echo other-work"})),
        tool_reply(("c4", "task_output", {"task_id": "1", "until": "tick 30", "wait_s": 60})),
        tool_reply(("c5", "task_cancel", {"task_id": "1"})),
        text_reply("The ticker ran and is stopped."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "tick along", *OPTIONS, home=home, cwd=project)
        assert done.code == 0, done.stderr
        results = tool_results(server.requests[-1].json()["messages"])
    assert "Started background task 1 (pid" in results["c1"]
    assert "the notes" in results["c2"] and "other-work" in results["c3"]
    assert "running" in results["c4"] and "tick 30" in results["c4"]
    assert results["c5"].startswith("cancelled: task 1")
    assert "stopped background task" not in done.stderr  # nothing was left to stop
    (session_file,) = home.rglob("*.jsonl")
    session_id = json.loads(session_file.read_text().splitlines()[0])["id"]
    shown = await run_tether("sessions", "show", session_id, home=home, cwd=project)
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[task 1 started]"))
    end = next(i for i, line in enumerate(lines) if line.startswith("[task 1 killed"))
    assert TICKER in lines[start] and "allowed by mode: yolo mode" in lines[start]
    assert "log " in lines[start] and "task-1.log" in lines[end]
    reads = [i for i, line in enumerate(lines) if line.startswith("tool_result task_output")]
    assert start < reads[0] < end
    assert any("tool_result read" in line for line in lines[start:end])


async def test_print_mode_stops_running_tasks_at_the_end_and_lists_them(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    marker = uuid.uuid4().hex
    replies = [
        tool_reply(("c1", "bash", {"command": TICKER, "background": True})),
        text_reply("Started the ticker."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "-p", "start it", *OPTIONS, "--mode", "json", cwd=str(project),
            env=marked(home, marker), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    events = [json.loads(line) for line in out.decode().splitlines()]
    kinds = [event["type"] for event in events]
    assert "task_start" in kinds and "task_output" in kinds
    end = next(event for event in events if event["type"] == "task_end")
    assert end["status"] == "killed" and end["task_id"] == "1"
    assert kinds.index("task_start") < kinds.index("task_end")
    await wait_until_none_marked(marker)
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        plain = await run_tether("-p", "start it", *OPTIONS, home=home, cwd=project)
    assert "stopped background task 1 at the end of the run" in plain.stderr
    assert TICKER in plain.stderr


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
async def test_tether_killed_or_interrupted_leaves_no_process_of_three_tasks_daemons_included(
    tmp_path: Path, how: signal.Signals
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    marker = uuid.uuid4().hex
    daemon = "(setsid sh -c 'sleep 1000 & echo $! > daemon.pid' &); sleep 1000"
    replies = [
        tool_reply(
            ("c1", "bash", {"command": "sleep 1000", "background": True}),
            ("c2", "bash", {"command": TICKER, "background": True}),
            ("c3", "bash", {"command": daemon, "background": True}),
        ),
        tool_reply(("c4", "task_output", {"task_id": "2", "wait_s": 600, "until": "never"})),
        text_reply("not reached"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "-p", "start three", *OPTIONS, "--mode", "json",
            cwd=str(project), env=marked(home, marker), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, preexec_fn=as_at_a_terminal,
        )  # fmt: skip
        assert process.stdout is not None
        started = 0
        while started < 3:
            line = await process.stdout.readline()
            assert line, "tether ended before starting three tasks"
            started += json.loads(line)["type"] == "task_start"
        # go on reading, as a consumer of --mode json does: the ticker's task_output events
        # would fill the pipe and block tether's writes (and with them its event loop)
        drain = asyncio.ensure_future(process.stdout.read())
        deadline = asyncio.get_running_loop().time() + 60
        while not (project / "daemon.pid").exists() or len(server.requests) < 2:
            assert asyncio.get_running_loop().time() < deadline, "the tasks never all started"
            await asyncio.sleep(0.02)
        daemon_pid = int((project / "daemon.pid").read_text())
        alive = processes_marked(marker)
        assert psutil.pid_exists(daemon_pid)
        assert len([p for p in alive if name_of(p) == "sleep"]) >= 3
        process.send_signal(how)
        await process.wait()
        await drain
    await wait_until_none_marked(marker)
    assert gone(daemon_pid)
    if how != signal.SIGKILL:
        return  # an interrupted run ends its tasks itself; a killed one leaves them to resume

    async with LoopbackServer(
        [tool_reply(("c5", "task_list", {})), text_reply("listed")]
    ) as server:
        write_models_toml(home, server.url)
        resumed = await run_tether("-c", "-p", "what runs?", *OPTIONS, home=home, cwd=project)
        assert resumed.code == 0, resumed.stderr
        listing = tool_results(server.requests[-1].json()["messages"])["c5"]
    rows = [line.split() for line in listing.splitlines()[1:]]
    assert [(row[0], row[1]) for row in rows] == [("1", "lost"), ("2", "lost"), ("3", "lost")]
    assert "running" not in listing


async def test_a_task_that_ends_mid_turn_is_announced_once_at_the_next_turn(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    replies = [
        tool_reply(
            ("c1", "bash", {"command": "sleep 1.5; echo finished-late; exit 3", "background": True})
        ),
        tool_reply(("c2", "bash", {"command": "sleep 3"})),
        tool_reply(("c3", "bash", {"command": "echo later"})),
        text_reply("done"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "go", *OPTIONS, home=home, cwd=project)
        assert done.code == 0, done.stderr
        sent = [json.dumps(request.json()["messages"]) for request in server.requests]
    announcement = "Background task 1 (sleep 1.5; echo finished-late; exit 3) exited 3 after"
    assert announcement not in sent[1]
    assert announcement in sent[2] and "finished-late" in sent[2]
    assert sent[3].count(announcement) == 1  # told once, kept in the context


async def test_rpc_streams_task_events_and_cancels_a_task(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    replies = [
        tool_reply(("c1", "bash", {"command": TICKER, "background": True})),
        text_reply("Started."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "--mode", "rpc", *OPTIONS, cwd=str(project), env=environment(home),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None

        seen: list[dict] = []

        async def until(kind: str, **fields: object) -> dict:
            """The first event of ``kind`` with ``fields`` (read so far or still to come)."""
            position = 0
            while True:
                for event in seen[position:]:
                    if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                        seen.remove(event)
                        return event
                position = len(seen)
                line = await process.stdout.readline()
                assert line, f"rpc ended before {kind}"
                seen.append(json.loads(line))

        process.stdin.write(b'{"type": "prompt", "text": "start a ticker"}\n')
        started = await until("task_start")
        await until("task_output")
        await until("agent_end")
        process.stdin.write(b'{"type": "task_cancel", "task_id": "7"}\n')
        unknown = await until("response", command="task_cancel")
        process.stdin.write(b'{"type": "task_cancel", "task_id": "1"}\n')
        cancelled = await until("response", command="task_cancel")
        ended = await until("task_end")
        process.stdin.close()
        await process.wait()
    assert unknown["outcome"] == "unknown_task"
    assert cancelled["outcome"] == "cancelled" and ended["status"] == "killed"
    assert started["pid"] and gone(started["pid"])
    assert os.path.exists(started["log_path"])
