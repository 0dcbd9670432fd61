"""End to end: the agent loop with the real coding tools and the gate, driven by the
anthropic-messages provider through the real SDK against a loopback server, reads a file, edits
it and answers; each request carries the earlier turns in Anthropic's format."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from tether.ai import AssistantMessage
from tether.gate import ScriptedApprover

from .anthropic_wire import (
    KEY,
    message_end,
    message_start,
    model,
    pieces,
    reply,
    text_block,
    thinking_block,
    tool_block,
)
from .governed_agent import governed_agent, tool_outcomes
from .loopback import LoopbackServer

EDIT = {"path": "greeting.txt", "edits": [{"old_text": "hello", "new_text": "goodbye"}]}


async def test_the_agent_reads_and_edits_a_file_through_anthropic(tmp_path: Path) -> None:
    target = tmp_path / "greeting.txt"
    target.write_text("hello world\n")
    turns = [
        reply(
            message_start(),
            thinking_block(0, ["Read it first."], "sig-read"),
            tool_block(1, "toolu_read", "read", pieces(json.dumps({"path": "greeting.txt"}), 5)),
            message_end("tool_use"),
        ),
        reply(
            message_start(cache_read=900),
            text_block(0, "Now the edit."),
            tool_block(1, "toolu_edit", "edit", pieces(json.dumps(EDIT), 7)),
            message_end("tool_use"),
        ),
        reply(message_start(), text_block(0, "Changed hello to goodbye."), message_end("end_turn")),
    ]
    async with LoopbackServer(turns) as server:
        agent, gate = governed_agent(
            model(server.url),
            tmp_path,
            names=("read", "bash", "edit", "write"),
            approver=ScriptedApprover(itertools.repeat("allow_once")),
            api_key=KEY,
        )
        added = await agent.prompt("Replace hello with goodbye in greeting.txt")

    assert target.read_text() == "goodbye world\n"
    final = added[-1]
    assert isinstance(final, AssistantMessage)
    assert final.text() == "Changed hello to goodbye."
    assert tool_outcomes(added) == [("read", False), ("edit", False)]
    assert [r.tool_name for r in gate.records] == ["read", "edit"]
    assert all(r.outcome == "allowed" for r in gate.records)

    assert len(server.requests) == 3
    second = server.requests[1].json()["messages"]
    assert [turn["role"] for turn in second] == ["user", "assistant", "user"]
    assert second[1]["content"] == [
        {"type": "thinking", "thinking": "Read it first.", "signature": "sig-read"},
        {"type": "tool_use", "id": "toolu_read", "name": "read", "input": {"path": "greeting.txt"}},
    ]
    (read_result,) = second[2]["content"]
    assert read_result["type"] == "tool_result"
    assert read_result["tool_use_id"] == "toolu_read"
    assert "hello world" in read_result["content"][0]["text"]

    third = server.requests[2].json()
    assert third["system"][0]["text"] == "You edit files."
    assert {tool["name"] for tool in third["tools"]} == {"read", "bash", "edit", "write"}
    roles = [turn["role"] for turn in third["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    edit_call = third["messages"][3]["content"][1]
    assert edit_call == {"type": "tool_use", "id": "toolu_edit", "name": "edit", "input": EDIT}
    (edit_result,) = third["messages"][4]["content"]
    assert edit_result["tool_use_id"] == "toolu_edit"
    assert edit_result["is_error"] is False
