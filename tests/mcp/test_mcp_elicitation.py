"""``tether mcp serve`` asks a person through MCP elicitation: the SDK's own client, declaring the
capability, approves (the call runs once), declines, or answers for another digest; a client
without the capability gets the documented denial."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from tests.mcp.test_mcp_server import under_test_env

from tether.mcp import NO_APPROVAL_CHANNEL, NO_APPROVAL_CHANNEL_FORCED

TETHER = os.path.join(os.path.dirname(sys.executable), "tether")


class Person:
    """Answers each elicitation with the next of ``answers`` and keeps what it was asked."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        answer = self.answers.pop(0)
        schema = getattr(params, "requested_schema", {})
        digest = schema["properties"]["digest"]["default"]
        if answer == "approve":
            return types.ElicitResult(action="accept", content={"approve": True, "digest": digest})
        if answer == "other digest":
            return types.ElicitResult(
                action="accept", content={"approve": True, "digest": "0" * 64}
            )
        return types.ElicitResult(action="decline")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture(params=["2026-07-28", "legacy"])
def protocol(request: pytest.FixtureRequest) -> str:
    """The newest protocol (the answer comes with the call's retry) and a handshake one (the
    server asks over the back-channel while the call waits)."""
    return str(request.param)


@asynccontextmanager
async def serve(
    workspace: Path, person: Person | None, protocol: str, *options: str
) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=TETHER,
        args=["mcp", "serve", "--cwd", str(workspace), "--tools", "bash", "--no-sandbox", *options],
        cwd=str(workspace),
        env=under_test_env(),
    )
    mode: Any = "auto" if protocol != "legacy" else "legacy"
    async with Client(params, elicitation_callback=person, mode=mode) as client:
        yield client


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


COMMAND = "echo ran >> runs.log"
"""Needs a person (not on the read-only list; the sandbox is off)."""


async def test_an_approved_call_runs_once_and_the_request_shows_tool_arguments_and_reason(
    workspace: Path, protocol: str
) -> None:
    person = Person("approve")
    async with serve(workspace, person, protocol) as client:
        result = await client.call_tool("bash", {"command": COMMAND})
    assert not result.is_error, _text(result)
    assert (workspace / "runs.log").read_text() == "ran\n"
    (asked,) = person.asked
    assert "Tool: bash" in asked.message
    assert f'command: "{COMMAND}"' in asked.message
    assert "Reason: " in asked.message and "Digest: " in asked.message


async def test_declined_or_another_digest_is_denied_and_nothing_runs(
    workspace: Path, protocol: str
) -> None:
    person = Person("decline", "other digest")
    async with serve(workspace, person, protocol) as client:
        declined = await client.call_tool("bash", {"command": COMMAND})
        other = await client.call_tool("bash", {"command": COMMAND})
    for result in (declined, other):
        assert result.is_error and "Denied by a person (deny_once)" in _text(result)
    assert len(person.asked) == 2
    assert not (workspace / "runs.log").exists()


async def test_a_client_without_elicitation_gets_the_documented_denial(
    workspace: Path, protocol: str
) -> None:
    async with serve(workspace, None, protocol) as client:
        result = await client.call_tool("bash", {"command": COMMAND})
    assert result.is_error and NO_APPROVAL_CHANNEL in _text(result)
    assert not (workspace / "runs.log").exists()


async def test_a_call_that_asks_in_every_mode_is_not_advised_to_rerun_with_yolo(
    workspace: Path,
) -> None:
    """Under ``--gate yolo`` a script too complex to prove still asks a person; the denial must
    not advise the very mode it was denied in."""
    too_complex = "".join(f"echo {i} >> runs.log; " for i in range(3000))
    async with serve(workspace, None, "2026-07-28", "--gate", "yolo") as client:
        forced = await client.call_tool("bash", {"command": too_complex})
        plain = await client.call_tool("bash", {"command": COMMAND})
    assert forced.is_error and NO_APPROVAL_CHANNEL_FORCED in _text(forced)
    assert "rerun the server with --gate yolo" not in _text(forced)
    assert not plain.is_error, _text(plain)  # yolo runs an ordinary call unasked
    assert (workspace / "runs.log").read_text() == "ran\n"


async def test_a_retry_state_is_spent_by_its_first_use_and_bound_to_its_call(
    workspace: Path,
) -> None:
    async with serve(workspace, Person(), "2026-07-28") as client:
        session = client.session
        first = await session.call_tool("bash", {"command": COMMAND}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        ((key, asked),) = (first.input_requests or {}).items()
        digest = asked.params.requested_schema["properties"]["digest"]["default"]
        yes = {
            key: types.ElicitResult(action="accept", content={"approve": True, "digest": digest})
        }
        ran = await session.call_tool(
            "bash", {"command": COMMAND}, input_responses=yes, request_state=first.request_state
        )
        replayed = await session.call_tool(
            "bash", {"command": COMMAND}, input_responses=yes, request_state=first.request_state
        )
        other = await session.call_tool(
            "bash", {"command": "echo other >> runs.log"}, allow_input_required=True
        )
        assert isinstance(other, types.InputRequiredResult)
        # the answer and state of one call do not approve another
        crossed = await session.call_tool(
            "bash",
            {"command": "echo other >> runs.log"},
            input_responses=yes,
            request_state=other.request_state,
        )
    assert not ran.is_error, _text(ran)
    assert replayed.is_error and "Denied by a person" in _text(replayed)
    assert crossed.is_error and "Denied by a person" in _text(crossed)
    assert (workspace / "runs.log").read_text() == "ran\n"
