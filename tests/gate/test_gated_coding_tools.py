"""The gate over the real built-in tools: path and shell policies, sandbox, session memory and
redaction, end to end through the agent loop."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, agent_loop
from tether.ai import ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate, ScriptedApprover
from tether.tools import create_bash_tool, create_coding_tools, wrap_tool_definition
from tether.tools.operations._sandbox import BubblewrapSandbox

ALL = ("read", "write", "edit", "bash", "grep", "find", "ls")


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n")
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "notes.txt").write_text("hello\n")
    (work / "config.txt").write_text("api key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n")
    (work / ".env").write_text("TOKEN=abc\n")
    return work


async def run(
    gate: Gate, tools: list[Any], *calls: tuple[str, dict[str, Any]]
) -> list[ToolResultMessage]:
    """The ``calls`` as one model turn through the gate; the results."""
    return await run_turns(gate, tools, list(calls))


async def run_turns(
    gate: Gate, tools: list[Any], *turns: list[tuple[str, dict[str, Any]]]
) -> list[ToolResultMessage]:
    """One model turn per entry of ``turns`` (its calls in order), through the gate."""
    responses = [faux_message(*[faux_tool_call(n, a) for n, a in calls]) for calls in turns]
    fm = FauxModel([*responses, faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], tools),
        AgentLoopConfig(
            model=fm.model,
            stream_fn=fm.stream,
            before_tool_call=gate.before_tool_call,
            after_tool_call=gate.after_tool_call,
            tool_execution="sequential",
        ),
    )
    return [m for m in await stream.result() if isinstance(m, ToolResultMessage)]


def tools_for(workspace: Path, *, sandbox: bool | None = None) -> list[Any]:
    definitions = create_coding_tools(str(workspace), names=ALL)
    if sandbox is not None:
        definitions[3] = create_bash_tool(str(workspace), sandbox=sandbox)
    return [wrap_tool_definition(d) for d in definitions]


def text(result: ToolResultMessage) -> str:
    return "".join(getattr(b, "text", "") for b in result.content)


async def test_file_tools_follow_the_path_policy(workspace: Path) -> None:
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    gate = Gate("normal", approver, workspace=str(workspace))
    outside = workspace.parent / "elsewhere" / "x.txt"
    results = await run(
        gate,
        tools_for(workspace),
        ("read", {"path": "notes.txt"}),
        ("ls", {"path": "."}),
        ("read", {"path": "~/.ssh/id_rsa"}),
        ("read", {"path": ".env"}),
        ("write", {"path": str(outside), "content": "x"}),
        ("edit", {"path": "../work_evil/a.txt", "edits": [{"old_text": "a", "new_text": "b"}]}),
        ("write", {"path": "new.txt", "content": "made"}),
    )
    ok, listing, key, env, write_out, prefix_trick, write_in = results
    assert not ok.is_error and text(ok) == "hello"
    assert not listing.is_error
    assert key.is_error and "Denied by policy" in text(key) and "BEGIN" not in text(key)
    assert env.is_error
    assert write_out.is_error and not outside.exists()
    assert prefix_trick.is_error
    assert not write_in.is_error and (workspace / "new.txt").read_text() == "made"
    assert approver.requests == []  # nothing here needed a person


async def test_reads_outside_the_workspace_ask_a_person(workspace: Path) -> None:
    (workspace.parent / "shared.txt").write_text("shared\n")
    approver = ScriptedApprover(["deny_once"])
    gate = Gate("normal", approver, workspace=str(workspace))
    (result,) = await run(gate, tools_for(workspace), ("read", {"path": "../shared.txt"}))
    assert result.is_error and len(approver.requests) == 1


async def test_bash_follows_the_shell_policy(workspace: Path) -> None:
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    gate = Gate("strict", approver, workspace=str(workspace))
    listing, wipe, key, touch = await run(
        gate,
        tools_for(workspace, sandbox=False),
        ("bash", {"command": "ls"}),
        ("bash", {"command": "rm  -rf ~"}),
        ("bash", {"command": "cat ~/.ssh/id_rsa"}),
        ("bash", {"command": "touch made.txt"}),
    )
    assert not listing.is_error and "notes.txt" in text(listing)
    assert wipe.is_error and "Denied by policy" in text(wipe)
    assert key.is_error and "private key" in text(key)
    assert touch.is_error and "strict mode" in text(touch)
    assert not (workspace / "made.txt").exists()
    assert approver.requests == []


async def test_session_memory_does_not_widen(workspace: Path) -> None:
    (workspace / "build" / "x").write_text("x")
    (workspace / "src").mkdir()
    (workspace / "src" / "y").write_text("y")
    approver = ScriptedApprover(["allow_session", "deny_once"])
    gate = Gate("normal", approver, workspace=str(workspace))
    tools = tools_for(workspace, sandbox=False)
    first, home_wipe, other = await run(
        gate,
        tools,
        ("bash", {"command": "rm build/x"}),
        ("bash", {"command": "rm -rf ~"}),
        ("bash", {"command": "rm src/y"}),
    )
    (workspace / "build" / "x").write_text("x")
    (again,) = await run(gate, tools, ("bash", {"command": "rm  build/x"}))
    assert not first.is_error and not again.is_error
    assert home_wipe.is_error and "Denied by policy" in text(home_wipe)
    assert other.is_error and (workspace / "src" / "y").exists()
    assert [r.args["command"] for r in approver.requests] == ["rm build/x", "rm src/y"]


@pytest.mark.skipif(not BubblewrapSandbox.available(), reason="bubblewrap is not usable here")
async def test_sandboxed_bash_runs_approve_class_commands_unasked_in_normal_mode(
    workspace: Path,
) -> None:
    approver = ScriptedApprover()
    gate = Gate("normal", approver, workspace=str(workspace))
    made, wipe = await run(
        gate,
        tools_for(workspace),
        ("bash", {"command": "touch made.txt && echo made"}),
        ("bash", {"command": "rm -rf /"}),
    )
    assert not made.is_error and (workspace / "made.txt").exists()
    assert wipe.is_error and "Denied by policy" in text(wipe)
    assert approver.requests == []
    assert [r.decided_by for r in gate.records] == ["sandbox", "policy"]


async def test_secrets_in_tool_results_are_masked(workspace: Path) -> None:
    gate = Gate("normal", ScriptedApprover(), workspace=str(workspace))
    (result,) = await run(gate, tools_for(workspace), ("read", {"path": "config.txt"}))
    assert not result.is_error
    assert "abcdefghijklmnopqrstuvwxyz0123456789" not in text(result)
    assert "REDACTED" in text(result)


async def test_errors_leave_no_absolute_paths_outside_the_workspace(workspace: Path) -> None:
    gate = Gate("yolo", ScriptedApprover(), workspace=str(workspace))
    (result,) = await run(gate, tools_for(workspace), ("read", {"path": "missing/file.txt"}))
    assert result.is_error
    assert str(workspace) not in text(result)


async def test_results_can_be_wrapped_as_untrusted_data(workspace: Path) -> None:
    from tether.gate import UntrustedBoundary

    boundary = UntrustedBoundary()
    gate = Gate("normal", ScriptedApprover(), workspace=str(workspace), untrusted_boundary=boundary)
    (result,) = await run(gate, tools_for(workspace), ("read", {"path": "notes.txt"}))
    assert text(result) == boundary.wrap("hello")
    assert text(result).startswith(boundary.opening) and "hello" in text(result)


@pytest.mark.skipif(not BubblewrapSandbox.available(), reason="bubblewrap is not usable here")
@pytest.mark.parametrize("where", ["home", "above home"])
async def test_a_workspace_that_holds_the_home_asks_though_sandboxed(
    workspace: Path, where: str
) -> None:
    """There the sandboxed command could write ~/.bashrc, which runs outside the sandbox at the
    next login: the sandbox does not stand in for a person, and the person is asked."""
    home = workspace.parent / "home"
    root = home if where == "home" else workspace.parent
    approver = ScriptedApprover()  # denies what it is not told to allow
    gate = Gate("normal", approver, workspace=str(root))
    (result,) = await run(gate, tools_for(root), ("bash", {"command": "touch made.txt"}))
    assert result.is_error and not (root / "made.txt").exists()
    assert [r.args["command"] for r in approver.requests] == ["touch made.txt"]
    assert [r.decided_by for r in gate.records] == ["approver"]
