"""Calls a run left unanswered when it died, answered honestly on the next run.

A recorded run writes ``tool_call_started`` (a ``custom`` entry naming the call) as each call
begins and the call's result when it ends. A run killed in between leaves calls with no result;
:func:`settle_interrupted_calls`, run when the session is continued, gives each one a result
entry that tells the model what is known: a call that had started *may have run* (its effects
must be checked before repeating it), and one that never started did not run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.ai import AssistantMessage, TextContent, ToolResultMessage

from ._entries import CustomEntry, MessageEntry

if TYPE_CHECKING:
    from ._session import Session

__all__ = [
    "CALL_STARTED",
    "INTERRUPTED_CALL",
    "NOT_STARTED_CALL",
    "call_started_entry",
    "settle_interrupted_calls",
]

CALL_STARTED = "tool_call_started"
INTERRUPTED_CALL = (
    "This call was interrupted when tether stopped; it may have run. Check its effects before"
    " repeating it."
)
NOT_STARTED_CALL = "Not executed: tether stopped before this call started."


def call_started_entry(tool_call_id: str, tool_name: str) -> CustomEntry:
    """The entry written as a call begins executing."""
    return CustomEntry(
        custom_type=CALL_STARTED, data={"tool_call_id": tool_call_id, "tool_name": tool_name}
    )


def settle_interrupted_calls(session: Session) -> list[ToolResultMessage]:
    """Answer the calls of the branch's last response that have no result; returns the results
    appended (none when the run ended cleanly). Only a response still at the end of the branch
    — followed by nothing but its own results and bookkeeping — is settled; an older gap is
    left to the loop, which answers it without claiming anything."""
    path = session.path_to()
    for position in range(len(path) - 1, -1, -1):
        entry = path[position]
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            break
    else:
        return []
    response = entry.message
    assert isinstance(response, AssistantMessage)
    if response.failed or not response.tool_calls():
        return []
    after = path[position + 1 :]
    answered: set[str] = set()
    started: set[str] = set()
    for later in after:
        if isinstance(later, MessageEntry):
            if not isinstance(later.message, ToolResultMessage):
                return []
            answered.add(later.message.tool_call_id)
        elif (
            isinstance(later, CustomEntry)
            and later.custom_type == CALL_STARTED
            and isinstance(later.data, dict)
        ):
            started.add(str(later.data.get("tool_call_id")))
    results = []
    for call in response.tool_calls():
        if call.id in answered:
            continue
        text = INTERRUPTED_CALL if call.id in started else NOT_STARTED_CALL
        result = ToolResultMessage(call.id, call.name, [TextContent(text)], None, True)
        session.append_message(result)
        results.append(result)
    return results
