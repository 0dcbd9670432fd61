"""A call whose arguments a provider could not parse strictly is answered, never executed."""

from __future__ import annotations

from tether.agent import Agent, tool
from tether.ai import AssistantMessage, ToolCall, ToolResultMessage
from tether.ai.faux import FauxModel, faux_text

runs: list[str] = []


@tool
def write(path: str, content: str) -> str:
    """Write a file."""
    runs.append(path)
    return "written"


async def test_a_call_with_an_arguments_error_gets_that_error_and_does_not_run():
    cut = ToolCall("c1", "write", {"path": "a.txt"}, arguments_error="its arguments were cut off")
    model = FauxModel([AssistantMessage(content=[cut], stop_reason="tool_use"), faux_text("sorry")])
    agent = Agent(model=model.model, stream_fn=model.stream, tools=[write])
    await agent.prompt("write it")
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert runs == []
    assert len(results) == 1
    assert results[0].is_error
    assert results[0].content[0].text == 'Tool "write" was not run: its arguments were cut off'
