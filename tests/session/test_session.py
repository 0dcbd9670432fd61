"""Sessions on disk: the file format, the tree, branches and forks, torn lines, recording."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tether.agent import Agent, tool
from tether.ai import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate
from tether.session import (
    CompactionEntry,
    LabelEntry,
    ModelChangeEntry,
    Session,
    SessionError,
    SessionStore,
    ThinkingLevelChangeEntry,
)


def lines_of(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def user(text: str) -> UserMessage:
    return UserMessage(text)


def reply(text: str) -> AssistantMessage:
    return AssistantMessage([TextContent(text)])


def test_a_new_session_file_starts_with_the_header(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path / "project"))
    assert not os.path.exists(session.path)  # written with its first entry, not before
    session.append_message(user("hi"))
    header = lines_of(session.path)[0]
    assert header["type"] == "session"
    assert header["version"] == 1
    assert header["id"] == session.id
    assert header["cwd"] == str(tmp_path / "project")
    assert header["parent_session"] is None
    assert header["timestamp"].endswith("Z")


def test_entries_are_lines_with_ids_parents_and_timestamps(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    first = session.append_message(user("hi"))
    second = session.append(ModelChangeEntry(provider="openai", model="gpt-4.1"))
    lines = lines_of(session.path)
    assert [line["type"] for line in lines] == ["session", "message", "model_change"]
    assert lines[1]["id"] == first and lines[1]["parent_id"] is None
    assert lines[2]["id"] == second and lines[2]["parent_id"] == first
    assert lines[1]["message"]["role"] == "user"
    assert lines[1]["message"]["content"] == "hi"
    assert lines[2]["provider"] == "openai" and lines[2]["model"] == "gpt-4.1"


def test_reopening_gives_the_same_context_model_and_thinking_level(tmp_path):
    store = SessionStore(str(tmp_path))
    session = store.create(str(tmp_path))
    session.append(ModelChangeEntry(provider="anthropic", model="claude-sonnet-4-5"))
    session.append(ThinkingLevelChangeEntry(level="high"))
    session.append_message(user("one"))
    session.append_message(reply("two"))
    session.close()
    again = store.open(session.id[:6])
    assert [m.role for m in again.messages()] == ["user", "assistant"]
    assert again.messages()[1].content[0].text == "two"
    assert again.model_ref() == "anthropic/claude-sonnet-4-5"
    assert again.thinking_level() == "high"
    assert again.warnings == []


def test_a_branch_shares_the_file_and_survives_reopening(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    root = session.append_message(user("question"))
    session.append_message(reply("first answer"))
    session.branch(root)
    session.append_message(reply("second answer"))
    assert session.messages()[0].content == "question"
    assert session.messages()[-1].content[0].text == "second answer"
    reopened = Session.load(session.path)
    texts = [
        m.content if isinstance(m.content, str) else m.content[0].text for m in reopened.messages()
    ]
    assert texts == ["question", "second answer"]
    reopened.branch(root)
    assert [m.role for m in Session.load(session.path).messages()] == ["user"]


def test_fork_copies_the_path_into_a_new_file_naming_its_parent(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    first = session.append_message(user("a"))
    session.append_message(reply("b"))
    session.append_message(user("c"))
    forked = session.fork(first)
    assert forked.path != session.path
    header = lines_of(forked.path)[0]
    assert header["parent_session"] == session.id
    assert [m.content for m in Session.load(forked.path).messages()] == ["a"]


def test_a_compaction_contributes_its_summary_then_the_kept_tail(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    session.append_message(user("old question"))
    session.append_message(reply("old answer"))
    kept = session.append_message(user("recent question"))
    session.append_message(reply("recent answer"))
    session.append(
        CompactionEntry(summary="they talked", first_kept_entry_id=kept, tokens_before=900)
    )
    session.append_message(user("next"))
    messages = session.messages()
    assert "they talked" in messages[0].content
    assert [
        m.content if isinstance(m.content, str) else m.content[0].text for m in messages[1:]
    ] == [
        "recent question",
        "recent answer",
        "next",
    ]
    assert len(lines_of(session.path)) == 7  # the file still holds everything


def test_a_torn_last_line_and_a_malformed_line_are_skipped_with_warnings(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    session.append_message(user("kept"))
    session.close()
    with open(session.path, "a", encoding="utf-8") as handle:
        handle.write("this is not json\n")
        handle.write('{"type": "message", "id": "zz", "parent_id": null, "message": {"role": "us')
    loaded = Session.load(session.path)
    assert [m.content for m in loaded.messages()] == ["kept"]
    assert len(loaded.warnings) == 2
    assert ":3: skipped a malformed line" in loaded.warnings[0]
    assert ":4: skipped a torn last line" in loaded.warnings[1]
    loaded.append_message(user("after the tear"))
    assert [m.content for m in Session.load(loaded.path).messages()] == ["kept", "after the tear"]


def test_a_file_without_a_header_is_an_error_naming_it(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"type": "message"}\n')
    with pytest.raises(SessionError, match=str(path)):
        Session.load(str(path))
    with pytest.raises(SessionError, match="No session file"):
        Session.load(str(tmp_path / "missing.jsonl"))


def test_store_lists_newest_first_and_finds_the_most_recent_of_a_directory(tmp_path):
    store = SessionStore(str(tmp_path / "sessions"))
    here, elsewhere = str(tmp_path / "here"), str(tmp_path / "elsewhere")
    older = store.create(here)
    older.append_message(user("first task"))
    os.utime(older.path, (1_000_000, 1_000_000))
    newer = store.create(here)
    newer.append_message(user("second task"))
    newer.append(LabelEntry(target_id=newer.leaf_id or "", label="checkpoint"))
    store.create(elsewhere).append_message(user("third task"))
    store.create(here)  # nothing written: no file, not listed
    infos = store.list(here)
    assert [info.id for info in infos] == [newer.id, older.id]
    assert infos[0].first_message == "second task"
    assert infos[0].message_count == 1
    assert len(store.list()) == 3
    recent = store.most_recent(here)
    assert recent is not None and recent.id == newer.id
    assert store.most_recent(str(tmp_path / "nowhere")) is None


def test_an_ambiguous_or_unknown_prefix_is_an_error(tmp_path):
    store = SessionStore(str(tmp_path))
    store.create(str(tmp_path))
    with pytest.raises(SessionError, match="No session with id"):
        store.open("not-an-id")


@tool
def shout(text: str) -> str:
    """Upper-case text."""
    return text.upper()


async def test_attach_writes_the_prompt_before_the_request_and_every_message(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    seen_on_disk: list[list[str]] = []

    def first_turn(context):
        seen_on_disk.append([line["type"] for line in lines_of(session.path)])
        return faux_message(faux_tool_call("shout", {"text": "hi"}))

    model = FauxModel([first_turn, faux_text("done")])
    agent = Agent(model=model.model, stream_fn=model.stream, tools=[shout])
    session.attach(agent)
    await agent.prompt("shout hi")
    assert seen_on_disk == [["session", "message"]]
    lines = lines_of(session.path)[1:]
    roles = [x["message"]["role"] if x["type"] == "message" else x["type"] for x in lines]
    assert roles == ["user", "assistant", "custom", "tool_result", "assistant"]
    assert lines[2]["custom_type"] == "tool_call_started"  # written as the call began
    assert lines[2]["data"]["tool_call_id"] == lines[3]["message"]["tool_call_id"]
    restored = Session.load(session.path).messages()
    assert isinstance(restored[2], ToolResultMessage) and restored[2].content[0].text == "HI"


class AllowOnce:
    async def confirm(self, request):
        return "allow_once"


async def test_attach_records_a_persons_decision_as_an_approval_entry(tmp_path):
    session = SessionStore(str(tmp_path)).create(str(tmp_path))
    gate = Gate("normal", AllowOnce(), workspace=str(tmp_path))
    model = FauxModel(
        [faux_message(faux_tool_call("shout", {"text": "x"}, id="c1")), faux_text("ok")]
    )
    agent = Agent(
        model=model.model,
        stream_fn=model.stream,
        tools=[shout],
        before_tool_call=gate.before_tool_call,
    )
    session.attach(agent)  # the gate is found through the agent's before_tool_call hook
    await agent.prompt("go")
    approvals = [line for line in lines_of(session.path) if line["type"] == "approval"]
    assert len(approvals) == 1
    assert approvals[0]["tool_call_id"] == "c1"
    assert approvals[0]["tool_name"] == "shout"
    assert approvals[0]["decided_by"] == "approver"
    assert approvals[0]["decision"] == "allowed"
    assert len(approvals[0]["digest"]) == 64


def test_kill_9_while_writing_loses_at_most_the_line_in_flight(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        from tether.ai import UserMessage
        from tether.session import SessionStore
        session = SessionStore({str(tmp_path)!r}).create({str(tmp_path)!r})
        print(session.path, flush=True)
        i = 0
        while True:
            session.append_message(UserMessage("x" * 5000 + str(i)))
            i += 1
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    while not os.path.exists(path) or os.path.getsize(path) < 2_000_000:
        pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    loaded = Session.load(path)
    assert len(loaded.warnings) <= 1
    texts = [m.content for m in loaded.messages()]
    assert len(texts) > 100
    assert texts == ["x" * 5000 + str(i) for i in range(len(texts))]
