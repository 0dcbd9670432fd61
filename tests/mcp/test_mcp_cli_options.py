"""The MCP client through the real ``tether`` executable (issue 24 point 7): ``--tools`` limits
MCP tools too, ``--no-mcp`` starts none, a denial of a ``trust = "ask"`` tool gives advice that
is true, and the terminal's one-line summary shows the output, not its fence."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)
from tests.cli.tmux import TmuxPane

SDK_SERVERS = str(Path(__file__).with_name("sdk_servers.py"))


def _configure(home: Path, *, trust: str = "read_only") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp.servers.slow]\ncommand = "{sys.executable}"\n'
        f'args = ["{SDK_SERVERS}", "slow"]\ntrust = "{trust}"\n',
        encoding="utf-8",
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    return home, project


def _offered(server: LoopbackServer) -> set[str]:
    return {tool["function"]["name"] for tool in server.requests[0].json().get("tools", [])}


@pytest.mark.parametrize(
    ("options", "offered"),
    [
        (
            (),
            {
                "read",
                "bash",
                "edit",
                "write",
                *(f"mcp__slow__{t}" for t in ("echo", "hang", "busy")),
            },
        ),
        (("--tools", "read"), {"read"}),
        (("--tools", "read,mcp__slow__echo"), {"read", "mcp__slow__echo"}),
        (("--tools", "mcp__slow__echo"), {"mcp__slow__echo"}),
        (("--no-mcp",), {"read", "bash", "edit", "write"}),
    ],
)
async def test_tools_and_no_mcp_choose_the_offered_mcp_tools(dirs, options, offered):
    home, project = dirs
    _configure(home)
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "hi", "--model", MODEL, "--no-sandbox", *options, home=home, cwd=project
        )
    assert done.code == 0, done.stderr
    assert _offered(server) - {"task_output", "task_list", "task_cancel"} == offered
    started = "pinned 3 tool(s) on first use" in done.stderr
    assert started == any(name.startswith("mcp__") for name in offered), done.stderr


async def test_tools_naming_one_servers_tool_starts_only_that_server(dirs):
    home, project = dirs
    _configure(home)
    with open(home / "config.toml", "a", encoding="utf-8") as config:
        config.write(
            f'[mcp.servers.other]\ncommand = "{sys.executable}"\nargs = ["{SDK_SERVERS}", "slow"]\n'
        )
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "hi", "--model", MODEL, "--no-sandbox", "--tools", "read,mcp__slow__echo",
            home=home, cwd=project,
        )  # fmt: skip
    assert done.code == 0, done.stderr
    assert _offered(server) - {"task_output", "task_list", "task_cancel"} == {
        "read",
        "mcp__slow__echo",
    }
    assert 'MCP server "slow": pinned' in done.stderr
    assert '"other"' not in done.stderr  # never started: none of its tools was asked for


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--tools", "read,mcp__slow__nope"), "tools of the MCP servers: mcp__slow__busy"),
        (("--tools", "read,reed"), "built-in tools: read, bash, edit, write, grep, find, ls"),
        (("--tools", "mcp__slow__echo", "--no-mcp"), "--no-mcp starts no MCP server"),
    ],
)
async def test_an_unknown_tool_names_the_known_ones(dirs, options, said):
    home, project = dirs
    _configure(home)
    async with LoopbackServer([]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "hi", "--model", MODEL, *options, home=home, cwd=project)
    assert done.code == 2, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert server.requests == []


async def test_a_trust_ask_tool_in_yolo_is_denied_with_advice_that_is_true(dirs):
    home, project = dirs
    _configure(home, trust="ask")
    replies = [
        tool_reply(("c1", "mcp__slow__echo", {"text": "hello"})),
        text_reply("denied, as expected"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "echo", "--model", MODEL, "--gate", "yolo", home=home, cwd=project
        )
    assert done.code == 0, done.stderr
    told = server.requests[1].json()["messages"][-1]["content"]
    assert "this tool always needs a person's approval" in told
    assert "every gate mode, --gate yolo included" in told
    assert "rerun with --gate yolo" not in told
    assert 'trust = "read_only"' in told


async def test_the_terminal_summary_of_an_mcp_result_is_its_first_output_line(dirs):
    home, project = dirs
    _configure(home)
    replies = [
        tool_reply(("c1", "mcp__slow__echo", {"text": "from the server"})),
        text_reply("The server echoed."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        pane = TmuxPane(width=100, height=30)
        pane.start(
            [TETHER, "--model", MODEL, "--no-sandbox"], cwd=str(project), env=environment(home)
        )
        try:
            await pane.wait_for("ctx 0%")
            pane.type("echo something")
            pane.send("Enter")
            await pane.wait_for("The server echoed.")
            screen = pane.history()
        finally:
            pane.close()
    assert "⎿ echo: from the server" in screen, screen
    assert "untrusted-tool-output" not in screen
    assert "untrusted-tool-output" in json.dumps(server.requests[1].json()["messages"][-1])
