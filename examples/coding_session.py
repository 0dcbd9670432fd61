"""tether's main job, offline: an agent fixes a bug with the real coding tools.

    python examples/coding_session.py

A scratch directory gets a small program with a bug. A scripted model (no API key, no network)
reads the file with the real ``read`` tool, fixes it with ``edit``, runs it with ``bash``, and
reports what the program printed. Each step after the first is decided from what the previous
tool returned, as a real model would: the scripted steps look at the transcript they are sent.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from tether.agent import Agent, AgentEvent
from tether.ai import AssistantMessage, Context, TextContent, ToolResultMessage
from tether.ai.faux import FauxModel, faux_message, faux_tool_call
from tether.tools import (
    ToolDefinition,
    build_system_prompt,
    create_coding_tools,
    wrap_tool_definition,
)

PROGRAM = """def average(values):
    return sum(values) / len(values) + 1


print("average:", average([2, 4, 6]))
"""


def last_result(context: Context) -> str:
    result = next(m for m in reversed(context.messages) if isinstance(m, ToolResultMessage))
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


def fix_the_bug(context: Context) -> AssistantMessage:
    source = last_result(context)
    buggy = next(line for line in source.splitlines() if "len(values) + 1" in line)
    return faux_message(
        "The average adds 1 for no reason; removing it.",
        faux_tool_call(
            "edit",
            {
                "path": "stats.py",
                "edits": [
                    {"old_text": buggy.strip(), "new_text": "return sum(values) / len(values)"}
                ],
            },
        ),
    )


def run_it(context: Context) -> AssistantMessage:
    return faux_message(
        "Now running it.",
        faux_tool_call("bash", {"command": f"{sys.executable} stats.py", "timeout": 30}),
    )


def report(context: Context) -> AssistantMessage:
    return faux_message(f"Fixed. The program now prints: {last_result(context).strip()}")


def show_with(definitions: list[ToolDefinition]) -> Callable[[AgentEvent], None]:
    """An event listener printing each call and result the way its tool renders them, then
    what the model is shown."""
    by_name = {definition.name: definition for definition in definitions}

    def show(event: AgentEvent) -> None:
        if event.type == "tool_execution_start":
            render_call = by_name[event.tool_name].render_call
            print(f"  -> {render_call(event.args) if render_call else event.tool_name}")
        elif event.type == "tool_execution_end":
            render_result = by_name[event.tool_name].render_result
            summary = render_result(event.result, event.is_error) if render_result else ""
            text = "".join(b.text for b in event.result.content if isinstance(b, TextContent))
            print(f"  <- {summary}\n" + "\n".join(f"     | {line}" for line in text.splitlines()))
        else:
            show_assistant_text(event)

    return show


def show_assistant_text(event: AgentEvent) -> None:
    if (
        event.type == "message_end"
        and isinstance(event.message, AssistantMessage)
        and (text := event.message.text())
    ):
        print(f"assistant: {text}")


async def main(workspace: Path) -> None:
    (workspace / "stats.py").write_text(PROGRAM, encoding="utf-8")
    definitions = create_coding_tools(str(workspace))
    model = FauxModel(
        [
            faux_message(
                "Let me look at the program.", faux_tool_call("read", {"path": "stats.py"})
            ),
            fix_the_bug,
            run_it,
            report,
        ]
    )
    agent = Agent(
        model=model.model,
        stream_fn=model.stream,
        system_prompt=build_system_prompt(definitions, cwd=str(workspace)),
        tools=[wrap_tool_definition(d) for d in definitions],
    )
    agent.subscribe(show_with(definitions))
    print(f"workspace: {workspace}\nuser: stats.py prints the wrong average; fix it and run it.")
    await agent.prompt("stats.py prints the wrong average; fix it and run it.")
    print(f"\nstats.py is now:\n{(workspace / 'stats.py').read_text(encoding='utf-8')}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="tether-example-") as scratch:
        asyncio.run(main(Path(scratch)))
