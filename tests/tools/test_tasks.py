"""Background tasks through the real bash tool, the real task tools and the real gate: a server
started, watched, used and cancelled; the approval rule; limits; the capped log; trees that die."""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest
from tests.gate.test_gated_coding_tools import run_turns

from tether.ai import AbortController, ToolResultMessage
from tether.gate import Gate, ScriptedApprover
from tether.tools import (
    TaskLimits,
    TaskManager,
    create_bash_tool,
    create_coding_tools,
    create_task_tools,
    wrap_tool_definition,
)
from tether.tools._definition import ToolContext
from tether.tools.operations._sandbox import BubblewrapSandbox

from .test_bash import assert_dead_soon, is_dead

MIB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def text(result: ToolResultMessage) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def governed_tools(workspace: Path, tasks: TaskManager, *, sandbox: bool = False) -> list[Any]:
    definitions = create_coding_tools(
        str(workspace), names=("read", "bash"), sandbox=sandbox, tasks=tasks
    )
    return [wrap_tool_definition(d) for d in definitions]


async def call(definition: Any, **params: Any) -> Any:
    return await definition.execute(
        "call-1", params, AbortController().signal, None, ToolContext(os.getcwd())
    )


@pytest.fixture
async def tasks():
    manager = TaskManager()
    yield manager
    await manager.shutdown()


async def test_a_server_in_the_background_serves_until_cancelled_and_its_tree_dies(
    tmp_path: Path, tasks: TaskManager
) -> None:
    port = free_port()
    (tmp_path / "hello.txt").write_text("hello from the background server\n")
    server = f"{sys.executable} -u -m http.server {port} --bind 127.0.0.1"
    fetch = (
        f'{sys.executable} -c "import urllib.request; '
        f"print(urllib.request.urlopen('http://127.0.0.1:{port}/hello.txt').read().decode())\""
    )
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    gate = Gate("normal", approver, workspace=str(tmp_path))
    started, served, fetched, cancelled, listed = await run_turns(
        gate,
        governed_tools(tmp_path, tasks),
        [("bash", {"command": server, "background": True})],
        [("task_output", {"task_id": "1", "until": "Serving HTTP", "wait_s": 60})],
        [("bash", {"command": fetch, "timeout": 60})],
        [("task_cancel", {"task_id": "1"})],
        [("task_list", {})],
    )
    assert not started.is_error, text(started)
    assert "Started background task 1 (pid " in text(started)
    pid = started.details["pid"]
    assert "A line matched 'Serving HTTP'" in text(served)
    assert "running" in text(served)
    assert "hello from the background server" in text(fetched)
    assert text(cancelled).startswith("cancelled: task 1")
    assert cancelled.details["status"] == "killed"
    assert "killed" in text(listed) and server in text(listed)
    assert is_dead(pid)
    with socket.socket() as probe:  # nothing listens any more
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    assert approver.requests[0].tool_name == "bash"
    assert "background task that is not proven read-only" in approver.requests[0].reason
    assert "GET /hello.txt" in tasks.tasks()[0].tail_text()


@pytest.mark.skipif(not BubblewrapSandbox.available(), reason="bubblewrap is not available")
async def test_a_background_command_marked_approve_asks_a_person_even_in_the_sandbox(
    tmp_path: Path, tasks: TaskManager
) -> None:
    approver = ScriptedApprover(itertools.repeat("deny_once"))
    gate = Gate("normal", approver, workspace=str(tmp_path))
    tools = governed_tools(tmp_path, tasks, sandbox=True)
    assert tools[1].metadata["sandboxed"]
    background, foreground, read_only = await run_turns(
        gate,
        tools,
        [("bash", {"command": "touch made-in-background", "background": True})],
        [("bash", {"command": "touch made-in-foreground"})],
        [("bash", {"command": "echo watching", "background": True})],
    )
    assert background.is_error and "Denied by a person" in text(background)
    assert not (tmp_path / "made-in-background").exists()
    assert [request.args.get("background") for request in approver.requests] == [True]
    assert not foreground.is_error  # the same class in the foreground: the sandbox decides
    assert (tmp_path / "made-in-foreground").exists()
    assert not read_only.is_error and "watching" in text(read_only)
    (task,) = tasks.tasks()  # the script the policy proved runs: 'echo' 'watching'
    assert "watching" in task.command


