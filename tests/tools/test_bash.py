"""The bash tool against real processes: output, errors, progress,
bounded memory with a spill file, and whole process trees dying on timeout and abort."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.agent import (
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    ToolError,
    ToolExecutionUpdate,
    agent_loop,
)
from tether.ai import AbortController, AbortSignal, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools._definition import ToolContext, ToolDefinition, wrap_tool_definition
from tether.tools._output_spill import SpillingOutput
from tether.tools._truncate import truncate_tail
from tether.tools.bash import create_bash_tool
from tether.tools.operations import MemoryOperations
from tether.tools.operations._local_exec import LocalExecOperations
from tether.tools.operations._protocols import ExecResult
from tether.tools.operations._sandbox import BubblewrapSandbox
from tether.tools.read import create_read_tool

# --- helpers -----------------------------------------------------------------------------------


def text_of(result: AgentToolResult | ToolResultMessage) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


async def run(
    definition: ToolDefinition,
    params: dict[str, Any],
    *,
    signal: AbortSignal | None = None,
    updates: list[AgentToolResult] | None = None,
) -> AgentToolResult:
    """Call ``execute`` as the loop would (params already validated)."""
    on_update = updates.append if updates is not None else None
    return await definition.execute(
        "call-1",
        params,
        signal or AbortController().signal,
        on_update,
        ToolContext(os.getcwd()),
    )


async def run_error(definition: ToolDefinition, params: dict[str, Any], **kwargs: Any) -> str:
    with pytest.raises(ToolError) as caught:
        await run(definition, params, **kwargs)
    return str(caught.value)


async def read_pid(path: Path, within: float = 10.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().strip())
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} was not written within {within} s")


def is_dead(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def assert_dead_soon(pid: int, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not is_dead(pid):
        assert time.monotonic() < deadline, f"process {pid} is still alive"
        time.sleep(0.01)


async def wait_until_ready(updates: list[AgentToolResult], within: float = 10.0) -> None:
    """Return once a progress update of the command shows ``ready``."""
    deadline = time.monotonic() + within
    while not any("ready" in text_of(update) for update in updates):
        assert time.monotonic() < deadline, "the command never reported ready"
        await asyncio.sleep(0.01)


class ProcessTree:
    """Every process the call started, seen by psutil: descendants of this test process that
    were not there before (the reaper keeps orphans and setsid daemons below it)."""

    def __init__(self) -> None:
        self._before = set(psutil.Process().children(recursive=True))
        self.members: set[psutil.Process] = set()

    async def snapshot_when_ready(self, updates: list[AgentToolResult]) -> None:
        await wait_until_ready(updates)
        self.members = set(psutil.Process().children(recursive=True)) - self._before

    def pids(self) -> set[int]:
        return {process.pid for process in self.members}

    def assert_all_dead_soon(self, within: float = 5.0) -> None:
        deadline = time.monotonic() + within
        alive = self.members
        while alive := {process for process in alive if not is_dead(process.pid)}:
            pids = sorted(process.pid for process in alive)
            assert time.monotonic() < deadline, f"still alive: {pids}"
            time.sleep(0.01)


def kill_if_alive(pid: int) -> None:
    """Clean up a daemon a test left behind (its zombie is reaped by its new parent, init)."""
    try:
        psutil.Process(pid).kill()
    except psutil.Error:
        return
    assert_dead_soon(pid)


async def agent_run(definition: ToolDefinition, arguments: dict[str, Any]) -> tuple[list[Any], Any]:
    """One agent_loop run where the faux model calls the tool once; returns events and result."""
    model = FauxModel(
        [
            faux_message(faux_tool_call("bash", arguments, id="c1")),
            faux_message(faux_text("done")),
        ]
    )
    context = AgentContext("", [], [wrap_tool_definition(definition)])
    stream = agent_loop(
        [UserMessage("go")], context, AgentLoopConfig(model=model.model, stream_fn=model.stream)
    )
    events = [event async for event in stream]
    messages = await stream.result()
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 1
    return events, results[0]


# --- output and errors -------------------------------------------------------------------------


async def test_echo_returns_output_and_details(tmp_path: Path) -> None:
    result = await run(create_bash_tool(str(tmp_path)), {"command": "echo hello"})
    assert text_of(result) == "hello"
    assert result.details["exit_code"] == 0
    assert result.details["sandboxed"] is BubblewrapSandbox.available()
    assert result.details["truncated"] is False
    assert result.details["full_output_path"] is None


async def test_stdout_and_stderr_are_merged_in_arrival_order(tmp_path: Path) -> None:
    result = await run(create_bash_tool(str(tmp_path)), {"command": "echo a; echo b >&2; echo c"})
    assert text_of(result) == "a\nb\nc"


async def test_runs_in_the_working_directory_with_empty_stdin(tmp_path: Path) -> None:
    definition = create_bash_tool(str(tmp_path))
    assert text_of(await run(definition, {"command": "pwd"})) == str(tmp_path)
    assert text_of(await run(definition, {"command": "cat"})) == "(no output)"


async def test_nonzero_exit_is_an_error_that_keeps_the_output(tmp_path: Path) -> None:
    message = await run_error(create_bash_tool(str(tmp_path)), {"command": "echo out; exit 3"})
    assert message == "out\n\nCommand exited with code 3"


async def test_death_by_signal_reports_the_shell_exit_code(tmp_path: Path) -> None:
    message = await run_error(create_bash_tool(str(tmp_path)), {"command": "kill -9 $$"})
    assert message == "Command exited with code 137"


async def test_missing_working_directory_is_an_error_before_anything_runs(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    marker = tmp_path / "marker"
    message = await run_error(create_bash_tool(missing), {"command": f"touch {marker}"})
    assert message == f"Working directory does not exist: {missing}"
    assert not marker.exists()


async def test_invalid_utf8_output_is_replaced_not_fatal(tmp_path: Path) -> None:
    result = await run(create_bash_tool(str(tmp_path)), {"command": r"printf '\377 ok\n'"})
    assert text_of(result) == "\ufffd ok"


async def test_already_aborted_signal_runs_nothing(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    marker = tmp_path / "marker"
    message = await run_error(
        create_bash_tool(str(tmp_path)), {"command": f"touch {marker}"}, signal=controller.signal
    )
    assert message == "Command aborted"
    assert not marker.exists()


# --- options and validation --------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan")])
def test_default_timeout_must_be_positive_and_finite(tmp_path: Path, value: float) -> None:
    with pytest.raises(ValueError, match="default_timeout"):
        create_bash_tool(str(tmp_path), default_timeout=value)


async def test_default_timeout_applies_when_the_model_gives_none(tmp_path: Path) -> None:
    definition = create_bash_tool(str(tmp_path), default_timeout=0.3)
    message = await run_error(definition, {"command": "echo begun; sleep 30"})
    assert message == "begun\n\nCommand timed out after 0.3 seconds"


@pytest.mark.parametrize(
    ("timeout", "reason"),
    [
        (0, "0 must be greater than 0"),
        (-1, "-1 must be greater than 0"),
        ("inf", '"inf" is not of type "number"'),
        ("-inf", '"-inf" is not of type "number"'),
        ("nan", '"nan" is not of type "number"'),
        ("soon", '"soon" is not of type "number"'),
        (float("inf"), "Infinity is not a finite number"),
        (float("-inf"), "-Infinity is not a finite number"),
        (float("nan"), "NaN is not a finite number"),
    ],
)
async def test_invalid_timeout_is_refused_by_validation(
    tmp_path: Path, timeout: object, reason: str
) -> None:
    marker = tmp_path / "marker"
    _, result = await agent_run(
        create_bash_tool(str(tmp_path)), {"command": f"touch {marker}", "timeout": timeout}
    )
    assert result.is_error
    assert text_of(result).startswith(
        f'Invalid arguments for tool "bash":\n  - timeout: {reason}\n'
    )
    assert not marker.exists()


async def test_numeric_string_timeout_is_coerced(tmp_path: Path) -> None:
    _, result = await agent_run(
        create_bash_tool(str(tmp_path)), {"command": "echo ok", "timeout": "5"}
    )
    assert not result.is_error
    assert text_of(result) == "ok"


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 0.0])
async def test_execute_refuses_a_bad_timeout_given_directly(tmp_path: Path, timeout: float) -> None:
    message = await run_error(
        create_bash_tool(str(tmp_path)), {"command": "true", "timeout": timeout}
    )
    assert message.startswith("timeout must be a finite number of seconds above 0")


# --- process trees -----------------------------------------------------------------------------
# These tests read PIDs that the command itself writes (``$!``, ``$$``). In the sandbox's PID
# namespace those are namespace PIDs that mean nothing out here, and there background processes
# end with the command, so these tests run with sandbox=False; test_bash_sandbox.py checks the
# same guarantees inside the sandbox by finding the processes from outside.

TREE_COMMAND = (
    "sleep 300 & echo $! > child.pid; "
    "sh -c 'sleep 300 & echo $! > grandchild.pid; wait' & "
    "while [ ! -s grandchild.pid ]; do sleep 0.01; done; echo ready; sleep 300"
)


def assert_tree_dead(tree: ProcessTree, tmp_path: Path) -> None:
    """Every process of the tree dies: the recorded ones, the shells, the foreground sleep."""
    recorded = {int((tmp_path / name).read_text()) for name in ("child.pid", "grandchild.pid")}
    assert recorded <= tree.pids()
    assert len(tree.pids()) >= 5  # reaper, bash (or the sleep it execs last), sleep x2, sh
    tree.assert_all_dead_soon()


async def test_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    tree = ProcessTree()
    updates: list[AgentToolResult] = []
    watcher = asyncio.create_task(tree.snapshot_when_ready(updates))
    message = await run_error(
        create_bash_tool(str(tmp_path), sandbox=False),
        {"command": TREE_COMMAND, "timeout": 2},
        updates=updates,
    )
    await watcher
    assert message == "ready\n\nCommand timed out after 2 seconds"
    assert_tree_dead(tree, tmp_path)


async def abort_when_ready(updates: list[AgentToolResult], controller: AbortController) -> None:
    """From a concurrent task: abort once the command has reported ``ready``."""
    await wait_until_ready(updates)
    controller.abort()


async def test_abort_kills_the_whole_tree(tmp_path: Path) -> None:
    tree = ProcessTree()
    controller = AbortController()
    updates: list[AgentToolResult] = []
    await_snapshot = asyncio.create_task(tree.snapshot_when_ready(updates))
    aborter = asyncio.create_task(abort_when_ready(updates, controller))
    message = await asyncio.wait_for(
        run_error(
            create_bash_tool(str(tmp_path), sandbox=False),
            {"command": TREE_COMMAND},
            signal=controller.signal,
            updates=updates,
        ),
        30,
    )
    await aborter
    await await_snapshot
    assert message == "ready\n\nCommand aborted"
    assert_tree_dead(tree, tmp_path)


async def test_cancelling_the_call_kills_the_whole_tree(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    task = asyncio.create_task(
        run(
            create_bash_tool(str(tmp_path), sandbox=False),
            {"command": TREE_COMMAND},
            updates=updates,
        )
    )
    await wait_until_ready(updates)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for name in ("child.pid", "grandchild.pid"):
        assert_dead_soon(int((tmp_path / name).read_text()))


RUN_AND_HANG_PY = """
import asyncio
from tether.tools.operations import MemoryOperations
from tether.tools.operations._local_exec import LocalExecOperations

