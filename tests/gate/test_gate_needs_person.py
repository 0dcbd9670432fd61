"""``Governance.needs_person``: a call a person must decide, whatever the sandbox or the
reviewer would say — asked in normal and review mode, denied in strict, run in yolo."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate, Governance, Mode, Policies, ScriptedApprover, Verdict


def _person(args: Mapping[str, Any], policies: Policies) -> str | None:
    return "writes the repository" if args.get("x") == "write" else None


def _broken(args: Mapping[str, Any], policies: Policies) -> str | None:
    raise RuntimeError("bug")


def make_tool(needs_person: Any, verdict: Verdict) -> AgentTool:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "ran"

    governance = Governance(check=lambda args: verdict, sandboxed=True, needs_person=needs_person)
    return AgentTool(
        name="t",
        label="t",
        description="t",
        parameters={
            "type": "object",
            "properties": {"x": {"type": "string", "x-review": "include"}},
        },
        execute=execute,
        metadata={"governance": governance},
    )


class _Reviewer:
    def __init__(self) -> None:
        self.calls = 0

    async def review(self, action: Any) -> Any:
        self.calls += 1
        raise AssertionError("the reviewer must not decide a call that needs a person")


async def run(gate: Gate, tool: AgentTool, x: str) -> ToolResultMessage:
    fm = FauxModel([faux_message(faux_tool_call("t", {"x": x})), faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [tool]),
        AgentLoopConfig(
            model=fm.model,
            stream_fn=fm.stream,
            before_tool_call=gate.before_tool_call,
            after_tool_call=gate.after_tool_call,
        ),
    )
    [result] = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    return result


@pytest.mark.parametrize(
    ("mode", "asked", "ran"),
    [
        ("normal", True, False),
        ("review", True, False),
        ("strict", False, False),
        ("yolo", False, True),
    ],
)
@pytest.mark.parametrize("verdict", [Verdict.allow("read-only"), Verdict.approve("unknown")])
async def test_a_call_that_needs_a_person(
    mode: Mode, asked: bool, ran: bool, verdict: Verdict
) -> None:
    approver = ScriptedApprover(["deny_once"])
    gate = Gate(mode, approver, reviewer=_Reviewer())  # type: ignore[arg-type]
    result = await run(gate, make_tool(_person, verdict), "write")

    assert bool(approver.requests) == asked
    if asked:
        assert "writes the repository" in approver.requests[0].reason
    assert result.is_error != ran


async def test_an_approved_one_runs_and_others_keep_the_sandbox_shortcut() -> None:
    approver = ScriptedApprover(["allow_once"])
    gate = Gate("normal", approver)
    tool = make_tool(_person, Verdict.approve("unknown"))

    assert not (await run(gate, tool, "write")).is_error
    assert not (await run(gate, tool, "read")).is_error
    assert [r.decided_by for r in gate.records] == ["approver", "sandbox"]


async def test_a_failing_check_needs_a_person() -> None:
    approver = ScriptedApprover([])
    gate = Gate("normal", approver)
    result = await run(gate, make_tool(_broken, Verdict.approve("unknown")), "read")

    assert result.is_error
    assert "failed (RuntimeError)" in approver.requests[0].reason


async def test_deny_stays_deny() -> None:
    approver = ScriptedApprover(["allow_once"])
    result = await run(Gate("normal", approver), make_tool(_person, Verdict.deny("no")), "write")

    assert result.is_error and not approver.requests


@pytest.mark.parametrize(
    ("mode", "asked"), [("normal", True), ("review", True), ("strict", False), ("yolo", True)]
)
async def test_an_unjudged_verdict_asks_a_person_in_every_mode(mode: Mode, asked: bool) -> None:
    """A script too complex to prove may hide a ``deny``: not the sandbox, not the reviewer and
    not yolo let it run; a person does (and strict never asks)."""
    approver = ScriptedApprover(["allow_once"])
    gate = Gate(mode, approver, reviewer=_Reviewer())  # type: ignore[arg-type]
    verdict = Verdict.unjudged("ls …: too complex to prove (more than 40 ms of work)")
    result = await run(gate, make_tool(None, verdict), "read")

    assert bool(approver.requests) == asked
    assert result.is_error != asked
    if asked:
        reason = approver.requests[0].reason
        assert "too complex to prove" in reason and "a person decides in every mode" in reason
        assert gate.records[-1].decided_by == "approver"
    else:
        assert "strict mode never asks" in result.content[0].text  # type: ignore[union-attr]


def test_strictest_keeps_the_need_for_a_person_only_on_an_approve() -> None:
    from tether.gate import strictest

    unjudged = Verdict.unjudged("too complex")
    assert strictest([Verdict.allow("x"), unjudged]).needs_person
    assert strictest([Verdict.approve("y"), unjudged]).needs_person
    assert not strictest([Verdict.deny("z"), unjudged]).needs_person
    assert not strictest([Verdict.approve("y")]).needs_person
