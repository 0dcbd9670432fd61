"""Transcript repair: the one place a transcript is made valid for a request.

A transcript may hold a turn that failed half-way or a call whose result was never recorded,
and every API refuses some of that. :func:`repair_transcript` returns a transcript every
provider accepts, leaving the given messages untouched:

- an assistant message that ended in ``error`` or ``aborted`` is left out (it is an unfinished
  turn; its calls, cut off, never ran), and so are tool results that answer no call of the
  assistant message they follow, or answer one twice;
- a call without a result gets an error result (:data:`NO_RESULT_RECORDED`), placed after the
  other results, before the next user or assistant message.

The agent loop applies it to every request, and so does each provider's
``transform_messages`` for callers that stream without the loop; on a repaired transcript it
changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ._types import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage

__all__ = ["NO_RESULT_RECORDED", "repair_transcript"]

NO_RESULT_RECORDED = "no result was recorded for this call"


def repair_transcript(messages: Sequence[Message]) -> list[Message]:
    """``messages`` as any provider accepts them (see the module's rules)."""
    out: list[Message] = []
    calls: list[ToolCall] = []
    # per call id of the last assistant message, the results it still needs; an id answered
    # in full is dropped, so an empty dict means every call has its result
    unanswered: dict[str, int] = {}
    asked_at = 0.0
    for message in messages:
        if isinstance(message, ToolResultMessage):
            left = unanswered.pop(message.tool_call_id, 0)
            if left:
                out.append(message)
                if left > 1:
                    unanswered[message.tool_call_id] = left - 1
            continue
        if isinstance(message, AssistantMessage) and message.failed:
            continue
        if unanswered:
            out.extend(_unanswered(calls, unanswered, asked_at))
        out.append(message)
        calls = message.tool_calls() if isinstance(message, AssistantMessage) else []
        unanswered = _open_calls(calls)
        asked_at = message.timestamp
    if unanswered:
        out.extend(_unanswered(calls, unanswered, asked_at))
    return out


def _open_calls(calls: list[ToolCall]) -> dict[str, int]:
    """How many results each call id of ``calls`` still needs (more than one for a repeated id)."""
    ids = [call.id for call in calls]
    counts = dict.fromkeys(ids, 1)
    if len(counts) < len(ids):  # a repeated id: count them
        counts = dict(Counter(ids))
    return counts


def _unanswered(
    calls: list[ToolCall], unanswered: dict[str, int], asked_at: float
) -> list[ToolResultMessage]:
    """An error result for each call still open, in the order of the calls."""
    missing: list[ToolCall] = []
    for call in calls:
        left = unanswered.pop(call.id, 0)
        if left:
            missing.append(call)
            if left > 1:
                unanswered[call.id] = left - 1
    return [
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(NO_RESULT_RECORDED)],
            is_error=True,
            timestamp=asked_at,
        )
        for call in missing
    ]