asyncio.run(LocalExecOperations().exec(
    "sleep 300 & echo $! > child.pid; wait", cwd=".", on_output=lambda chunk: None
))
"""


async def test_the_tree_dies_when_the_tether_process_dies(tmp_path: Path) -> None:
    (tmp_path / "run_and_hang.py").write_text(RUN_AND_HANG_PY)
    host = await asyncio.create_subprocess_exec(sys.executable, "run_and_hang.py", cwd=tmp_path)
    try:
        child = await read_pid(tmp_path / "child.pid")
        assert not is_dead(child)
    finally:
        host.kill()
        await host.wait()
    assert_dead_soon(child)


DAEMONIZE_PY = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("daemon.pid", "w") as handle:
            handle.write(str(os.getpid()))
        time.sleep(300)
    os._exit(0)
os.wait()
"""


def daemon_command(tmp_path: Path, how: str) -> str:
    """A command that leaves a daemon in its own session, then waits (until killed)."""
    if how == "setsid":
        start = "setsid sh -c 'sleep 300 & echo $! > daemon.pid' &"
    else:
        (tmp_path / "daemonize.py").write_text(DAEMONIZE_PY)
        start = f"{sys.executable} daemonize.py;"
    return (
        f"echo $$ > shell.pid; {start} "
        "while [ ! -s daemon.pid ]; do sleep 0.01; done; echo ready; sleep 300"
    )


