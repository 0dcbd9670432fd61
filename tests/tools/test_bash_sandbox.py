"""The bash tool in its bubblewrap sandbox, against the real ``bwrap``: what a
command may write, read and reach, its PID namespace, whole trees dying on timeout, abort and
cancel, and how ``sandbox=None | True | False`` is decided and reported."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tether.agent import ToolError
from tether.ai import AbortController
from tether.tools import bash as bash_module
from tether.tools.bash import create_bash_tool
from tether.tools.operations._local_exec import LocalExecOperations
from tether.tools.operations._protocols import ExecResult
from tether.tools.operations._sandbox import BubblewrapSandbox, _probe_bubblewrap

from .test_bash import assert_dead_soon, is_dead, run, run_error, text_of

requires_bwrap = pytest.mark.skipif(
    not BubblewrapSandbox.available(),
    reason="bubblewrap cannot make a sandbox here: bwrap is missing or this kernel forbids "
    "the namespaces it needs (install the Debian package bubblewrap)",
)

# --- helpers -----------------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace that the sandbox shows (unlike anything under /tmp,
    which is private inside), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="tether-sandbox-test-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def sandboxed(
    command: str, sandbox: BubblewrapSandbox, cwd: Path | None = None
) -> tuple[ExecResult, str]:
    chunks: list[bytes] = []
    result = await LocalExecOperations(sandbox=sandbox).exec(
        command, cwd=str(cwd or sandbox.workspace), on_output=chunks.append, timeout=20
    )
    return result, b"".join(chunks).decode()


@pytest.fixture
def bubblewrap_unavailable(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(BubblewrapSandbox, "available", staticmethod(lambda: False))
    bash_module._warn_unsandboxed_once.cache_clear()
    yield
    bash_module._warn_unsandboxed_once.cache_clear()


# --- what a command may write --------------------------------------------------------------------


@requires_bwrap
async def test_writes_land_only_in_the_workspace(workspace: Path, outside: Path) -> None:
    (outside / "readable.txt").write_text("seen\n")
    sandbox = BubblewrapSandbox(str(workspace))
    result, output = await sandboxed(f"touch {outside}/new", sandbox)
    assert result.exit_code != 0
    assert "Read-only file system" in output
    assert not (outside / "new").exists()
    result, output = await sandboxed(f"cat {outside}/readable.txt", sandbox)
    assert (result.exit_code, output) == (0, "seen\n")  # outside is read-only, not invisible
    result, _ = await sandboxed("touch /etc/tether-test", sandbox)
    assert result.exit_code != 0
    assert not os.path.exists("/etc/tether-test")
    result, _ = await sandboxed("echo made > inside.txt && mkdir -p sub/dir", sandbox)
    assert result.exit_code == 0
    assert (workspace / "inside.txt").read_text() == "made\n"
    assert (workspace / "sub" / "dir").is_dir()


@requires_bwrap
async def test_tmp_is_private_and_writable(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "host-file").write_text("host")
    command = f"test ! -e {tmp_path}/host-file && echo scratch > /tmp/scratch && cat /tmp/scratch"
    result, output = await sandboxed(command, BubblewrapSandbox(str(workspace)))
    assert (result.exit_code, output) == (0, "scratch\n")
    assert not os.path.exists("/tmp/scratch")


@requires_bwrap
async def test_extra_writable_directories_are_writable(workspace: Path, outside: Path) -> None:
    sandbox = BubblewrapSandbox(str(workspace), extra_writable=[str(outside)])
    result, _ = await sandboxed(f"echo cached > {outside}/cache", sandbox)
    assert result.exit_code == 0
    assert (outside / "cache").read_text() == "cached\n"


@requires_bwrap
async def test_no_capabilities_even_as_root(workspace: Path) -> None:
    """bwrap run by root keeps every capability unless told otherwise, and with CAP_SYS_ADMIN
    ``mount -o remount,rw /`` would undo the read-only root."""
    planted = f"/etc/tether-test-{secrets.randbelow(10**9)}"
    command = f"grep CapEff /proc/self/status; mount -o remount,rw / 2>/dev/null; touch {planted}"
    try:
        result, output = await sandboxed(command, BubblewrapSandbox(str(workspace)))
        assert output.startswith("CapEff:\t0000000000000000\n")
        assert result.exit_code != 0
        assert not os.path.exists(planted)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(planted)


# --- what a command may read and reach -----------------------------------------------------------


def make_home(root: Path) -> Path:
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (home / ".netrc").write_text("machine example.com password hunter2\n")
    (home / "notes.txt").write_text("plain\n")
    return home


@requires_bwrap
async def test_secrets_in_home_are_hidden(workspace: Path, outside: Path) -> None:
    home = make_home(outside)
    sandbox = BubblewrapSandbox(str(workspace), home=str(home))
    result, output = await sandboxed('echo "$HOME"; cat ~/notes.txt', sandbox)
    assert (result.exit_code, output) == (0, f"{home}\nplain\n")  # the home itself is visible
    result, output = await sandboxed("cat ~/.ssh/id_rsa", sandbox)
    assert result.exit_code != 0
    assert "PRIVATE KEY" not in output
    result, output = await sandboxed("ls -A ~/.ssh; cat ~/.netrc", sandbox)
    assert (result.exit_code, output) == (0, "")


@requires_bwrap
async def test_secrets_stay_hidden_when_the_workspace_is_the_home(outside: Path) -> None:
    home = make_home(outside)
    sandbox = BubblewrapSandbox(str(home), home=str(home))
    result, output = await sandboxed("ls -A .ssh; cat .netrc; touch .ssh/planted", sandbox)
    assert result.exit_code != 0  # the cover over .ssh is read-only too
    assert "hunter2" not in output
    assert output.splitlines()[0].startswith("touch:")
    assert os.listdir(home / ".ssh") == ["id_rsa"]
    result, _ = await sandboxed("echo ok > notes.txt", sandbox)
    assert result.exit_code == 0
    assert (home / "notes.txt").read_text() == "ok\n"


@requires_bwrap
async def test_a_symlinked_secret_directory_hides_its_target_too(
    workspace: Path, outside: Path
) -> None:
    home = make_home(outside)
    store = outside / "store"
    store.mkdir()
    (store / "credentials").write_text("aws_secret_access_key=abc\n")
    (home / ".aws").symlink_to(store)
    sandbox = BubblewrapSandbox(str(workspace), home=str(home))
    result, output = await sandboxed(f"cat ~/.aws/credentials {store}/credentials", sandbox)
    assert result.exit_code != 0
    assert "aws_secret" not in output


@requires_bwrap
async def test_system_secrets_and_host_sockets_are_hidden(workspace: Path) -> None:
    result, output = await sandboxed(
        "cat /etc/shadow; ls -A /run", BubblewrapSandbox(str(workspace))
    )
    assert (result.exit_code, output) == (0, "")


@requires_bwrap
async def test_hidden_paths_replace_the_defaults(workspace: Path, outside: Path) -> None:
    home = make_home(outside)
    sandbox = BubblewrapSandbox(str(workspace), home=str(home), hidden_paths=["~/notes.txt"])
    result, output = await sandboxed("cat ~/notes.txt; cat ~/.ssh/id_rsa", sandbox)
    assert (result.exit_code, output) == (0, "-----BEGIN OPENSSH PRIVATE KEY-----\n")


SECRET_ENV = {
    "OPENAI_API_KEY": "sk-test-0123",
    "GITHUB_TOKEN": "ghp_test",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "DB_PASSWORD": "hunter2",
    "npm_config__auth": "dXNlcjpwYXNz",
    "DATABASE_URL": "postgres://app:p/w@db.internal/app",
    "MYSQL_PWD": "mysql-secret",
    "GH_PAT": "pat-secret",
    "SLACK_WEBHOOK_URL": "https://hooks.example/services/T0/B0/webhook-secret",
    "AZURE_STORAGE_CONNECTION_STRING": "AccountName=a;AccountKey=azure-secret",
    "GIT_REMOTE": "https://ghp_0123456789abcdef0123456789abcdef0123@github.com/o/r.git",
    "SEVERAL_URLS": "http://ok.example https://user:url-secret@db.example",
}
PLAIN_ENV = {"MY_SETTING": "kept", "PROXY_URL": "http://proxy.internal:3128", "KEYBOARD": "us"}
PRINT_BOTH_ENVIRONMENTS = "env; echo ---; tr '\\0' '\\n' < /proc/1/environ"


@requires_bwrap
async def test_secret_environment_variables_never_reach_the_sandbox(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the command nor bwrap (PID 1 inside, whose environment anyone there can read)."""
    for name, value in (SECRET_ENV | PLAIN_ENV).items():
        monkeypatch.setenv(name, value)
    result, output = await sandboxed(PRINT_BOTH_ENVIRONMENTS, BubblewrapSandbox(str(workspace)))
    command_env, pid1_env = output.split("---\n")
    assert result.exit_code == 0
    assert "PATH=" in pid1_env  # /proc/1/environ was really read
    for listing in (command_env, pid1_env):
        seen = dict(line.split("=", 1) for line in listing.splitlines() if "=" in line)
        assert not set(SECRET_ENV) & set(seen)
        assert {name: seen.get(name) for name in PLAIN_ENV} == PLAIN_ENV
        assert seen["PATH"] == os.environ["PATH"]
    assert not [value for value in SECRET_ENV.values() if value in output]


