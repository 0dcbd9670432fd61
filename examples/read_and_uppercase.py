"""An offline agent run: a scripted model reads a file with one tool, then hands its text to a
second tool. No API key, no network — the model is a :class:`tether.ai.faux.FauxModel`.

    python examples/read_and_uppercase.py [PATH]

Turn 1: the model asks for ``read_file(path)``. Turn 2: the model only now sees the file's text
(in the tool result of turn 1) and passes it to ``uppercase(text)``. Turn 3: it answers.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tether.agent import Agent, AgentEvent, tool
from tether.ai import AssistantMessage, Context, TextContent, ToolResultMessage
from tether.ai.faux import FauxModel, faux_message, faux_tool_call


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 text file and return its contents."""
    return Path(path).read_text(encoding="utf-8")


@tool
async def uppercase(text: str) -> str:
    """Return the text in upper case."""
    return text.upper()


def last_tool_text(context: Context) -> str:
    """What the most recent tool result said: the model's only way to learn it."""
    result = next(m for m in reversed(context.messages) if isinstance(m, ToolResultMessage))
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def pass_text_to_uppercase(context: Context) -> AssistantMessage:
    return faux_message(
        "The file says something; shouting it.",
        faux_tool_call("uppercase", {"text": last_tool_text(context)}),
    )


def answer(context: Context) -> AssistantMessage:
    return faux_message(f"Done. In capitals the file reads:\n{last_tool_text(context)}")


def show(event: AgentEvent) -> None:
    if event.type == "tool_execution_start":
        print(f"  -> {event.tool_name}({event.args})")
    elif event.type == "tool_execution_end":
        text = "".join(b.text for b in event.result.content if isinstance(b, TextContent))
        print(f"  <- {event.tool_name}: {text!r}{' (error)' if event.is_error else ''}")
    elif (
        event.type == "message_end"
        and isinstance(event.message, AssistantMessage)
        and (text := event.message.text())
    ):
        print(f"assistant: {text}")


async def main(path: Path) -> None:
    model = FauxModel(
        [
            faux_message("Let me read it.", faux_tool_call("read_file", {"path": str(path)})),
            pass_text_to_uppercase,
            answer,
        ]
    )
    agent = Agent(model=model.model, stream_fn=model.stream, tools=[read_file, uppercase])
    agent.subscribe(show)
    print(f"user: Read {path} and shout it.")
    await agent.prompt(f"Read {path} and shout it.")
    calls = len(model.contexts)
    print(f"({len(agent.state.messages)} messages in the transcript, {calls} model calls)")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        with tempfile.TemporaryDirectory() as scratch:
            sample = Path(scratch) / "note.txt"
            sample.write_text("tools are governed here.\n", encoding="utf-8")
            asyncio.run(main(sample))
