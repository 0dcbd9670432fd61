"""End to end: the agent loop with the real coding tools and the gate, driven by the
openai-responses provider against a loopback server, reads a file and edits it."""

from __future__ import annotations

import json
from pathlib import Path

from tether.ai import AssistantMessage, Model, ModelCost

from . import responses_events as ev
from .governed_agent import governed_agent, tool_outcomes
from .loopback import LoopbackServer


async def test_the_agent_reads_and_edits_a_file_through_the_responses_api(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("colour: blue\n")
    thought = ev.reasoning_item("rs_1", "Read the file first.", encrypted="gAAAA-turn-one")
    edit = {"path": "notes.txt", "edits": [{"old_text": "blue", "new_text": "green"}]}
    script = [
        ev.reply(
            ev.created("resp_1"),
            *ev.reasoning(0, thought),
            *ev.function_call(1, "call_read", "fc_read", "read", {"path": "notes.txt"}, pieces=3),
            ev.completed(),
        ),
        ev.reply(
            ev.created("resp_2"),
            *ev.text_message(0, "Changing the colour."),
            *ev.function_call(1, "call_edit", "fc_edit", "edit", edit, pieces=5),
            ev.completed(),
        ),
        ev.reply(
            ev.created("resp_3"), *ev.text_message(0, "Done: it is green now."), ev.completed()
        ),
    ]
    async with LoopbackServer(script) as server:
        model = Model(
            id="gpt-test",
            provider="openai",
            api="openai-responses",
            base_url=server.url + "/v1",
            reasoning=True,
            cost=ModelCost(input=1.0, output=4.0),
        )
        agent, _ = governed_agent(model, tmp_path, api_key="sk-test-agent-0123456789")
        added = await agent.prompt("Make the colour in notes.txt green.")
        requests = [request.json() for request in server.requests]

    assert notes.read_text() == "colour: green\n"
    assert tool_outcomes(added) == [("read", False), ("edit", False)]
    final = added[-1]
    assert isinstance(final, AssistantMessage) and final.text() == "Done: it is green now."
    assert agent.state.error is None

    assert len(requests) == 3 and all(r["store"] is False for r in requests)
    assert {t["name"] for t in requests[0]["tools"]} == {"read", "edit"}
    second, third = requests[1]["input"], requests[2]["input"]
    assert second[1] == thought  # the reasoning item, verbatim
    assert second[2] == {
        "type": "function_call",
        "call_id": "call_read",
        "name": "read",
        "arguments": '{"path": "notes.txt"}',
        "id": "fc_read",
    }
    assert second[3]["type"] == "function_call_output" and second[3]["call_id"] == "call_read"
    assert "colour: blue" in second[3]["output"]
    assert third[: len(second)] == second  # the whole first turn again: nothing is stored
    edit_call, edit_output = third[-2:]
    assert edit_call["type"] == "function_call" and edit_call["call_id"] == "call_edit"
    assert json.loads(edit_call["arguments"]) == edit
    assert "id" not in edit_call  # no reasoning item in that turn: the item id stays home
    assert edit_output["type"] == "function_call_output"
    assert edit_output["call_id"] == "call_edit"
