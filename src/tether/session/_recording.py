"""Recording a running agent into its session: messages as they end, decisions as they are made.

The prompt's user message ends before the request goes out, so it is on disk before the model
is asked; every other message is written when it ends, and each tool call's start is written as
it begins (so a run that dies mid-call is known to have started it: :mod:`._interrupted`). With
a gate, each decision a person (``approver``, ``session`` memory of one) or the reviewer made
is written as an ``approval`` entry after the call it decided: who decided, the outcome, why and
the digest the gate computed from the validated arguments (the one the person was shown, never
one recomputed here from the model's raw arguments) — the audit trail. A write that fails stops
the run (the agent is aborted, so no further tool runs unrecorded) and is kept in
``session.write_error`` for the command to report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tether.agent import MessageEnd, ToolExecutionEnd, ToolExecutionStart
from tether.gate import Gate, GateRecord, action_digest

from ._entries import ApprovalEntry
from ._errors import SessionError
from ._interrupted import call_started_entry

if TYPE_CHECKING:
    from ._session import Session

__all__ = ["PERSON_OR_REVIEWER", "record_agent"]

PERSON_OR_REVIEWER = frozenset({"approver", "session", "reviewer"})


def record_agent(session: Session, agent: Any, gate: Gate | None) -> Callable[[], None]:
    """Subscribe ``session`` to ``agent``'s events; returns the unsubscribe function.

    Without ``gate``, the gate whose ``before_tool_call`` the agent runs (if any) is used."""
    if gate is None:
        gate = _gate_of(agent)
    recorded = len(gate.records) if gate is not None else 0

    def listener(event: object) -> None:
        if session.write_error is not None:
            return  # the run is being stopped; nothing half-recorded after the failure
        try:
            record(event)
        except SessionError:
            agent.abort()  # fail closed: no tool runs unrecorded

    def record(event: object) -> None:
        nonlocal recorded
        if isinstance(event, MessageEnd):
            session.append_message(event.message)
        elif isinstance(event, ToolExecutionStart):
            session.append(call_started_entry(event.tool_call_id, event.tool_name))
        elif isinstance(event, ToolExecutionEnd) and gate is not None:
            fresh = gate.records[recorded:]
            recorded = len(gate.records)
            for record in fresh:
                if record.decided_by not in PERSON_OR_REVIEWER:
                    continue
                session.append(
                    ApprovalEntry(
                        tool_call_id=record.tool_call_id,
                        tool_name=record.tool_name,
                        digest=_digest_of(record),
                        decision=record.outcome,
                        decided_by=record.decided_by,
                        reason=record.reason,
                    )
                )

    unsubscribe: Callable[[], None] = agent.subscribe(listener)
    return unsubscribe


def _digest_of(record: GateRecord) -> str:
    """The gate's digest; a record made without one (not by the gate) is hashed from its args."""
    if record.digest is not None:
        return record.digest
    return action_digest(record.tool_name, record.args or {})


def _gate_of(agent: Any) -> Gate | None:
    hook = getattr(agent, "loop_options", {}).get("before_tool_call")
    owner = getattr(hook, "__self__", None)
    return owner if isinstance(owner, Gate) else None