async def test_the_rule_holds_in_every_mode_but_yolo(tmp_path: Path, tasks: TaskManager) -> None:
    background = [("bash", {"command": "touch started", "background": True})]
    for mode in ("normal", "review"):
        approver = ScriptedApprover(["deny_once"])
        gate = Gate(mode, approver, workspace=str(tmp_path))  # type: ignore[arg-type]
        (result,) = await run_turns(gate, governed_tools(tmp_path, tasks), background)
        assert result.is_error and len(approver.requests) == 1, mode
    (strict,) = await run_turns(
        Gate("strict", None, workspace=str(tmp_path)), governed_tools(tmp_path, tasks), background
    )
    assert strict.is_error and "strict mode never asks" in text(strict)
    yolo_approver = ScriptedApprover()
    (yolo,) = await run_turns(
        Gate("yolo", yolo_approver, workspace=str(tmp_path)),
        governed_tools(tmp_path, tasks),
        background,
    )
    assert not yolo.is_error and yolo_approver.requests == []
    approver = ScriptedApprover(["allow_session"])
    gate = Gate("normal", approver, workspace=str(tmp_path))
    foreground, again = await run_turns(
        gate,
        governed_tools(tmp_path, tasks),
        [("bash", {"command": "touch started", "confirm": True})],
        background,
    )
    assert not foreground.is_error
    assert again.is_error, "allowing the foreground command must not allow it in the background"


async def test_the_runtime_limit_kills_the_tree(tmp_path: Path, tasks: TaskManager) -> None:
    bash, output, *_ = create_coding_tools(
        str(tmp_path), names=("bash",), sandbox=False, tasks=tasks
    )
    started = await call(bash, command="sleep 300 & sleep 300", background=True, timeout=1)
    task = tasks.get(started.details["task_id"])
    assert task is not None
    tree = psutil.Process(task.pid).children(recursive=True) if task.running else []
    result = await call(output, task_id=task.id, wait_s=60)
    assert result.details["status"] == "timed_out"
    assert "killed by its runtime limit of 1 s" in result.content[0].text
    for process in tree:
        assert_dead_soon(process.pid)
    with pytest.raises(Exception, match="ceiling of 3600 s"):
        await call(bash, command="sleep 1", background=True, timeout=7200)


async def test_at_most_max_running_tasks_and_a_finished_one_frees_its_place(
    tmp_path: Path,
) -> None:
    tasks = TaskManager(limits=TaskLimits(max_running=2))
    bash, _, _, cancel = create_coding_tools(
        str(tmp_path), names=("bash",), sandbox=False, tasks=tasks
    )
    try:
        for _ in range(2):
            await call(bash, command="sleep 300", background=True)
        with pytest.raises(Exception, match="2 background tasks are running, the most"):
            await call(bash, command="sleep 300", background=True)
        await call(cancel, task_id="1")
        third = await call(bash, command="sleep 300", background=True)
        assert third.details["task_id"] == "3"
    finally:
        await tasks.shutdown()


async def test_a_daemon_the_task_double_forked_dies_when_the_task_exits(
    tmp_path: Path, tasks: TaskManager
) -> None:
    bash, output, *_ = create_coding_tools(
        str(tmp_path), names=("bash",), sandbox=False, tasks=tasks
    )
    daemon = "(setsid sh -c 'sleep 300 & echo $! > daemon.pid' &); sleep 0.3; echo parent-done"
    await call(bash, command=daemon, background=True)
    result = await call(output, task_id="1", wait_s=60)
    while result.details["status"] == "running":
        result = await call(output, task_id="1", wait_s=60)
    assert result.details["status"] == "exited" and result.details["exit_code"] == 0
    assert_dead_soon(int((tmp_path / "daemon.pid").read_text()))


