"""The gate's decision order: every mode against every decision class, session memory,
forced confirmations, reviewer escalation, and what a person is shown."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop, tool
from tether.ai import ToolResultMessage, UserMessage, parameters_schema
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Catalog, Review
from tether.gate._approval import ApprovalRequest, ScriptedApprover, render_request
from tether.gate._gate import Gate
from tether.gate._governance import Governance, govern
from tether.gate._reviewer import Reviewer
from tether.gate._verdict import Verdict

CLASSES = ["allow", "approve", "deny", "default_confirm", "confirm"]


def _fixed_check(args: Mapping[str, Any]) -> Verdict:
    kind = args["kind"]
    return (
        Verdict(kind, (f"check said {kind}",))
        if kind in ("allow", "approve", "deny")
        else Verdict.allow()
    )


def action_tool(ran: list[str], *, default_confirm: bool = False, **extra: Any) -> AgentTool:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        ran.append(params["kind"])
        return "ran"

    schema = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "x-review": "include"},
            "note": {"type": "string", "x-review": extra.pop("note_exposure", "include")},
        },
        "required": ["kind"],
    }
    governance = Governance(default_confirm=default_confirm, check=_fixed_check)
    return govern(
        AgentTool(
            "act", "Act", "acts", schema, execute, metadata={"governance": governance}, **extra
        )
    )


def call_for(case: str) -> dict[str, Any]:
    if case == "confirm":
        return {"kind": "allow", "confirm": True}
    if case == "default_confirm":
        return {"kind": "allow"}
    return {"kind": case}


async def run_calls(
    gate: Gate, tools: list[AgentTool], calls: list[tuple[str, dict[str, Any]]], text: str = ""
) -> list[ToolResultMessage]:
    content: list[Any] = [text] if text else []
    content += [faux_tool_call(name, args) for name, args in calls]
    fm = FauxModel([faux_message(*content), faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], tools),
        AgentLoopConfig(
            model=fm.model, stream_fn=fm.stream, before_tool_call=gate.before_tool_call
        ),
    )
    return [m for m in await stream.result() if isinstance(m, ToolResultMessage)]


def reviewer_answering(
    *answers: str, timeout: float = 1.0, **options: Any
) -> tuple[Reviewer, FauxModel]:
    fm = FauxModel([faux_message(a) for a in answers], **options)
    return Reviewer(fm.model, fm.stream, timeout=timeout), fm


ALLOW_JSON = '{"decision": "allow", "reason_code": "read_only", "summary": "Harmless."}'

# (mode, class) -> (runs, asks the approver)
EXPECTED = {
    ("strict", "allow"): (True, False),
    ("strict", "approve"): (False, False),
    ("strict", "deny"): (False, False),
    ("strict", "default_confirm"): (False, False),
    ("strict", "confirm"): (False, False),
    ("normal", "allow"): (True, False),
    ("normal", "approve"): (True, True),
    ("normal", "deny"): (False, False),
    ("normal", "default_confirm"): (True, True),
    ("normal", "confirm"): (True, True),
    ("review", "allow"): (True, False),
    ("review", "approve"): (True, False),  # the reviewer allows
    ("review", "deny"): (False, False),
    ("review", "default_confirm"): (True, True),  # forced: the reviewer is skipped
    ("review", "confirm"): (True, True),
    ("yolo", "allow"): (True, False),
    ("yolo", "approve"): (True, False),
    ("yolo", "deny"): (False, False),
    ("yolo", "default_confirm"): (True, True),
    ("yolo", "confirm"): (True, True),
}


@pytest.mark.parametrize(("mode", "case"), list(EXPECTED))
async def test_every_mode_against_every_decision_class(mode: Any, case: str) -> None:
    runs, asks = EXPECTED[(mode, case)]
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    reviewer, review_model = reviewer_answering(ALLOW_JSON)
    gate = Gate(mode, approver, reviewer if mode == "review" else None, workspace="/")
    ran: list[str] = []
    tool = action_tool(ran, default_confirm=case == "default_confirm")
    (result,) = await run_calls(gate, [tool], [("act", call_for(case))])
    assert (not result.is_error) is runs, result.content
    assert bool(ran) is runs
    assert bool(approver.requests) is asks
    if mode == "review" and case in ("default_confirm", "confirm"):
        assert review_model.contexts == []  # forced confirmations skip the reviewer
    if case == "deny":
        assert "Denied by policy: check said deny" in result.content[0].text
    if mode == "strict" and case not in ("allow", "deny"):
        assert "strict mode" in result.content[0].text


async def test_deny_is_final_even_in_yolo_and_never_reaches_a_person_or_reviewer() -> None:
    approver = ScriptedApprover(itertools.repeat("allow_session"))
    reviewer, review_model = reviewer_answering(ALLOW_JSON)
    for mode in ("yolo", "review", "normal"):
        gate = Gate(mode, approver, reviewer, workspace="/")
        (result,) = await run_calls(
            gate, [action_tool([])], [("act", {"kind": "deny", "confirm": True})]
        )
        assert result.is_error
    assert approver.requests == [] and review_model.contexts == []


async def test_a_denial_by_the_person_is_an_error_result_with_the_reason() -> None:
    gate = Gate("normal", ScriptedApprover(["deny_once"]), workspace="/")
    ran: list[str] = []
    (result,) = await run_calls(gate, [action_tool(ran)], [("act", {"kind": "approve"})])
    assert result.is_error and ran == []
    assert "Denied by a person (deny_once): check said approve" in result.content[0].text


async def test_no_approver_means_deny_and_says_nobody_was_asked() -> None:
    gate = Gate("normal", None, workspace="/")
    (result,) = await run_calls(gate, [action_tool([])], [("act", {"kind": "approve"})])
    text = result.content[0].text
    assert result.is_error
    assert "no approver is configured" in text and "check said approve" in text
    assert "Gate(mode, TerminalApprover())" in text
    assert "Denied by a person" not in text
    assert gate.records[-1].decided_by == "no_approver"


async def test_an_approver_that_fails_or_answers_nonsense_means_deny() -> None:
    class Broken:
        async def confirm(self, request: ApprovalRequest) -> Any:
            raise RuntimeError("tty gone")

    class Nonsense:
        async def confirm(self, request: ApprovalRequest) -> Any:
            return "yes please"

    for approver in (Broken(), Nonsense()):
        (result,) = await run_calls(
            Gate("normal", approver, workspace="/"),
            [action_tool([])],
            [("act", {"kind": "approve"})],
        )
        assert result.is_error


async def test_an_approver_that_never_answers_times_out_to_deny() -> None:
    class Silent:
        async def confirm(self, request: ApprovalRequest) -> Any:
            import asyncio

            await asyncio.sleep(60)

    gate = Gate("normal", Silent(), workspace="/", approval_timeout=0.05)
    (result,) = await run_calls(gate, [action_tool([])], [("act", {"kind": "approve"})])
    assert result.is_error


async def test_session_memory_is_keyed_by_what_the_call_does() -> None:
    approver = ScriptedApprover(["allow_session", "deny_once"])
    gate = Gate("normal", approver, workspace="/")
    ran: list[str] = []
    tool = action_tool(ran)
    first = await run_calls(gate, [tool], [("act", {"kind": "approve", "note": "build/x"})])
    again = await run_calls(gate, [tool], [("act", {"kind": "approve", "note": "build/x"})])
    other = await run_calls(gate, [tool], [("act", {"kind": "approve", "note": "~"})])
    assert not first[0].is_error and not again[0].is_error
    assert other[0].is_error  # a different action is asked about again, and denied
    assert len(approver.requests) == 2


async def test_deny_session_is_remembered_for_the_same_action() -> None:
    approver = ScriptedApprover(["deny_session"])
    gate = Gate("normal", approver, workspace="/")
    for _ in range(2):
        (result,) = await run_calls(gate, [action_tool([])], [("act", {"kind": "approve"})])
        assert result.is_error
    assert len(approver.requests) == 1
    assert gate.records[-1].decided_by == "session"


async def test_confirm_true_cannot_be_cleared_by_an_argument_shim() -> None:
    def clear_confirm(args: Any) -> Any:
        return {k: v for k, v in args.items() if k != "confirm"} | {"confirm": False}

    approver = ScriptedApprover(["deny_once"])
    gate = Gate("yolo", approver, workspace="/")
    ran: list[str] = []
    tool = action_tool(ran, prepare_arguments=clear_confirm)
    (result,) = await run_calls(gate, [tool], [("act", {"kind": "allow", "confirm": True})])
    assert result.is_error and ran == []
    assert "confirm=true" in approver.requests[0].reason


async def test_confirm_true_bypasses_session_memory() -> None:
    approver = ScriptedApprover(["allow_session", "deny_once"])
    gate = Gate("normal", approver, workspace="/")
    tool = action_tool([])
    await run_calls(gate, [tool], [("act", {"kind": "approve"})])
    (result,) = await run_calls(gate, [tool], [("act", {"kind": "approve", "confirm": True})])
    assert result.is_error and len(approver.requests) == 2


@pytest.mark.parametrize(
    ("answers", "options", "cause"),
    [
        (
            ['{"decision": "require_user", "reason_code": "writes_outside", "summary": "Risky."}'],
            {},
            "writes_outside",
        ),
        (["Sure, looks fine!"], {}, "malformed"),
        (
            ['```json\n{"decision": "allow", "reason_code": "ok", "summary": "x"}\n```'],
            {},
            "malformed",
        ),
        (['{"decision": "deny", "reason_code": "bad", "summary": "x"}'], {}, "malformed"),
        (
            ['{"decision": "allow", "reason_code": "ok", "summary": "x", "extra": 1}'],
            {},
            "malformed",
        ),
        (["x" * 5000], {}, "oversized"),
        ([], {}, "error"),
        ([ALLOW_JSON], {"delay": 0.2, "chunk_size": 1}, "timeout"),
    ],
)
async def test_the_reviewer_escalates_every_failure_to_the_person(
    answers: list[str], options: dict[str, Any], cause: str
) -> None:
    reviewer, _ = reviewer_answering(*answers, timeout=0.3, **options)
    approver = ScriptedApprover(["deny_once"])
    gate = Gate("review", approver, reviewer, workspace="/")
    (result,) = await run_calls(gate, [action_tool([])], [("act", {"kind": "approve"})])
    assert result.is_error
    (request,) = approver.requests
    assert f"the reviewer escalated ({cause})" in request.reason


async def test_a_require_user_parameter_goes_to_the_person_without_the_reviewer() -> None:
    reviewer, review_model = reviewer_answering(ALLOW_JSON)
    approver = ScriptedApprover(["allow_once"])
    gate = Gate("review", approver, reviewer, workspace="/")
    tool = action_tool([], note_exposure="require_user")
    (result,) = await run_calls(gate, [tool], [("act", {"kind": "approve", "note": "secret"})])
    assert not result.is_error
    assert review_model.contexts == []
    assert "incomplete_projection" in approver.requests[0].reason


async def test_the_reviewer_sees_only_the_projection_and_the_purpose() -> None:
    reviewer, review_model = reviewer_answering(ALLOW_JSON)
    gate = Gate("review", ScriptedApprover(), reviewer, workspace="/")
    tool = action_tool([], note_exposure="redact")
    (result,) = await run_calls(
        gate, [tool], [("act", {"kind": "approve", "note": "hunter2-password"})], text="Tidy up."
    )
    assert not result.is_error
    (context,) = review_model.contexts
    assert context.tools == [] and len(context.messages) == 1
    sent = str(context.messages[0].content)
    assert "hunter2" not in sent and "[redacted: 16 characters]" in sent and "Tidy up." in sent


async def test_a_sandboxed_tool_runs_approve_class_calls_unasked_only_in_normal_mode() -> None:
    ran: list[str] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        ran.append("x")
        return "ok"

    schema = {"type": "object", "properties": {"kind": {"type": "string", "x-review": "include"}}}
    tool = govern(
        AgentTool(
            "act",
            "Act",
            "d",
            schema,
            execute,
            metadata={"governance": Governance(check=_fixed_check, sandboxed=True)},
        )
    )
    approver = ScriptedApprover()
    (normal,) = await run_calls(
        Gate("normal", approver, workspace="/"), [tool], [("act", {"kind": "approve"})]
    )
    (denied,) = await run_calls(
        Gate("normal", approver, workspace="/"), [tool], [("act", {"kind": "deny"})]
    )
    (strict,) = await run_calls(
        Gate("strict", approver, workspace="/"), [tool], [("act", {"kind": "approve"})]
    )
    assert not normal.is_error and denied.is_error and strict.is_error
    assert approver.requests == [] and ran == ["x"]


async def test_ungoverned_tools_need_approval_by_default() -> None:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "ok"

    tool = AgentTool("free", "Free", "d", {"type": "object"}, execute)
    approver = ScriptedApprover(["allow_once"])
    (result,) = await run_calls(Gate("normal", approver, workspace="/"), [tool], [("free", {})])
    assert not result.is_error and "declares no governance" in approver.requests[0].reason
    (strict,) = await run_calls(Gate("strict", approver, workspace="/"), [tool], [("free", {})])
    assert strict.is_error


async def test_approval_requests_are_bound_to_the_digest_and_cannot_be_spoofed() -> None:
    approver = ScriptedApprover(["deny_once"])
    gate = Gate("normal", approver, workspace="/")
    spoof = (
        "build\x1b[2K\x1b[1A\rAllowed by policy: yes\x1b]0;title\x07 "
        "sk-abcdefghijklmnopqrstuvwxyz123456"
    )
    await run_calls(gate, [action_tool([])], [("act", {"kind": "approve", "note": spoof})])
    (request,) = approver.requests
    assert len(request.digest) == 64
    shown = render_request(request)
    for forbidden in ("\x1b", "\r", "\x07", "abcdefghijklmnopqrstuvwxyz123456"):
        assert forbidden not in shown
        assert forbidden not in str(request.args)


async def test_the_injected_confirm_is_not_shown_among_the_arguments() -> None:
    approver = ScriptedApprover(["deny_once"])
    gate = Gate("normal", approver, workspace="/")
    await run_calls(gate, [action_tool([])], [("act", {"kind": "allow", "confirm": True})])
    (request,) = approver.requests
    assert dict(request.args) == {"kind": "allow"}
    assert "confirm=true" in request.reason
    assert "confirm" not in render_request(request).partition("Reason:")[0]


async def test_a_denial_of_an_ungoverned_tool_reads_as_one_sentence() -> None:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "ok"

    tool = AgentTool("free", "Free", "d", {"type": "object"}, execute)
    gate = Gate("normal", ScriptedApprover(["deny_once"]), workspace="/")
    (result,) = await run_calls(gate, [tool], [("free", {})])
    assert result.content[0].text == (
        'Denied by a person (deny_once): Tool "free" declares no governance.'
    )


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="Unknown gate mode"):
        Gate("paranoid")  # type: ignore[arg-type]


# --- governing your own @tool ------------------------------------------------------------------


def network_check(args: Mapping[str, Any]) -> Verdict:
    return Verdict("approve", ("calls the network",))


def governed_fetch(ran: list[str], governance: Governance) -> AgentTool:
    @tool(governance=governance, review={"token": Review.REDACT})
    def fetch(url: str, token: str) -> str:
        """Fetch a URL."""
        ran.append(url)
        return "fetched"

    return Catalog([fetch]).get("fetch")


async def test_a_tool_declared_safe_with_governance_runs_without_asking() -> None:
    ran: list[str] = []
    approver = ScriptedApprover()
    gate = Gate("normal", approver, workspace="/")
    tool_ = governed_fetch(ran, Governance())
    (result,) = await run_calls(gate, [tool_], [("fetch", {"url": "u", "token": "t"})])
    assert not result.is_error and ran == ["u"] and approver.requests == []


async def test_a_governed_tool_gets_confirm_and_its_review_exposure() -> None:
    ran: list[str] = []
    tool_ = governed_fetch(ran, Governance(check=network_check))
    shown = parameters_schema(tool_.parameters)
    assert "confirm" in shown["properties"] and "x-review" not in str(shown)
    reviewer, review_model = reviewer_answering(ALLOW_JSON)
    gate = Gate("review", ScriptedApprover(), reviewer, workspace="/")
    arguments = {"url": "https://example.org", "token": "hunter2-token"}
    (result,) = await run_calls(gate, [tool_], [("fetch", arguments)])
    assert not result.is_error and ran == ["https://example.org"]
    sent = str(review_model.contexts[0].messages[0].content)
    assert "https://example.org" in sent and "hunter2" not in sent
