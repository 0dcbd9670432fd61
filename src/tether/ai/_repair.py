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
    awaiting: list[ToolCall] = []
    asked_at = 0.0
    for message in messages:
        if isinstance(message, ToolResultMessage):
            call = next((c for c in awaiting if c.id == message.tool_call_id), None)
            if call is not None:
                awaiting.remove(call)
                out.append(message)
            continue
        if isinstance(message, AssistantMessage) and message.failed:
            continue
        out.extend(_unanswered(awaiting, asked_at))
        out.append(message)
        if isinstance(message, AssistantMessage):
            awaiting, asked_at = message.tool_calls(), message.timestamp
        else:
            awaiting = []
    out.extend(_unanswered(awaiting, asked_at))
    return out


def _unanswered(calls: list[ToolCall], asked_at: float) -> list[ToolResultMessage]:
    return [
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(NO_RESULT_RECORDED)],
            is_error=True,
            timestamp=asked_at,
        )
        for call in calls
    ]
