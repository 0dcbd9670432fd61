"""The bash tool through ``SSHOperations`` against a real sshd: merged output, errors, the spill
file on the remote host, and whole remote process trees dying on timeout, abort and cancel —
double-forked ``setsid`` daemons included. The remote host is this machine, so its processes
are checked with psutil."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from tests.tools.test_bash import (
    TREE_COMMAND,
    daemon_command,
    is_dead,
    kill_if_alive,
    run,
    run_error,
    text_of,
    wait_until_ready,
)

from tether.agent import AgentToolResult
from tether.ai import AbortController
from tether.remote import SSHOperations
from tether.tools.bash import create_bash_tool
from tether.tools.read import create_read_tool

from .sshd import SSHServer


class RemoteTree:
    """The processes a command started on the remote side: new processes below sshd (other than
    sshd's own), plus the PIDs the command recorded (a daemon is re-parented out of sshd's tree).
    """

    def __init__(self, sshd: SSHServer) -> None:
        self._sshd = sshd
        self._before = {process.pid for process in sshd.session_processes()}
        self.pids: set[int] = set()

    async def snapshot_when_ready(self, updates: list[AgentToolResult]) -> None:
        await wait_until_ready(updates)
        self.pids = {
            process.pid
            for process in self._sshd.session_processes()
            if process.pid not in self._before and _name(process) != "sshd"
        }

    def assert_all_dead_soon(self, recorded: set[int], within: float = 5.0) -> None:
        deadline = time.monotonic() + within
        while alive := {pid for pid in self.pids | recorded if not is_dead(pid)}:
            assert time.monotonic() < deadline, f"still alive on the remote side: {sorted(alive)}"
            time.sleep(0.01)


def _name(process: psutil.Process) -> str:
    try:
        return process.name()
    except psutil.Error:
        return ""


def recorded_pids(directory: Path, *names: str) -> set[int]:
    return {int((directory / name).read_text()) for name in names}


async def test_output_is_merged_in_order_and_runs_in_the_remote_cwd(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    result = await run(
        bash, {"command": "echo out; echo err >&2; echo again; pwd; read x; echo $?"}
    )
    assert text_of(result) == f"out\nerr\nagain\n{tmp_path}\n1"


async def test_a_failing_command_keeps_its_output_and_exit_code(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    message = await run_error(bash, {"command": "echo partial; exit 7"})
    assert message == "partial\n\nCommand exited with code 7"


async def test_a_missing_working_directory_is_an_error(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path / "gone"), operations=ssh_operations)
    message = await run_error(bash, {"command": "touch made"})
    assert message.startswith("Working directory does not exist")
    assert not (tmp_path / "made").exists()


async def test_env_replaces_the_remote_environment(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    chunks: list[bytes] = []
    result = await ssh_operations.exec(
        'echo "$ONLY" "${HOME:-no-home}"',
        cwd=str(tmp_path),
        on_output=chunks.append,
        env={"ONLY": "it's me", "PATH": "/usr/bin:/bin"},
    )
    assert result.exit_code == 0 and b"".join(chunks) == b"it's me no-home\n"


async def test_the_spill_file_is_on_the_remote_host_and_readable_there(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    result = await run(bash, {"command": "seq 1 3000"})
    path = result.details["full_output_path"]
    assert text_of(result).endswith(f"Full output: {path}]")
    shown = await run(
        create_read_tool("/", operations=ssh_operations), {"path": path, "offset": 2999}
    )
    assert text_of(shown) == "2999\n3000"
    assert Path(path).read_text() == "".join(f"{n}\n" for n in range(1, 3001))


async def test_a_daemon_holding_the_output_does_not_hang_a_normal_exit(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    started = time.monotonic()
    result = await run(bash, {"command": "sleep 30 & echo $! > daemon.pid; echo done"})
    try:
        assert text_of(result) == "done"
        assert time.monotonic() - started < 5
    finally:
        kill_if_alive(int((tmp_path / "daemon.pid").read_text()))


async def abort_when_ready(updates: list[AgentToolResult], controller: AbortController) -> None:
    await wait_until_ready(updates)
    controller.abort()


@pytest.mark.parametrize("stop", ["timeout", "abort"])
async def test_timeout_and_abort_kill_the_whole_remote_tree(
    sshd: SSHServer, ssh_operations: SSHOperations, tmp_path: Path, stop: str
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    tree = RemoteTree(sshd)
    updates: list[AgentToolResult] = []
    controller = AbortController()
    watcher = asyncio.create_task(tree.snapshot_when_ready(updates))
    params: dict[str, Any] = {"command": TREE_COMMAND}
    aborter = None
    if stop == "timeout":
        params["timeout"] = 2
    else:
        aborter = asyncio.create_task(abort_when_ready(updates, controller))
    message = await asyncio.wait_for(
        run_error(bash, params, signal=controller.signal, updates=updates), 30
    )
    await watcher
    if aborter is not None:
        await aborter
    expected = "Command timed out after 2 seconds" if stop == "timeout" else "Command aborted"
    assert message == f"ready\n\n{expected}"
    recorded = recorded_pids(tmp_path, "child.pid", "grandchild.pid")
    assert recorded <= tree.pids and len(tree.pids) >= 4  # bash, sleep x2, sh
    tree.assert_all_dead_soon(recorded)


async def test_cancelling_the_call_kills_the_whole_remote_tree(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    updates: list[AgentToolResult] = []
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    task = asyncio.create_task(run(bash, {"command": TREE_COMMAND}, updates=updates))
    await wait_until_ready(updates)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for pid in recorded_pids(tmp_path, "child.pid", "grandchild.pid"):
        deadline = time.monotonic() + 5
        while not is_dead(pid):
            assert time.monotonic() < deadline, f"{pid} survived the cancellation"
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("how", ["setsid", "python-double-fork"])
@pytest.mark.parametrize("stop", ["timeout", "abort"])
async def test_double_forked_setsid_daemons_on_the_remote_host_die_too(
    sshd: SSHServer, ssh_operations: SSHOperations, tmp_path: Path, how: str, stop: str
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    params: dict[str, Any] = {"command": daemon_command(tmp_path, how)}
    controller = AbortController()
    updates: list[AgentToolResult] = []
    tree = RemoteTree(sshd)
    watcher = asyncio.create_task(tree.snapshot_when_ready(updates))
    aborter = None
    if stop == "timeout":
        params["timeout"] = 3
    else:
        aborter = asyncio.create_task(abort_when_ready(updates, controller))
    try:
        message = await asyncio.wait_for(
            run_error(bash, params, signal=controller.signal, updates=updates), 30
        )
    finally:
        if aborter is not None:
            aborter.cancel()
    await watcher
    assert message.startswith("ready\n\nCommand ")
    daemon = int((tmp_path / "daemon.pid").read_text())
    try:
        assert daemon not in tree.pids  # it really left sshd's tree (re-parented to init)
        tree.assert_all_dead_soon(recorded_pids(tmp_path, "shell.pid", "daemon.pid"))
    finally:
        kill_if_alive(daemon)
