"""The audit trail records the digest a person approved: for arguments the pipeline coerces
(``{"n": "5"}`` for ``n: integer``), the approver's request, the gate's record and the
session's ``approval`` entry carry one digest — of the validated arguments — and one call id."""

from __future__ import annotations

import json

from tether.agent import Agent, tool
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import ApprovalRequest, Decision, Gate, action_digest
from tether.session import Session, SessionStore


@tool
def count(n: int) -> str:
    """Count to n."""
    return " ".join(str(i) for i in range(1, n + 1))


class Recording:
    """A person who allows once and remembers what they were shown."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def confirm(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return "allow_once"


async def _run(tmp_path, *calls) -> tuple[Session, Gate, Recording, Agent]:
    """One batch of ``count`` calls through the real loop, a gate asking a person, recorded."""
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    person = Recording()
    gate = Gate("normal", person, workspace=str(tmp_path))  # an ungoverned tool: ask
    model = FauxModel([faux_message(*calls), faux_text("counted")])
    agent = Agent(
        model=model.model,
        stream_fn=model.stream,
        tools=[count],
        before_tool_call=gate.before_tool_call,
    )
    session.attach(agent)
    await agent.prompt("count")
    return session, gate, person, agent


def _approvals(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    return [line for line in lines if line["type"] == "approval"]


async def test_the_approved_digest_is_the_one_recorded_for_coerced_arguments(tmp_path):
    session, gate, person, agent = await _run(
        tmp_path, faux_tool_call("count", {"n": "5"}, id="c1")
    )

    validated = action_digest("count", {"n": 5})
    assert validated != action_digest("count", {"n": "5"})  # what the recorder used to write
    (request,) = person.requests
    (record,) = gate.records
    (entry,) = _approvals(session.path)
    assert request.digest == record.digest == entry["digest"] == validated
    assert request.tool_call_id == record.tool_call_id == entry["tool_call_id"] == "c1"
    assert record.args == {"n": 5}
    assert (entry["decided_by"], entry["decision"]) == ("approver", "allowed")
    # and so it stays when the session is loaded again
    (loaded,) = [e for e in Session.load(session.path).entries if e.type == "approval"]
    assert loaded.digest == validated
    result = agent.state.messages[-2]
    assert result.role == "tool_result" and result.content[0].text == "1 2 3 4 5"


async def test_a_parallel_batch_pairs_each_decision_with_its_own_call(tmp_path):
    """Two calls with the same validated arguments ("3" and 3): each entry names its own call."""
    calls = [faux_tool_call("count", {"n": n}, id=f"c{i}") for i, n in enumerate(("3", 3, "2"))]
    session, gate, person, _ = await _run(tmp_path, *calls)

    three, two = action_digest("count", {"n": 3}), action_digest("count", {"n": 2})
    expected = {"c0": three, "c1": three, "c2": two}
    assert {e["tool_call_id"]: e["digest"] for e in _approvals(session.path)} == expected
    assert {r.tool_call_id: r.digest for r in person.requests} == expected
    assert {r.tool_call_id: r.digest for r in gate.records} == expected
