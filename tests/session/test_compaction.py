"""The compactor on its own: where it cuts, what it sends, what it writes."""

from __future__ import annotations

from tether.ai import AssistantMessage, Model, TextContent, ToolCall, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_text
from tether.session import CompactionEntry, Compactor, SessionStore, estimate_tokens


def transcript() -> list:
    return [
        UserMessage("old " * 500),
        AssistantMessage([ToolCall("c1", "read", {"path": "a"})], stop_reason="tool_use"),
        ToolResultMessage("c1", "read", [TextContent("x" * 4000)]),
        AssistantMessage([TextContent("done reading")]),
        UserMessage("new question " * 20),
    ]


async def test_it_summarises_before_a_turn_boundary_and_keeps_the_tail(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    messages = transcript()
    for message in messages:
        session.append_message(message)
    faux = FauxModel([faux_text("the summary")])
    model = Model("m", "faux", "faux", context_window=2000)
    compactor = Compactor(session, model, faux.stream, reserve_tokens=500, keep_recent_tokens=300)
    assert estimate_tokens(messages) > 1500
    view = await compactor(messages, None)
    assert "the summary" in view[0].content
    assert view[1:] == messages[3:]
    sent = faux.contexts[0].messages[0].content
    assert "old old" in sent and "done reading" not in sent
    entry = session.entries[-1]
    assert isinstance(entry, CompactionEntry)
    assert entry.first_kept_entry_id == session.entries[3].id
    assert [m is n for m, n in zip(session.messages()[1:], messages[3:], strict=True)] == [
        True,
        True,
    ]


async def test_a_small_context_is_sent_as_is_and_nothing_is_written(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    faux = FauxModel([])
    compactor = Compactor(session, Model("m", "faux", "faux", context_window=100_000), faux.stream)
    messages = transcript()
    assert await compactor(messages, None) == messages
    assert faux.contexts == [] and session.entries == []


async def test_a_failed_summary_leaves_the_context_whole(tmp_path):
    faux = FauxModel([AssistantMessage([], stop_reason="error", error_message="down")])
    compactor = Compactor(None, Model("m", "faux", "faux", context_window=2000), faux.stream)
    compactor.force_next = True
    messages = transcript()
    assert await compactor(messages, None) == messages
    assert compactor.compactions == 0


async def test_it_never_cuts_between_a_call_and_its_result():
    messages = [
        UserMessage("q"),
        AssistantMessage([ToolCall("c1", "read", {"path": "a"})], stop_reason="tool_use"),
        ToolResultMessage("c1", "read", [TextContent("y" * 8000)]),
    ]
    faux = FauxModel([faux_text("s")])
    compactor = Compactor(None, Model("m", "faux", "faux", context_window=1000), faux.stream)
    view = await compactor(messages, None)
    assert isinstance(view[1], AssistantMessage) and isinstance(view[2], ToolResultMessage)