@pytest.mark.parametrize("how", ["setsid", "python-double-fork"])
@pytest.mark.parametrize("stop", ["timeout", "abort"])
async def test_double_forked_setsid_daemons_die_too(tmp_path: Path, how: str, stop: str) -> None:
    definition = create_bash_tool(str(tmp_path), sandbox=False)
    params: dict[str, Any] = {"command": daemon_command(tmp_path, how)}
    controller = AbortController()
    updates: list[AgentToolResult] = []
    tree = ProcessTree()
    watcher = asyncio.create_task(tree.snapshot_when_ready(updates))
    aborter = None
    if stop == "timeout":
        params["timeout"] = 3
    else:
        aborter = asyncio.create_task(abort_when_ready(updates, controller))
    try:
        message = await asyncio.wait_for(
            run_error(definition, params, signal=controller.signal, updates=updates), 30
        )
    finally:
        if aborter is not None:
            aborter.cancel()
    await watcher
    assert message.startswith("ready\n\nCommand ")
    daemon = int((tmp_path / "daemon.pid").read_text())
    shell = int((tmp_path / "shell.pid").read_text())
    try:
        assert {daemon, shell} <= tree.pids()  # the daemon is still in the reaper's tree
        tree.assert_all_dead_soon()
    finally:
        kill_if_alive(daemon)


