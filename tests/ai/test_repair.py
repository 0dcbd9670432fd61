"""One transcript repair, one text: what the loop sends and what a provider sends agree, and a
repaired transcript is left as it is."""

from __future__ import annotations

from tether.ai import (
    NO_RESULT_RECORDED,
    AssistantMessage,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    repair_transcript,
)
from tether.ai.providers import transform_messages


def broken_transcript() -> list:
    return [
        UserMessage("go"),
        AssistantMessage([ToolCall("a", "ls", {}), ToolCall("b", "ls", {})], "tool_use"),
        ToolResultMessage("a", "ls", [TextContent("x")]),
        ToolResultMessage("a", "ls", [TextContent("again")]),  # a second answer
        AssistantMessage([ToolCall("c", "ls", {})], "aborted"),  # a turn cut off
        ToolResultMessage("c", "ls", [TextContent("orphan")]),
        UserMessage("go on"),
    ]


def test_failed_turns_and_stray_results_go_and_every_call_is_answered_once() -> None:
    repaired = repair_transcript(broken_transcript())
    results = [m for m in repaired if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.content[0].text) for r in results] == [  # type: ignore[union-attr]
        ("a", "x"),
        ("b", NO_RESULT_RECORDED),
    ]
    assert results[1].is_error
    assert not any(isinstance(m, AssistantMessage) and m.failed for m in repaired)
    assert repaired[-1] == UserMessage("go on", timestamp=repaired[-1].timestamp)


def test_repair_is_idempotent_and_the_providers_apply_the_same_rule() -> None:
    once = repair_transcript(broken_transcript())
    assert repair_transcript(once) == once
    model = Model("m", "p", "openai-completions")
    sent = transform_messages(broken_transcript(), model)
    assert [type(m).__name__ for m in sent] == [type(m).__name__ for m in once]
    texts = [m.content[0].text for m in sent if isinstance(m, ToolResultMessage)]  # type: ignore[union-attr]
    assert texts == ["x", NO_RESULT_RECORDED]


def test_a_repeated_call_id_needs_one_result_per_call_in_any_order() -> None:
    calls = [ToolCall("a", "ls", {}), ToolCall("b", "ls", {}), ToolCall("a", "cat", {})]
    answered_once = [
        UserMessage("go"),
        AssistantMessage(calls, "tool_use"),
        ToolResultMessage("b", "ls", [TextContent("b")]),
        ToolResultMessage("a", "ls", [TextContent("a1")]),
    ]
    repaired = repair_transcript(answered_once)
    results = [m for m in repaired if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.tool_name, r.content[0].text) for r in results] == [  # type: ignore[union-attr]
        ("b", "ls", "b"),
        ("a", "ls", "a1"),
        ("a", "ls", NO_RESULT_RECORDED),  # the first call of that id: results carry no order
    ]
    answered_twice = [*answered_once, ToolResultMessage("a", "cat", [TextContent("a2")])]
    assert repair_transcript(answered_twice) == answered_twice
