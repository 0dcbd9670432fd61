"""The SDK's own client against ``tether mcp serve``, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import psutil
import pytest
from mcp import Client, StdioServerParameters
from tests.mcp.http_serve import sdk_client, serve_http

from tether.mcp import NO_APPROVAL_CHANNEL

TETHER = os.path.join(os.path.dirname(sys.executable), "tether")
SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (path / "settings.ini").write_text(f"token = {SECRET}\n", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("outside\n", encoding="utf-8")
    return path


def under_test_env() -> dict[str, str] | None:
    """``PYTHONPATH`` passed on (the SDK gives a server a minimal environment), so that the
    server imports the code under test rather than another installed copy."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else None


def _tool_args(workspace: Path) -> list[str]:
    return ["--cwd", str(workspace), "--tools", "read,bash,ls,write", "--no-sandbox"]


@asynccontextmanager
async def _stdio(workspace: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=TETHER,
        args=["mcp", "serve", *_tool_args(workspace)],
        cwd=str(workspace),
        env={**(under_test_env() or {}), **env},
    )
    async with Client(params) as client:
        yield client


@asynccontextmanager
async def _http(workspace: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    async with (
        serve_http(workspace.parent / "home", *_tool_args(workspace), env=env) as server,
        sdk_client(server.url, server.token()) as client,
    ):
        yield client


Connect = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, workspace: Path) -> Connect:
    """Opens a client in the test's own task (the SDK's cancel scopes must not cross tasks,
    as they would between an async fixture's setup and teardown); keyword arguments are added
    to the server's environment."""
    transport = _stdio if request.param == "stdio" else _http
    return lambda **env: transport(workspace, env)


def _text(result: object) -> str:
    return "".join(getattr(block, "text", "") for block in getattr(result, "content", []))


async def test_tools_are_listed_without_x_review_and_annotated_from_governance(connect: Connect):
    async with connect() as client:
        listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        assert set(tools) == {"read", "bash", "ls", "write"}
        assert "x-review" not in repr([tool.input_schema for tool in listing.tools])
        assert tools["read"].input_schema["required"] == ["path"]
        for tool in listing.tools:  # the host's model cannot be the person confirm asks for
            assert "confirm" not in tool.input_schema["properties"], tool.name
        for name in ("read", "ls"):
            annotations = tools[name].annotations
            assert annotations is not None
            assert annotations.read_only_hint is True
            assert annotations.destructive_hint is False
        for name in ("bash", "write"):
            annotations = tools[name].annotations
            assert annotations is not None
            assert annotations.read_only_hint is False
            assert annotations.destructive_hint is True


async def test_only_the_tools_capability_is_advertised(connect: Connect):
    async with connect() as client:
        capabilities = client.server_capabilities
        assert capabilities is not None
        assert capabilities.tools is not None
        served = {k for k, v in capabilities.model_dump().items() if v is not None}
        assert served == {"tools"}


async def test_read_runs_through_the_pipeline(connect: Connect):
    async with connect() as client:
        result = await client.call_tool("read", {"path": "notes.txt"})
        assert not result.is_error
        assert _text(result) == "alpha\nbeta"


async def test_invalid_arguments_are_an_error_result(connect: Connect):
    async with connect() as client:
        result = await client.call_tool("read", {"offset": 2})
        assert result.is_error
        assert "path" in _text(result)


async def test_a_secret_in_a_file_is_masked(connect: Connect):
    async with connect() as client:
        result = await client.call_tool("read", {"path": "settings.ini"})
        assert not result.is_error
        assert SECRET not in _text(result)
        assert "REDACTED" in _text(result)


async def test_a_command_the_policy_denies_is_an_error_with_the_reason(connect: Connect):
    async with connect() as client:
        result = await client.call_tool("bash", {"command": "rm -rf ~"})
        assert result.is_error
        assert "Denied by policy" in _text(result)
        assert "destruction of the system or home" in _text(result)


async def test_the_hosts_confirmation_is_not_an_approval(connect: Connect):
    async with connect() as client:
        result = await client.call_tool("read", {"path": "../outside.txt", "confirm": False})
        assert result.is_error
        assert NO_APPROVAL_CHANNEL in _text(result)
        forced = await client.call_tool("read", {"path": "notes.txt", "confirm": True})
        assert forced.is_error
        assert "confirm=true" in _text(forced)


async def test_a_long_bash_sends_progress(connect: Connect):
    async with connect() as client:
        seen: list[str] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append(message or "")

        result = await client.call_tool(
            "bash",
            {"command": "echo one; sleep 0.4; echo two; sleep 0.4; echo three"},
            progress_callback=progress,
        )
        assert not result.is_error, _text(result)
        assert _text(result).split() == ["one", "two", "three"]
        assert "one" in seen and "two" in seen


async def test_a_silent_call_sends_heartbeats_while_it_runs(connect: Connect):
    async with connect(TETHER_MCP_HEARTBEAT_S="0.2") as client:
        seen: list[tuple[float, str]] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append((value, message or ""))

        result = await client.call_tool(
            "bash", {"command": "sleep 1.5; echo done"}, progress_callback=progress
        )
        assert not result.is_error, _text(result)
        assert _text(result).strip() == "done"
        heartbeats = [message for _, message in seen if message.startswith("still running")]
        assert len(heartbeats) >= 2, seen
        values = [value for value, _ in seen]
        assert values == sorted(set(values)), "progress must rise with each notification"


def _sleepers() -> list[psutil.Process]:
    """The two ``sleep`` processes of the cancelled command (their durations are the marker)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if cmdline[-2:] in (["sleep", "987.5"], ["sleep", "988.5"]):
            found.append(process)
    return found


async def test_cancelling_a_call_kills_the_bash_tree(connect: Connect):
    async with connect() as client:
        started = asyncio.Event()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if "started" in (message or ""):
                started.set()

        call = asyncio.ensure_future(
            client.call_tool(
                "bash",
                {"command": "echo started; sleep 987.5 | sleep 988.5"},
                progress_callback=progress,
            )
        )
        await asyncio.wait_for(started.wait(), 20)
        await asyncio.sleep(0.2)
        assert len(_sleepers()) == 2
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(100):
            if not _sleepers():
                break
            await asyncio.sleep(0.1)
        assert _sleepers() == []
        result = await client.call_tool("read", {"path": "notes.txt"})
        assert not result.is_error
