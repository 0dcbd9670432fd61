"""Everyday coding-agent commands: none is denied, the read-only ones run unasked, and the gate in
``normal`` mode asks a person only for the rest — and for none of them in the sandbox."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import (
    Gate,
    Governance,
    PathPolicy,
    Policies,
    ScriptedApprover,
    ShellPolicy,
    govern,
)

if __package__:
    from .shell_attacks import BENIGN
else:
    from shell_attacks import BENIGN

READ_ONLY_DAILY = ("git status", "git diff", "git log", "git show", "git branch", "git blame",
                   "git rev-parse", "ls", "cat", "grep", "rg", "find", "wc", "head", "tail",
                   "sed -n", "pwd", "echo", "which")  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for directory in ("src", "tests", "build", "dist", "node_modules"):
        (tmp_path / directory).mkdir()
    for name in ("README.md", "pyproject.toml", "src/app.py", "tests/test_app.py", "app.log",
                 "requirements.txt", ".env"):  # fmt: skip
        (tmp_path / name).write_text("x\n")
    return tmp_path


def test_no_benign_command_is_denied_and_the_read_only_ones_are_allowed(
    workspace: Path,
) -> None:
    policy = ShellPolicy(PathPolicy(str(workspace)))
    verdicts = {command: policy.classify(command) for command in BENIGN}
    denied = {c: v for c, v in verdicts.items() if v.decision == "deny"}
    assert not denied
    read_only = [c for c in BENIGN if c.startswith(READ_ONLY_DAILY) and "commit" not in c]
    assert len(read_only) >= 40
    assert [c for c in read_only if verdicts[c].decision != "allow"] == []


def _bash_like(sandboxed: bool) -> AgentTool:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "ran"

    def check(args: Any, policies: Policies) -> Any:
        return policies.shell.classify(str(args["command"]))

    schema = {
        "type": "object",
        "properties": {"command": {"type": "string", "x-review": "include"}},
    }

    def key(args: Any, policies: Policies) -> str:
        return policies.shell.normalize(str(args["command"]))

    governance = Governance(policy_check=check, action_key=key, sandboxed=sandboxed)
    return govern(AgentTool("bash", "Bash", "runs", schema, execute,
                            metadata={"governance": governance}))  # fmt: skip


async def _run(gate: Gate, commands: list[str], sandboxed: bool = False) -> None:
    calls = [faux_tool_call("bash", {"command": command}) for command in commands]
    fm = FauxModel([faux_message(*calls), faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [_bash_like(sandboxed)]),
        AgentLoopConfig(
            model=fm.model, stream_fn=fm.stream, before_tool_call=gate.before_tool_call
        ),
    )
    await stream.result()


async def _asked(workspace: Path, sandboxed: bool) -> tuple[int, int]:
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    gate = Gate("normal", approver, workspace=str(workspace))
    await _run(gate, BENIGN, sandboxed)
    denied = sum(record.outcome == "denied" for record in gate.records)
    return len(approver.requests), denied


async def test_approval_fatigue_in_normal_mode(workspace: Path) -> None:
    policy = ShellPolicy(PathPolicy(str(workspace)))
    approves = sum(policy.classify(command).decision == "approve" for command in BENIGN)
    asked, denied = await _asked(workspace, sandboxed=False)
    print(f"\nbenign corpus: {len(BENIGN)} commands; normal mode asks for {asked} without the "
          f"sandbox, ", end="")  # fmt: skip
    assert (asked, denied) == (approves, 0)
    assert asked <= len(BENIGN) // 3
    asked, denied = await _asked(workspace, sandboxed=True)
    print(f"{asked} with it")
    assert (asked, denied) == (0, 0)


async def test_allowing_a_script_for_the_session_covers_only_the_same_structure(
    workspace: Path,
) -> None:
    approver = ScriptedApprover(["allow_session"])
    gate = Gate("normal", approver, workspace=str(workspace))
    first = "d=build; rm -rf $d"
    again = "d=build;   rm  -rf  $d"
    other = "d=build; for d in ~; do rm -rf $d; done"
    await _run(gate, [first, again, other])
    assert [r.tool_name for r in approver.requests] == ["bash"]
    assert [(r.decided_by, r.outcome) for r in gate.records] == [
        ("approver", "allowed"), ("session", "allowed"), ("policy", "denied"),
    ]  # fmt: skip