async def test_the_daemon_really_leaves_the_session_and_its_parent(tmp_path: Path) -> None:
    """Guards the test above: the daemon is out of the shell's session and not its child."""
    controller = AbortController()
    definition = create_bash_tool(str(tmp_path), sandbox=False)
    task = asyncio.create_task(
        run_error(
            definition, {"command": daemon_command(tmp_path, "setsid")}, signal=controller.signal
        )
    )
    daemon = await read_pid(tmp_path / "daemon.pid")
    shell = await read_pid(tmp_path / "shell.pid")
    try:
        assert os.getsid(daemon) != os.getsid(shell)
        assert shell not in [p.pid for p in psutil.Process(daemon).parents()]
    finally:
        controller.abort()
        await asyncio.wait_for(task, 30)
    assert_dead_soon(daemon)


DAEMONS_HOLDING_THE_PIPE = {
    "subshell": ("(sleep 30 & echo $! > daemon.pid); echo hi", True),
    "nohup": ("nohup sleep 30 & echo $! > daemon.pid; echo hi", True),
    "still-writing": (
        "(while true; do echo tick; sleep 0.01; done & echo $! > daemon.pid); echo hi",
        False,
    ),
}


@pytest.mark.parametrize("case", list(DAEMONS_HOLDING_THE_PIPE))
async def test_a_daemon_holding_the_pipe_does_not_hang_the_call(tmp_path: Path, case: str) -> None:
    command, survives = DAEMONS_HOLDING_THE_PIPE[case]
    try:
        result = await asyncio.wait_for(
            run(create_bash_tool(str(tmp_path), sandbox=False), {"command": command}), 5
        )
        assert "hi" in text_of(result).split("\n")
        assert result.details["exit_code"] == 0
        if survives:  # a normal exit leaves the command's daemons alone
            assert not is_dead(int((tmp_path / "daemon.pid").read_text()))
    finally:
        kill_if_alive(int((tmp_path / "daemon.pid").read_text()))


