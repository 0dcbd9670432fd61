"""Everything the ``tether`` executable writes under its data directory is 0600 and every
directory 0700, whatever the umask: sessions, an appended session, an HTML export, MCP pins and
server logs, the MCP token and the interactive prompt history."""

from __future__ import annotations

import asyncio
import os
import shlex
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer

from .support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)
from .tmux import TmuxPane

BIN = os.path.dirname(sys.executable)
WRITTEN_BY_THE_TEST = {"models.toml", "config.toml"}


@pytest.fixture(params=[0o000, 0o022], ids=["umask000", "umask022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """Every process the test starts inherits this umask."""
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


async def _serve_mcp_over_http_once(home: Path, project: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        TETHER,
        *("mcp", "serve", "--transport", "http", "--port", "0", "--cwd", str(project)),
        env=environment(home),
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        said = ""
        while "bearer token" not in said:
            line = await asyncio.wait_for(process.stderr.readline(), 30)
            assert line, said
            said += line.decode()
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


async def _interactive_prompt_and_export(home: Path, project: Path, umask: int) -> None:
    pane = TmuxPane()
    command = shlex.join([TETHER, "--model", MODEL, "--no-sandbox"])
    pane.start(
        ["sh", "-c", f"umask {umask:03o}; exec {command}"], cwd=str(project), env=environment(home)
    )
    try:
        await pane.wait_for("ctx 0%")
        pane.type("say hi")
        pane.send("Enter")
        await pane.wait_for("Hi from the terminal.")
        pane.type(f"/export {home / 'exports' / 'interactive.html'}")
        pane.send("Enter")
        await pane.wait_for("Exported to")
        pane.send("C-d")
        await pane.wait_for("[exited] 0")
    finally:
        pane.close()


async def test_everything_under_the_data_directory_is_private(tmp_path, umask):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    replies = [
        tool_reply(("c1", "write", {"path": "out.txt", "content": "written\n"})),
        text_reply("Wrote it."),
        text_reply("Again."),
        text_reply("Hi from the terminal."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        (home / "config.toml").write_text(
            f'[mcp.servers.time]\ncommand = "{BIN}/mcp-server-time"\n', encoding="utf-8"
        )
        assert _mode(home / "models.toml") == 0o666 & ~umask, "the umask is in effect"
        options = ("--model", MODEL, "--gate", "yolo", "--mode", "json")
        first = await run_tether("-p", "write it", *options, home=home, cwd=project)
        assert first.code == 0, first.stderr
        session_id = first.json_lines()[0]["id"]
        again = await run_tether("-c", "-p", "again", "--model", MODEL, home=home, cwd=project)
        assert again.code == 0, again.stderr
        export = home / "exports" / "session.html"
        exported = await run_tether(
            "sessions", "export", session_id, "--html", str(export), home=home, cwd=project
        )
        assert exported.code == 0, exported.stderr
        await _serve_mcp_over_http_once(home, project)
        await _interactive_prompt_and_export(home, project, umask)
    assert (project / "out.txt").read_text(encoding="utf-8") == "written\n"

    written = {
        str(path.relative_to(home)): path
        for path in home.rglob("*")
        if path.name not in WRITTEN_BY_THE_TEST
    }
    for expected in (
        "mcp-token",
        "mcp-pins.json",
        "mcp-logs/time.log",
        "prompt_history",
        "exports/session.html",
        "exports/interactive.html",
    ):
        assert expected in written, sorted(written)
    sessions = [path for path in written.values() if path.suffix == ".jsonl"]
    assert len(sessions) == 2, "one from print mode (continued once), one interactive"
    wrong = {
        name: oct(_mode(path))
        for name, path in [(".", home), *written.items()]
        if _mode(path) != (0o700 if path.is_dir() else 0o600)
    }
    assert wrong == {}
