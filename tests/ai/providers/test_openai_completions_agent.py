"""End to end: the agent loop with the real coding tools and the gate, driven by the
openai-completions provider against a loopback Chat Completions server, reads a file and
edits it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether.ai import AssistantMessage, Model, ModelCost, ToolResultMessage

from .governed_agent import governed_agent, tool_outcomes
from .loopback import LoopbackServer, Reply, sse


def delta(content: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-e2e",
        "choices": [{"index": 0, "delta": content, "finish_reason": finish}],
    }


def tool_call_turn(call_id: str, name: str, arguments: dict[str, Any], text: str = "") -> Reply:
    """One call streamed OpenAI's way: id and name first, then the arguments in small pieces."""
    raw = json.dumps(arguments)
    chunks = [delta({"role": "assistant", "content": text or None})]
    chunks.append(
        delta(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ]
            }
        )
    )
    chunks += [
        delta({"tool_calls": [{"index": 0, "function": {"arguments": raw[i : i + 7]}}]})
        for i in range(0, len(raw), 7)
    ]
    chunks.append(delta({}, "tool_calls"))
    usage = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    chunks.append({"id": "chatcmpl-e2e", "choices": [], "usage": usage})
    return Reply(200, sse(chunks, done=True))


def text_turn(text: str) -> Reply:
    chunks = [delta({"role": "assistant", "content": text}), delta({}, "stop")]
    return Reply(200, sse(chunks, done=True))


async def test_the_agent_reads_and_edits_a_file_through_chat_completions(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("colour: blue\n")
    edit = {"path": "notes.txt", "edits": [{"old_text": "blue", "new_text": "green"}]}
    script = [
        tool_call_turn("call_read", "read", {"path": "notes.txt"}),
        tool_call_turn("call_edit", "edit", edit, text="Changing the colour."),
        text_turn("Done: it is green now."),
    ]
    async with LoopbackServer(script) as server:
        model = Model(
            id="qwen2.5-coder:7b",
            provider="loopback",
            api="openai-completions",
            base_url=server.url + "/v1",
            cost=ModelCost(input=1.0, output=4.0),
        )
        agent, _ = governed_agent(model, tmp_path)
        added = await agent.prompt("Make the colour in notes.txt green.")
        requests = [request.json() for request in server.requests]

    assert notes.read_text() == "colour: green\n"
    assert tool_outcomes(added) == [("read", False), ("edit", False)]
    final = added[-1]
    assert isinstance(final, AssistantMessage) and final.text() == "Done: it is green now."
    assert agent.state.error is None
    first_turn = added[1]
    assert isinstance(first_turn, AssistantMessage)
    assert first_turn.usage.input == 120 and first_turn.usage.cost > 0

    assert len(requests) == 3
    assert {t["function"]["name"] for t in requests[0]["tools"]} == {"read", "edit"}
    assert requests[0]["messages"][0] == {"role": "system", "content": "You edit files."}
    second, third = requests[1]["messages"], requests[2]["messages"]
    assert second[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_read",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "notes.txt"}'},
            }
        ],
    }
    assert second[3]["role"] == "tool" and second[3]["tool_call_id"] == "call_read"
    assert "colour: blue" in second[3]["content"]
    assert third[: len(second)] == second
    edit_call, edit_result = third[-2:]
    assert edit_call["content"] == "Changing the colour."
    (call,) = edit_call["tool_calls"]
    assert call["id"] == "call_edit" and json.loads(call["function"]["arguments"]) == edit
    assert edit_result["role"] == "tool" and edit_result["tool_call_id"] == "call_edit"


async def test_a_call_cut_off_by_the_token_limit_is_never_run(tmp_path: Path) -> None:
    cut = [
        delta({"tool_calls": [{"index": 0, "id": "call_w", "function": {"name": "write"}}]}),
        delta({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "out.txt", '}}]}),
        delta({"tool_calls": [{"index": 0, "function": {"arguments": '"content": "half of'}}]}),
        delta({}, "length"),
    ]
    script = [Reply(200, sse(cut, done=True)), text_turn("I will split it.")]
    async with LoopbackServer(script) as server:
        model = Model("m", "loopback", "openai-completions", base_url=server.url + "/v1")
        agent, _ = governed_agent(model, tmp_path, names=("write",))
        added = await agent.prompt("Write out.txt.")
        requests = [request.json() for request in server.requests]

    assert not (tmp_path / "out.txt").exists()
    cut_turn = added[1]
    assert isinstance(cut_turn, AssistantMessage) and cut_turn.stop_reason == "length"
    (call,) = cut_turn.tool_calls()
    assert call.arguments_error is not None and "cut off" in call.arguments_error
    (result,) = [m for m in added if isinstance(m, ToolResultMessage)]
    assert result.is_error and result.tool_call_id == "call_w"
    tool_message = requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_w"
    assert "not executed" in tool_message["content"]