# --- progress ----------------------------------------------------------------------------------


async def test_progress_is_throttled_and_ends_with_a_final_flush(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    command = "for i in $(seq 1 50); do echo line $i; sleep 0.02; done"
    started = time.monotonic()
    result = await run(create_bash_tool(str(tmp_path)), {"command": command}, updates=updates)
    elapsed = time.monotonic() - started
    expected = "\n".join(f"line {i}" for i in range(1, 51))
    assert text_of(result) == expected
    assert 1 < len(updates) < 50
    assert len(updates) <= elapsed / 0.1 + 2  # at most one update per 100 ms
    shown = [text_of(update).count("\n") for update in updates]
    assert shown == sorted(shown)  # each update is the output so far, growing
    assert text_of(updates[-1]) == expected


async def test_output_after_the_last_update_is_flushed(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    await run(
        create_bash_tool(str(tmp_path)), {"command": "echo a; sleep 0.03; echo b"}, updates=updates
    )
    assert 1 <= len(updates) <= 2
    assert text_of(updates[-1]) == "a\nb"


# --- large output ------------------------------------------------------------------------------


async def test_large_output_keeps_memory_bounded_and_spills_everything(tmp_path: Path) -> None:
    me = psutil.Process()
    before = me.memory_info().rss
    peak = before

    def sample(update: AgentToolResult) -> None:
        nonlocal peak
        peak = max(peak, me.memory_info().rss)

    updates = _Sampler(sample)
    command = "head -c 100000000 /dev/zero | tr '\\0' 'a' | fold -w 100"
    result = await run(create_bash_tool(str(tmp_path)), {"command": command}, updates=updates)
    peak = max(peak, me.memory_info().rss)
    path = result.details["full_output_path"]
    try:
        assert peak - before < 60 * 1024 * 1024
        assert result.details["truncated"] is True
        # fold writes 1,000,000 lines of 100 bytes, with a newline after all but the last
        assert os.path.getsize(path) == 100_000_000 + 999_999
        with open(path, "rb") as handle:
            assert handle.read(101) == b"a" * 100 + b"\n"
        text = text_of(result)
        assert text.endswith(f"[Showing last 506 lines of 1000000 (96.3MB). Full output: {path}]")
        assert text.split("\n")[0] == "a" * 100
    finally:
        os.unlink(path)


class _Sampler(list[AgentToolResult]):
    """An updates list that also runs a callback on every update."""

    def __init__(self, callback: Callable[[AgentToolResult], None]) -> None:
        super().__init__()
        self._callback = callback

    def append(self, update: AgentToolResult) -> None:
        self._callback(update)
        super().append(update)


async def test_line_cap_spills_with_a_notice(tmp_path: Path) -> None:
    result = await run(create_bash_tool(str(tmp_path)), {"command": "seq 1 3000"})
    path = result.details["full_output_path"]
    try:
        lines = text_of(result).split("\n")
        assert lines[0] == "1001"
        assert lines[1999] == "3000"
        assert lines[-1] == f"[Showing last 2000 lines of 3000 (13.6KB). Full output: {path}]"
        with open(path) as handle:
            assert handle.read() == "".join(f"{i}\n" for i in range(1, 3001))
    finally:
        os.unlink(path)


PIECES = [b"a", b"\n", "é".encode(), b"\xff", b"line\n", "€".encode()[:2]]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.builds(
            lambda piece, count: piece * count, st.sampled_from(PIECES), st.integers(1, 3000)
        ),
        max_size=12,
    )
)
def test_spilling_output_shows_what_truncate_tail_would(chunks: list[bytes]) -> None:
    output = SpillingOutput(LocalExecOperations().create_output_file, max_lines=7, max_bytes=100)
    for chunk in chunks:
        output.feed(chunk)
    view = output.view()
    output.close()
    full = b"".join(chunks)
    expected = truncate_tail(full.decode("utf-8", errors="replace"), 7, 100)
    try:
        assert view.text == expected.content
        assert view.total_lines == expected.total_lines
        assert view.truncated == expected.truncated
        if view.truncated:
            assert view.full_output_path is not None
            with open(view.full_output_path, "rb") as handle:
                assert handle.read() == full
        else:
            assert view.full_output_path is None
    finally:
        if view.full_output_path is not None:
            os.unlink(view.full_output_path)


