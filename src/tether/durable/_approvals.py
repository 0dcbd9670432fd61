"""Durable approvals: a call that needs a person parks its run until someone answers.

The run publishes what it waits for as the workflow event :data:`PENDING_EVENT` (call id, tool,
arguments as a person may see them, reason, digest, expiry) and waits on ``DBOS.recv`` under the
topic :func:`approval_topic` of the call's digest. Any process answers with
:func:`approval_message` sent to that topic (``tether runs approve RUN CALL DECISION``). The
wait is a DBOS operation: a restarted worker keeps waiting, and the answer, once received, is
recorded and never received again. An answer for another call or another digest is discarded
(the run keeps waiting); no answer before the expiry is a denial that says so.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Final

from dbos import DBOS

from tether.gate import ApprovalRequest, Decision

from ._steps import DurableRun

__all__ = [
    "ANSWERS",
    "PENDING_EVENT",
    "DurableApprover",
    "approval_message",
    "approval_topic",
]

_log = logging.getLogger("tether.durable")

PENDING_EVENT: Final = "tether.pending_approval"
ANSWERS: Final = ("allow_once", "deny_once")
"""What a durable approval may answer: one call, once (session memory does not outlive a
process, so ``*_session`` is not offered)."""


def approval_topic(digest: str) -> str:
    return f"tether.approval:{digest}"


def approval_message(tool_call_id: str, digest: str, decision: str) -> dict[str, str]:
    """The answer a run accepts for exactly this call and these arguments."""
    if decision not in ANSWERS:
        raise ValueError(f"decision must be one of {', '.join(ANSWERS)}, got {decision!r}")
    return {"tool_call_id": tool_call_id, "digest": digest, "decision": decision}


@DBOS.step(name="tether.approval_deadline")
async def _deadline(expiry: float) -> float:
    return time.time() + expiry


class DurableApprover:
    """An :class:`~tether.gate.Approver` whose wait is part of the run's durable record."""

    def __init__(self, run: DurableRun, expiry: float) -> None:
        self.run = run
        self.expiry = expiry

    async def confirm(self, request: ApprovalRequest) -> Decision:
        call, digest = self.run.current_call, self.run.current_digest
        if request.digest != digest:
            _log.error("approval for %s: the gate's digest is not the run's; denying", call)
            return "deny_once"
        asked = {
            "tool_name": request.tool_name,
            "args": dict(request.args),
            "reason": request.reason,
            "digest": digest,
        }
        self.run.note_asking(call, asked)  # on record before the wait: a recovery waits again
        await self.run.flush()  # with what ran before the wait, before the run parks
        deadline = await _deadline(self.expiry)
        pending = {
            "tool_call_id": call,
            "tool_name": request.tool_name,
            "args": dict(request.args),
            "reason": request.reason,
            "digest": digest,
            "expires_at": deadline,
        }
        await DBOS.set_event_async(PENDING_EVENT, pending)
        decision: Decision = "deny_once"
        while True:
            remaining = max(deadline - time.time(), 0.0)
            message = await DBOS.recv_async(approval_topic(digest), timeout_seconds=remaining)
            if message is None:
                self.run.expired.add(call)
                break
            if _answers(message, call, digest):
                decision = message["decision"]
                break
            _log.warning("run %s: discarded an answer not for call %s", DBOS.workflow_id, call)
        await DBOS.set_event_async(PENDING_EVENT, None)
        return decision


def _answers(message: Any, call: str, digest: str) -> bool:
    return (
        isinstance(message, Mapping)
        and message.get("tool_call_id") == call
        and message.get("digest") == digest
        and message.get("decision") in ANSWERS
    )
