"""MCP servers that never answer: start and request timeouts that name the server and the
reason, a run that goes on without the server, and no process of the server left behind —
whether tether ends normally, gives up on it, or is killed."""

from __future__ import annotations

import asyncio
import signal
import sys
import uuid
from pathlib import Path

import psutil
import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import MODEL, run_tether, spawn_tether, text_reply, write_models_toml

from tether.mcp import (
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    McpConfigError,
    load_server_configs,
)

SILENT_SERVER = str(Path(__file__).with_name("silent_server.py"))


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _sleepers(seconds: str) -> list[int]:
    """The living ``sleep SECONDS`` processes (``SECONDS`` is unique to one test)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if process.info["cmdline"] == ["sleep", seconds] and _alive(process.pid):
            found.append(process.pid)
    return found


async def _wait_until(condition, *, limit: float = 30.0) -> None:
    """Poll ``condition`` until it holds; the limit only stops a broken test from hanging."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition() and loop.time() < deadline:
        await asyncio.sleep(0.05)


def _silent_server(pidfile: Path, startup_timeout: float) -> str:
    """The config table of a server that never answers and writes its pids to ``pidfile``."""
    return f"""
[mcp.servers.silent]
command = "{sys.executable}"
args = ["{SILENT_SERVER}", "{pidfile}"]
startup_timeout = {startup_timeout}
"""


def _pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text(encoding="utf-8").split()]


async def test_a_run_goes_on_without_servers_that_never_answer_and_leaves_no_process(
    tmp_path: Path,
):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    seconds = f"1000.{uuid.uuid4().int % 10**9}"
    pidfile = tmp_path / "silent.pids"
    async with LoopbackServer([text_reply("Done without them.")]) as server:
        write_models_toml(home, server.url)
        stuck = (
            f'[mcp.servers.stuck]\ncommand = "sleep"\nargs = ["{seconds}"]\nstartup_timeout = 1\n'
        )
        (home / "config.toml").write_text(stuck + _silent_server(pidfile, 5), encoding="utf-8")
        done = await run_tether("-p", "hello", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert done.stdout == "Done without them.\n"
    assert (
        f'tether: MCP server "stuck" (sleep {seconds}): did not answer initialize within 1 s; '
        "tether stopped it" in done.stderr
    )
    assert 'MCP server "silent"' in done.stderr
    assert "did not answer initialize within 5 s; tether stopped it" in done.stderr
    assert done.stderr.count("its tools are left out of this run") == 2
    offered = [tool["function"]["name"] for tool in server.requests[0].json().get("tools", [])]
    assert not [name for name in offered if name.startswith("mcp__")]
    assert _sleepers(seconds) == []
    silent, child = _pids(pidfile)
    assert not _alive(silent) and not _alive(child)


async def test_tether_killed_while_a_server_never_answers_takes_the_server_tree_with_it(
    tmp_path: Path,
):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    pidfile = tmp_path / "silent.pids"
    async with LoopbackServer([text_reply("unreachable")]) as server:
        write_models_toml(home, server.url)
        (home / "config.toml").write_text(_silent_server(pidfile, 600), encoding="utf-8")
        process = await spawn_tether("-p", "hello", "--model", MODEL, home=home, cwd=project)
        await _wait_until(pidfile.exists)
        assert pidfile.exists(), "the silent server never started"
        silent, child = _pids(pidfile)
        assert _alive(silent) and _alive(child)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        await _wait_until(lambda: not _alive(silent) and not _alive(child))
    assert not _alive(silent) and not _alive(child)
    assert server.requests == []


async def test_mcp_list_names_the_reason_a_server_is_down(tmp_path: Path):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    seconds = f"1000.{uuid.uuid4().int % 10**9}"
    (home / "config.toml").write_text(
        f'[mcp.servers.stuck]\ncommand = "sleep"\nargs = ["{seconds}"]\nstartup_timeout = 0.5\n',
        encoding="utf-8",
    )
    done = await run_tether("mcp", "list", home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert (
        f'stuck  (sleep {seconds}; trust ask)  down: MCP server "stuck" (sleep {seconds}): '
        "did not answer initialize within 0.5 s; tether stopped it" in done.stdout
    )
    assert _sleepers(seconds) == []


async def test_a_missing_command_is_named_before_anything_starts(tmp_path: Path):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(
        '[mcp.servers.gone]\ncommand = "no-such-mcp-server-here"\n', encoding="utf-8"
    )
    done = await run_tether("mcp", "list", home=home, cwd=project)
    assert "cannot run no-such-mcp-server-here: not found on PATH" in done.stdout


def _configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str) -> None:
    monkeypatch.setenv("TETHER_HOME", str(tmp_path))
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")


def test_timeouts_have_defaults_and_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _configured(tmp_path, monkeypatch, '[mcp.servers.a]\ncommand = "x"\n')
    (server,) = load_server_configs()
    assert (server.startup_timeout, server.request_timeout) == (10.0, 60.0)
    assert (DEFAULT_STARTUP_TIMEOUT, DEFAULT_REQUEST_TIMEOUT) == (10.0, 60.0)
    (tmp_path / "config.toml").write_text(
        '[mcp.servers.a]\ncommand = "x"\nstartup_timeout = 2.5\nrequest_timeout = 600\n',
        encoding="utf-8",
    )
    (server,) = load_server_configs()
    assert (server.startup_timeout, server.request_timeout) == (2.5, 600.0)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('startup_timeout = "10"', "startup_timeout must be a number of seconds, got '10'"),
        ("request_timeout = true", "request_timeout must be a number of seconds, got True"),
        ("startup_timeout = 0", "startup_timeout must be more than 0 and at most 86400 seconds"),
        ("request_timeout = -1", "request_timeout must be more than 0 and at most 86400 seconds"),
        ("request_timeout = nan", "request_timeout must be more than 0 and at most 86400 seconds"),
        ("startup_timeout = inf", "startup_timeout must be more than 0 and at most 86400 seconds"),
    ],
)
def test_a_bad_timeout_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, message: str
):
    _configured(tmp_path, monkeypatch, f'[mcp.servers.a]\ncommand = "x"\n{line}\n')
    with pytest.raises(McpConfigError) as raised:
        load_server_configs()
    assert "[mcp.servers.a]" in str(raised.value) and message in str(raised.value)