# --- operations seam ---------------------------------------------------------------------------


async def test_env_is_passed_through_unchanged(tmp_path: Path) -> None:
    """Exactly the given environment: nothing added on the way (Python's locale coercion)."""
    chunks: list[bytes] = []
    result = await LocalExecOperations().exec(
        'echo "$X ${LC_CTYPE-unset} ${LC_ALL-unset}"',
        cwd=str(tmp_path),
        on_output=chunks.append,
        env={"PATH": "/usr/bin:/bin", "X": "1"},
    )
    assert result == ExecResult(0)
    assert b"".join(chunks) == b"1 unset unset\n"


async def test_tool_reaches_processes_only_through_its_operations(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    class ScriptedOperations:
        async def exec(self, command: str, **options: Any) -> ExecResult:
            calls.append({"command": command, **options})
            options["on_output"](b"partial\n")
            return ExecResult(None, timed_out=True)

    definition = create_bash_tool(f"{tmp_path}/sub/..", operations=ScriptedOperations())
    message = await run_error(definition, {"command": "make", "timeout": 1.5})
    assert message == "partial\n\nCommand timed out after 1.5 seconds"
    assert calls[0]["command"] == "make"
    assert calls[0]["cwd"] == str(tmp_path)
    assert calls[0]["timeout"] == 1.5


class MemoryShell:
    """A backend whose commands "run" elsewhere: ``exec`` prints ``lines`` lines, and the
    output file is made in a :class:`MemoryOperations` tree — the other machine's files."""

    def __init__(
        self,
        files: MemoryOperations,
        lines: int,
        *,
        fail: Exception | None = None,
        fail_on_close: bool = False,
    ):
        self.files = files
        self.lines = lines
        self.fail = fail
        self.fail_on_close = fail_on_close
        self.made: list[str] = []

    def create_output_file(self, prefix: str) -> MemoryOutputFile:
        if self.fail is not None:
            raise self.fail
        path = f"/remote-tmp/{prefix}{len(self.made)}.log"
        self.made.append(path)
        self.files.make_dir("/remote-tmp")
        return MemoryOutputFile(self.files, path, fail_on_close=self.fail_on_close)

    async def exec(self, command: str, **options: Any) -> ExecResult:
        for number in range(1, self.lines + 1):
            options["on_output"](f"{number}\n".encode())
        return ExecResult(0)


class MemoryOutputFile:
    def __init__(self, files: MemoryOperations, path: str, *, fail_on_close: bool = False):
        self.files, self.path, self.parts = files, path, list[bytes]()
        self.fail_on_close = fail_on_close

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def close(self) -> None:
        if self.fail_on_close:
            raise OSError(28, "No space left on device")
        self.files.files[self.path] = b"".join(self.parts)


async def test_the_spill_file_is_made_by_the_operations_where_commands_run(
    tmp_path: Path,
) -> None:
    files = MemoryOperations()
    shell = MemoryShell(files, 3000)
    result = await run(create_bash_tool(str(tmp_path), operations=shell), {"command": "remote"})
    path = "/remote-tmp/tether-bash-0.log"
    assert shell.made == [path] and result.details["full_output_path"] == path
    assert text_of(result).endswith(f"Full output: {path}]")
    read = create_read_tool("/", operations=files)
    shown = await run(read, {"path": path, "offset": 2999})
    assert text_of(shown) == "2999\n3000"


@pytest.mark.parametrize(
    "failure", [OSError(28, "No space left on device"), RuntimeError("backend is gone")]
)
async def test_an_output_file_that_cannot_be_made_is_reported_not_fatal(
    tmp_path: Path, failure: Exception
) -> None:
    shell = MemoryShell(MemoryOperations(), 3000, fail=failure)
    result = await run(create_bash_tool(str(tmp_path), operations=shell), {"command": "remote"})
    text = text_of(result)
    assert text.startswith("1001\n") and "3000\n" in text
    assert text.endswith(f"The full output could not be saved: {failure}]")
    assert result.details["full_output_path"] is None


async def test_a_spill_file_that_fails_to_save_on_close_is_not_named(tmp_path: Path) -> None:
    shell = MemoryShell(MemoryOperations(), 3000, fail_on_close=True)
    result = await run(create_bash_tool(str(tmp_path), operations=shell), {"command": "remote"})
    assert text_of(result).endswith(
        "The full output could not be saved: [Errno 28] No space left on device]"
    )
    assert result.details["full_output_path"] is None


async def test_operations_without_an_output_file_still_run_large_commands(tmp_path: Path) -> None:
    class OnlyExec:
        async def exec(self, command: str, **options: Any) -> ExecResult:
            options["on_output"](b"x\n" * 3000)
            return ExecResult(0)

    result = await run(create_bash_tool(str(tmp_path), operations=OnlyExec()), {"command": "c"})
    assert result.details["exit_code"] == 0
    assert text_of(result).endswith(
        "The full output could not be saved: OnlyExec cannot save a command's output]"
    )


# --- through the agent loop --------------------------------------------------------------------


async def test_runs_through_the_agent_loop(tmp_path: Path) -> None:
    events, result = await agent_run(
        create_bash_tool(str(tmp_path)), {"command": "echo from the loop"}
    )
    assert not result.is_error
    assert text_of(result) == "from the loop"
    assert result.details["exit_code"] == 0
    updates = [event for event in events if isinstance(event, ToolExecutionUpdate)]
    assert updates
    assert text_of(updates[-1].partial_result) == "from the loop"


async def test_a_failing_command_is_an_error_result_in_the_loop(tmp_path: Path) -> None:
    _, result = await agent_run(create_bash_tool(str(tmp_path)), {"command": "echo no; false"})
    assert result.is_error
    assert text_of(result) == "no\n\nCommand exited with code 1"
    assert result.details["exit_code"] == 1
    assert result.details["timed_out"] is False and result.details["aborted"] is False


async def test_a_timeout_result_carries_its_details_in_the_loop(tmp_path: Path) -> None:
    _, result = await agent_run(
        create_bash_tool(str(tmp_path)), {"command": "echo started; sleep 30", "timeout": 0.5}
    )
    assert result.is_error
    assert text_of(result) == "started\n\nCommand timed out after 0.5 seconds"
    assert result.details["timed_out"] is True
    assert result.details["exit_code"] is None


def test_a_one_second_default_timeout_reads_in_the_singular(tmp_path: Path) -> None:
    parameters = create_bash_tool(str(tmp_path), default_timeout=1).parameters
    assert isinstance(parameters, dict)
    assert parameters["properties"]["timeout"]["description"].endswith("Default: 1 second.")
