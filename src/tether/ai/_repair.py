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

from collections.abc import Sequence

from ._types import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage

__all__ = ["NO_RESULT_RECORDED", "repair_transcript"]

NO_RESULT_RECORDED = "no result was recorded for this call"


def repair_transcript(messages: Sequence[Message]) -> list[Message]:
    """``messages`` as any provider accepts them (see the module's rules)."""
    out: list[Message] = []
    calls: list[ToolCall] = []
    unanswered: dict[str, int] = {}  # per call id of the last assistant message: still open
    asked_at = 0.0
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if unanswered.get(message.tool_call_id, 0) > 0:
                unanswered[message.tool_call_id] -= 1
                out.append(message)
            continue
        if isinstance(message, AssistantMessage) and message.failed:
            continue
        out.extend(_unanswered(calls, unanswered, asked_at))
        out.append(message)
        calls = message.tool_calls() if isinstance(message, AssistantMessage) else []
        unanswered = {}
        for call in calls:
            unanswered[call.id] = unanswered.get(call.id, 0) + 1
        asked_at = message.timestamp
    out.extend(_unanswered(calls, unanswered, asked_at))
    return out


def _unanswered(
    calls: list[ToolCall], unanswered: dict[str, int], asked_at: float
) -> list[ToolResultMessage]:
    """An error result for each call still open, in the order of the calls."""
    missing: list[ToolCall] = []
    for call in calls:
        if unanswered.get(call.id, 0) > 0:
            unanswered[call.id] -= 1
            missing.append(call)
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
