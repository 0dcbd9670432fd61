"""``tether -p`` end to end: a scripted model calls a tool of a configured MCP server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import MODEL, run_tether, text_reply, tool_reply, write_models_toml

BIN = os.path.dirname(sys.executable)


async def test_print_mode_calls_an_mcp_tool_and_the_model_gets_its_result(tmp_path: Path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    replies = [
        tool_reply(("c1", "mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})),
        text_reply("It is late in Tokyo."),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        (home / "config.toml").write_text(
            f"""
[mcp.servers.time]
command = "{BIN}/mcp-server-time"
trust = "read_only"
""",
            encoding="utf-8",
        )
        done = await run_tether(
            "-p", "what time is it in Tokyo?", "--model", MODEL, home=home, cwd=project
        )
    assert done.code == 0, done.stderr
    assert done.stdout == "It is late in Tokyo.\n"
    first = server.requests[0].json()
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert "mcp__time__get_current_time" in offered
    tool_message = server.requests[1].json()["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "Asia/Tokyo" in tool_message["content"]
    assert "untrusted-tool-output" in tool_message["content"]
    assert "pinned 2 tool(s) on first use" in done.stderr


async def test_mcp_list_and_accept_through_the_executable(tmp_path: Path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    done = await run_tether("mcp", "list", home=home, cwd=project)
    assert done.code == 0 and "No MCP servers configured" in done.stdout
    (home / "config.toml").write_text(
        f'[mcp.servers.time]\ncommand = "{BIN}/mcp-server-time"\n', encoding="utf-8"
    )
    done = await run_tether("mcp", "list", home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert "time  (" in done.stdout and "trust ask)  connected" in done.stdout
    assert "mcp__time__get_current_time  pinned  readOnlyHint" in done.stdout
    missing = await run_tether("mcp", "accept", "nope", home=home, cwd=project)
    assert missing.code == 2
    assert 'no MCP server "nope" is configured' in missing.stderr
