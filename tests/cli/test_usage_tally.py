"""Token counts with unreported usage kept apart from zero."""

from __future__ import annotations

from tether.ai import AssistantMessage, TextContent, Usage
from tether.cli._usage_tally import UsageTally


def reply(usage: Usage | None = None, stop: str = "stop", text: str = "x") -> AssistantMessage:
    content = [TextContent(text)] if text else []
    return AssistantMessage(content, stop_reason=stop, usage=usage or Usage())  # type: ignore[arg-type]


def test_reported_usage_is_summed_with_the_cache_in_the_prompt():
    tally = UsageTally()
    tally.add(reply(Usage(input=100, output=20, cache_read=50, cache_write=5, cost=0.5)))
    tally.add(reply(Usage(input=10, output=2, cost=0.25)))
    assert tally.tokens_text() == "165 in / 22 out"
    assert tally.tokens_text(with_cache=False, between=" · ") == "110 in · 22 out"
    assert tally.cost_text() == "$0.7500"


def test_a_reply_without_usage_is_unknown_not_zero():
    tally = UsageTally()
    tally.add(reply())
    assert tally.unknown
    assert tally.tokens_text() == "unknown (the server reported no usage)"
    assert tally.cost_text() == "cost unknown"


def test_some_replies_without_usage_make_the_counts_a_floor():
    tally = UsageTally()
    tally.add(reply(Usage(input=100, output=20)))
    tally.add(reply())
    tally.add(reply(stop="length"))
    assert tally.tokens_text() == "100+ in / 20+ out (2 of 3 replies reported no usage)"


def test_a_failure_that_never_reached_a_server_counts_neither_way():
    tally = UsageTally()
    tally.add(reply(stop="error", text=""))
    assert not tally.unknown and tally.tokens_text() == "none (no model reply)"
    tally.add(reply(stop="error", text="partial"))  # cut mid-stream: its usage never came
    assert tally.unknown