@requires_bwrap
async def test_a_given_environment_is_filtered_too(workspace: Path) -> None:
    chunks: list[bytes] = []
    result = await LocalExecOperations(sandbox=BubblewrapSandbox(str(workspace))).exec(
        PRINT_BOTH_ENVIRONMENTS,
        cwd=str(workspace),
        on_output=chunks.append,
        env={"PATH": os.environ["PATH"], "ONLY_HERE_TOKEN": "given-secret", "KEPT": "1"},
    )
    output = b"".join(chunks).decode()
    assert result.exit_code == 0
    assert "given-secret" not in output
    assert output.count("KEPT=1") == 2


@requires_bwrap
async def test_home_path_and_locale_are_never_withheld(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("MY_SETTING", "withheld by the catch-all")
    sandbox = BubblewrapSandbox(str(workspace), hidden_env=["*"])
    result, output = await sandboxed("env | sort", sandbox)
    names = {line.split("=", 1)[0] for line in output.splitlines()}
    assert result.exit_code == 0
    assert {"HOME", "PATH", "LANG"} <= names
    assert "MY_SETTING" not in names


@requires_bwrap
async def test_hidden_env_replaces_the_defaults(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123")
    monkeypatch.setenv("INTERNAL_ENDPOINT", "https://internal")
    sandbox = BubblewrapSandbox(str(workspace), hidden_env=["internal_*"])
    result, output = await sandboxed(
        'echo "${OPENAI_API_KEY-unset} ${INTERNAL_ENDPOINT-unset}"', sandbox
    )
    assert (result.exit_code, output) == (0, "sk-test-0123 unset\n")


CONNECT = (
    "{python} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""
)


@requires_bwrap
@pytest.mark.parametrize("allow_network", [False, True])
async def test_network_is_off_unless_allowed(workspace: Path, allow_network: bool) -> None:
    connections: list[int] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        writer.close()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        sandbox = BubblewrapSandbox(str(workspace), allow_network=allow_network)
        result, output = await sandboxed(CONNECT.format(python=sys.executable, port=port), sandbox)
    finally:
        server.close()
        await server.wait_closed()
    if allow_network:
        assert (result.exit_code, output) == (0, "")
        assert connections == [1]
    else:
        assert result.exit_code != 0
        assert "ConnectionRefusedError" in output  # the sandbox's own loopback has no server
        assert connections == []


@requires_bwrap
async def test_own_pid_namespace(workspace: Path) -> None:
    command = (
        f"echo $$; ls /proc | grep -c '^[0-9]'; kill -0 {os.getpid()} 2>/dev/null || echo hidden"
    )
    result, output = await sandboxed(command, BubblewrapSandbox(str(workspace)))
    shell_pid, process_count, verdict = output.split()
    assert result.exit_code == 0
    assert int(shell_pid) < 10
    assert int(process_count) < 10
    assert verdict == "hidden"


# --- process trees -------------------------------------------------------------------------------

DAEMONIZE_PY = """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("daemon.ready", "w").write("1")
        time.sleep(300)
    os._exit(0)
os.wait()
"""


def cmdline_of(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def processes_with(token: str) -> list[psutil.Process]:
    """Living processes (not this one) whose command line contains ``token``."""
    return [
        process
        for process in psutil.process_iter()
        if process.pid != os.getpid()
        and token in " ".join(cmdline_of(process))
        and not is_dead(process.pid)
    ]


async def wait_for_processes(token: str, count: int, name: str) -> None:
    deadline = time.monotonic() + 10
    while len([p for p in processes_with(token) if cmdline_of(p)[:1] == [name]]) < count:
        assert time.monotonic() < deadline, f"{count} {name} processes never came up"
        await asyncio.sleep(0.01)


def kill_all(processes: list[psutil.Process]) -> None:
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.kill()


class Tree:
    """A command whose processes — a background child, a setsid daemon and a double-forked
    Python daemon in its own session — all carry a random token in their command lines, so the
    test can find the whole tree from outside, where namespace PIDs mean nothing."""

    def __init__(self, workspace: Path) -> None:
        self.token = str(secrets.randbelow(10**9))
        script = f"daemon_{self.token}.py"
        (workspace / script).write_text(DAEMONIZE_PY)
        sleep = f"sleep 300.{self.token}"
        self.command = (
            f"{sleep} & setsid sh -c '{sleep} &'; {sys.executable} {script}; "
            f"while [ ! -s daemon.ready ]; do sleep 0.01; done; echo ready; {sleep}; wait"
        )

    def processes(self) -> list[psutil.Process]:
        return processes_with(self.token)

    async def wait_until_running(self) -> list[psutil.Process]:
        """The tree once all three sleeps and the Python daemon run; checks the daemon left the
        shell's session and is no longer the shell's descendant."""
        deadline = time.monotonic() + 10
        while True:
            found = self.processes()
            sleeps = [p for p in found if cmdline_of(p)[:1] == ["sleep"]]
            daemons = [p for p in found if cmdline_of(p)[-1:] == [f"daemon_{self.token}.py"]]
            if len(sleeps) == 3 and len(daemons) == 1:
                break
            assert time.monotonic() < deadline, f"the tree never came up: {found}"
            await asyncio.sleep(0.02)
        shells = [p for p in found if p.name() == "bash"]
        assert len(shells) == 1
        assert os.getsid(daemons[0].pid) != os.getsid(shells[0].pid)
        assert shells[0] not in daemons[0].parents()
        return found


@requires_bwrap
@pytest.mark.parametrize("stop", ["timeout", "abort", "cancel"])
async def test_the_whole_tree_dies_inside_the_sandbox(workspace: Path, stop: str) -> None:
    tree = Tree(workspace)
    definition = create_bash_tool(str(workspace))
    params: dict[str, Any] = {"command": tree.command}
    if stop == "timeout":
        params["timeout"] = 2
    controller = AbortController()
    call = asyncio.create_task(run(definition, params, signal=controller.signal))
    try:
        running = await tree.wait_until_running()
        if stop == "abort":
            controller.abort()
        elif stop == "cancel":
            call.cancel()
        if stop == "cancel":
            with pytest.raises(asyncio.CancelledError):
                await call
        else:
            with pytest.raises(ToolError) as caught:
                await asyncio.wait_for(call, 30)
            ending = "Command aborted" if stop == "abort" else "Command timed out after 2 seconds"
            assert str(caught.value) == f"ready\n\n{ending}"
            assert caught.value.details["sandboxed"] is True
        for process in running:
            assert_dead_soon(process.pid)
        assert [p for p in tree.processes() if not is_dead(p.pid)] == []
    finally:
        call.cancel()
        kill_all(tree.processes())


RUN_AND_HANG_PY = """
import asyncio, sys
from tether.tools.operations._local_exec import LocalExecOperations
from tether.tools.operations._sandbox import BubblewrapSandbox

asyncio.run(LocalExecOperations(sandbox=BubblewrapSandbox(".")).exec(
    sys.argv[1], cwd=".", on_output=lambda chunk: None
))
"""


@requires_bwrap
async def test_the_tree_dies_when_the_tether_process_dies(workspace: Path) -> None:
    tree = Tree(workspace)
    (workspace / "run_and_hang.py").write_text(RUN_AND_HANG_PY)
    host = await asyncio.create_subprocess_exec(
        sys.executable, "run_and_hang.py", tree.command, cwd=workspace
    )
    try:
        running = await tree.wait_until_running()
    finally:
        host.kill()
        await host.wait()
    try:
        for process in running:
            assert_dead_soon(process.pid)
    finally:
        kill_all(tree.processes())


@requires_bwrap
async def test_background_processes_end_with_the_command(workspace: Path) -> None:
    """Unlike unsandboxed runs, nothing outlives the command: its PID namespace goes with it."""
    token = f"300.{secrets.randbelow(10**9)}"
    command = f"(sleep {token} &); nohup sleep {token} >/dev/null 2>&1 & sleep 0.5; echo hi"
    call = asyncio.create_task(run(create_bash_tool(str(workspace)), {"command": command}))
    try:
        await wait_for_processes(token, 2, "sleep")
        started = processes_with(token)
        result = await asyncio.wait_for(call, 5)
        assert text_of(result) == "hi"
        for process in started:
            assert_dead_soon(process.pid)
    finally:
        kill_all(processes_with(token))


@requires_bwrap
async def test_exit_codes_and_large_output_pass_through(workspace: Path) -> None:
    definition = create_bash_tool(str(workspace))
    assert await run_error(definition, {"command": "echo out; exit 3"}) == (
        "out\n\nCommand exited with code 3"
    )
    assert await run_error(definition, {"command": "kill -9 $$"}) == "Command exited with code 137"
    result = await run(definition, {"command": "seq 1 3000"})
    path = result.details["full_output_path"]
    try:  # the spill file is written by tether, outside the sandbox's private /tmp
        with open(path) as handle:
            assert handle.read() == "".join(f"{i}\n" for i in range(1, 3001))
    finally:
        os.unlink(path)


# --- sandbox=None | True | False -----------------------------------------------------------------


@requires_bwrap
@pytest.mark.parametrize("sandbox", [None, True])
async def test_sandbox_none_and_true_sandbox_when_available(
    workspace: Path, sandbox: bool | None
) -> None:
    definition = create_bash_tool(str(workspace), sandbox=sandbox)
    assert definition.metadata["sandboxed"] is True
    assert "There is no network." in definition.description
    message = await run_error(definition, {"command": "touch /etc/tether-test"})
    assert "Read-only file system" in message
    result = await run(definition, {"command": "touch made"})
    assert result.details["sandboxed"] is True
    assert (workspace / "made").exists()


async def test_sandbox_false_never_sandboxes(workspace: Path, outside: Path) -> None:
    definition = create_bash_tool(str(workspace), sandbox=False)
    assert definition.metadata["sandboxed"] is False
    assert "sandbox" not in definition.description
    result = await run(definition, {"command": f"touch {outside}/written"})
    assert result.details["sandboxed"] is False
    assert (outside / "written").exists()


async def test_without_bubblewrap_none_falls_back_and_warns_once(
    workspace: Path, outside: Path, bubblewrap_unavailable: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="tether.tools.bash"):
        definition = create_bash_tool(str(workspace))
        create_bash_tool(str(workspace), sandbox=None)
    assert [record.getMessage() for record in caplog.records] == [
        "bubblewrap not available: commands run unsandboxed and need approval"
    ]
    assert definition.metadata["sandboxed"] is False
    result = await run(definition, {"command": f"touch {outside}/written"})
    assert result.details["sandboxed"] is False
    assert (outside / "written").exists()


def test_without_bubblewrap_true_is_refused(workspace: Path, bubblewrap_unavailable: None) -> None:
    with pytest.raises(ValueError, match="bubblewrap is not available"):
        create_bash_tool(str(workspace), sandbox=True)


def test_given_operations_decide_and_must_agree(workspace: Path) -> None:
    sandbox = BubblewrapSandbox(str(workspace), allow_network=True)
    with_sandbox = LocalExecOperations(sandbox=sandbox)
    definition = create_bash_tool(str(workspace), operations=with_sandbox)
    assert definition.metadata["sandboxed"] is True
    assert "sandbox" in definition.description
    assert "network" not in definition.description
    unsandboxed = create_bash_tool(str(workspace), operations=LocalExecOperations())
    assert unsandboxed.metadata["sandboxed"] is False
    with pytest.raises(ValueError, match="sandbox=True"):
        create_bash_tool(str(workspace), operations=LocalExecOperations(), sandbox=True)
    with pytest.raises(ValueError, match="sandbox=False"):
        create_bash_tool(str(workspace), operations=with_sandbox, sandbox=False)


def test_metadata_reaches_the_agent_tool(workspace: Path) -> None:
    from tether.tools._definition import wrap_tool_definition

    tool = wrap_tool_definition(create_bash_tool(str(workspace), sandbox=False))
    assert tool.metadata["sandboxed"] is False


# --- availability and the command line -----------------------------------------------------------


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    _probe_bubblewrap.cache_clear()
    yield
    _probe_bubblewrap.cache_clear()


def test_available_needs_bwrap_on_path(
    fresh_probe: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert BubblewrapSandbox.available() is False


def test_available_needs_a_sandbox_that_really_starts(
    fresh_probe: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bwrap that is installed but cannot create namespaces (as on a kernel without user
    namespaces) is not available."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    assert BubblewrapSandbox.available() is False


def test_the_command_line_layers_mounts_in_order(workspace: Path, outside: Path) -> None:
    home = make_home(outside)
    argv = BubblewrapSandbox(str(workspace), home=str(home)).wrap(["bash", "-c", "true"], cwd="/")
    assert argv[-4:] == ["--", "bash", "-c", "true"]
    for flag in ("--die-with-parent", "--unshare-pid", "--unshare-net", "--new-session"):
        assert flag in argv
    root = argv.index("--ro-bind")
    binding = argv.index("--bind")
    assert argv[root + 1 : root + 3] == ["/", "/"]
    assert argv[binding + 1 : binding + 3] == [str(workspace), str(workspace)]
    assert root < argv.index("/tmp") < binding < argv.index(f"{home}/.ssh")
    assert argv[argv.index(f"{home}/.netrc") - 2 :][:2] == ["--dev-bind", "/dev/null"]
    assert f"{home}/.aws" not in argv  # only paths that exist are hidden
    assert argv[argv.index("--chdir") + 1] == "/"
    networked = BubblewrapSandbox(str(workspace), allow_network=True).wrap(["true"])
    assert "--unshare-net" not in networked
