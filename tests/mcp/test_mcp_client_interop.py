"""The MCP client against servers shaped like the third-party ones tether met (issue 24 point 7):
tools that only run as MCP tasks, image results with repeated structured content, and a 2025
server that announces a changed tool list right after it was restarted."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.agent import run_tool_call
from tether.ai import ImageContent, TextContent, ToolCall, ToolResultMessage
from tether.gate import Gate
from tether.mcp import McpClients, load_server_configs, print_server_list, result_body

SDK_SERVERS = str(Path(__file__).with_name("sdk_servers.py"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("TETHER_HOME", str(path))
    return path


def _configure(home: Path, name: str, kind: str, env: str = "") -> None:
    (home / "config.toml").write_text(
        f'[mcp.servers.{name}]\ncommand = "{sys.executable}"\n'
        f'args = ["{SDK_SERVERS}", "{kind}"]\ntrust = "read_only"\n{env}',
        encoding="utf-8",
    )


@pytest.fixture
def clients() -> Iterator[list[tuple[McpClients, list[str]]]]:
    opened: list[tuple[McpClients, list[str]]] = []
    yield opened
    for client, _ in opened:
        client.close()


def _connect(opened: list[tuple[McpClients, list[str]]]) -> tuple[McpClients, list[str]]:
    messages: list[str] = []
    client = McpClients(load_server_configs(), notify=messages.append)
    opened.append((client, messages))
    client.connect()
    return client, messages


async def _call(client: McpClients, name: str) -> ToolResultMessage:
    gate = Gate("normal", None)
    return await run_tool_call(
        ToolCall("call-1", name, {}),
        client.tools(),
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call,
    )


async def test_a_tool_that_requires_task_augmentation_is_not_offered_and_why_is_said(home, clients):
    # tasks are of the 2025-11-25 protocol (an extension from 2026-07-28 on)
    _configure(home, "jobs", "tasking", 'env = { LEGACY = "1" }\n')
    client, messages = _connect(clients)
    offered = {tool.name for tool in client.tools()}
    assert offered == {"mcp__jobs__quick"}
    [said] = [m for m in messages if "'job'" in m]
    assert "left out" in said and 'execution.taskSupport "required"' in said
    assert "mcp__jobs__job" in client.known_tool_names()
    assert client.unknown_tool_names(["mcp__jobs__job", "mcp__jobs__nope"]) == ["mcp__jobs__nope"]
    quick = await _call(client, "mcp__jobs__quick")
    assert not quick.is_error and "quick answer" in result_body(quick.content[0].text)  # type: ignore[union-attr]
    listing = io.StringIO()
    print_server_list(listing)
    assert "mcp__jobs__quick  pinned" in listing.getvalue()
    assert "mcp__jobs__job  not offered: it requires MCP task augmentation" in listing.getvalue()


async def test_an_image_result_is_an_image_block_only(home, clients):
    _configure(home, "pics", "pictures")
    client, _ = _connect(clients)
    picture = await _call(client, "mcp__pics__picture")
    assert not picture.is_error
    [image] = picture.content
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    reading = await _call(client, "mcp__pics__reading")
    [text] = reading.content
    assert isinstance(text, TextContent)
    assert result_body(text.text).strip() == '{"celsius": 21}', "structured content not repeated"


async def test_a_changed_tool_list_announced_by_a_restarted_2025_server_is_taken(
    home, clients, tmp_path
):
    marker = tmp_path / "crashed"
    _configure(home, "phoenix", "phoenix", f'env = {{ CRASH_MARKER = "{marker}", LEGACY = "1" }}\n')
    client, messages = _connect(clients)
    assert client.servers["phoenix"].listed.keys() == {"crash", "grow"}
    crashed = await _call(client, "mcp__phoenix__crash")
    assert crashed.is_error and "died during the call" in result_body(crashed.content[0].text)  # type: ignore[union-attr]
    # the restarted server says its tools changed while it answers the first tools/list
    survived = await _call(client, "mcp__phoenix__crash")
    assert not survived.is_error
    for _ in range(100):
        if any('"reborn"' in m and "is new" in m for m in messages):
            break
        await asyncio.sleep(0.1)
    assert any('"reborn"' in m and "is new" in m for m in messages), messages
    assert "reborn" in client.servers["phoenix"].listed
    log = (home / "mcp-logs" / "phoenix.log").read_text(encoding="utf-8")
    assert "task group is not active" not in log