async def test_a_session_sees_only_its_own_tasks(tmp_path: Path) -> None:
    mine, theirs = TaskManager(), TaskManager()
    try:
        their_bash = create_bash_tool(str(tmp_path), sandbox=False, tasks=theirs)
        await call(their_bash, command="sleep 300", background=True)
        output, listing, cancel = create_task_tools(mine)
        assert (await call(cancel, task_id="1")).details["outcome"] == "unknown_task"
        assert "No background tasks" in (await call(listing)).content[0].text
        with pytest.raises(Exception, match="unknown_task"):
            await call(output, task_id="1")
        assert theirs.tasks()[0].running
    finally:
        await theirs.shutdown()


async def test_bad_arguments_get_specific_errors(tmp_path: Path, tasks: TaskManager) -> None:
    bash, output, *_ = create_coding_tools(
        str(tmp_path), names=("bash",), sandbox=False, tasks=tasks
    )
    await call(bash, command="echo hi", background=True)
    with pytest.raises(Exception, match="not a valid regular expression"):
        await call(output, task_id="1", until="(")
    with pytest.raises(Exception, match="wait_s must be between 0 and 600"):
        await call(output, task_id="1", wait_s=-1)
    with pytest.raises(Exception, match="since must be a byte offset"):
        await call(output, task_id="1", since=-5)


async def test_a_gigabyte_of_output_keeps_the_result_and_the_log_within_their_caps(
    tmp_path: Path,
) -> None:
    tasks = TaskManager(limits=TaskLimits(log_head_bytes=MIB, log_tail_bytes=MIB))
    bash, output, *_ = create_coding_tools(
        str(tmp_path), names=("bash",), sandbox=False, tasks=tasks
    )
    rss_before = psutil.Process().memory_info().rss
    command = "yes 0123456789abcdef | head -c 1073741824; echo; echo the-end"
    await call(bash, command=command, background=True)
    task = tasks.get("1")
    assert task is not None
    while task.running:
        await asyncio.sleep(0.1)
    result = await call(output, task_id="1")
    grown = psutil.Process().memory_info().rss - rss_before
    shown = result.content[0].text
    assert result.details["status"] == "exited"
    assert len(shown.encode()) < 51 * 1024 + 2048
    assert shown.count("\n") < 2000 + 10
    assert "the-end" in shown and "in the log" in shown
    log = Path(result.details["log_path"])
    assert log.stat().st_size <= MIB + 3 * MIB + 512
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    assert result.details["output_bytes"] == 1073741824 + len("\nthe-end\n")
    start = await call(output, task_id="1", since=0)
    assert start.content[0].text.split("\n\n")[1].startswith("0123456789abcdef\n")
    assert grown < 200 * MIB


class _StreamingExec:
    """A backend's ``exec`` with nothing local about it (no pid, no reaper), as a remote
    host's would be: prints a line every 10 ms until aborted or timed out."""

    def create_output_file(self, prefix: str) -> Any:
        raise OSError("no files here")

    async def exec(self, command, *, cwd, on_output, timeout=None, signal=None, env=None):
        from tether.tools.operations import ExecResult

        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout or 1e9)
        count = 0
        while signal is None or not signal.aborted:
            if loop.time() > deadline:
                return ExecResult(None, timed_out=True)
            count += 1
            on_output(f"{command} {count}\n".encode())
            await asyncio.sleep(0.01)
        return ExecResult(None, aborted=True)


async def test_tasks_run_through_any_bash_operations(tmp_path: Path, tasks: TaskManager) -> None:
    bash, output, _, cancel = create_coding_tools(
        str(tmp_path), names=("bash",), operations=_StreamingExec(), tasks=tasks
    )
    started = await call(bash, command="remote", background=True)
    assert started.details["pid"] is None and "no local pid" in started.content[0].text
    seen = await call(output, task_id="1", until="remote 50", wait_s=60)
    assert seen.details["matched"] and seen.details["status"] == "running"
    assert (await call(cancel, task_id="1")).details["status"] == "killed"
