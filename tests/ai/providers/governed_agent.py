"""The governed coding agent the providers' end-to-end tests drive: the real coding tools for a
workspace behind the real gate, streaming through ``tether.ai.providers.stream``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether.agent import Agent
from tether.ai import Model, ToolResultMessage
from tether.ai.providers import stream
from tether.gate import Approver, Gate
from tether.tools import create_coding_tools, wrap_tool_definition


def governed_agent(
    model: Model,
    workspace: Path,
    *,
    names: Sequence[str] = ("read", "edit"),
    approver: Approver | None = None,
    api_key: str | None = None,
) -> tuple[Agent, Gate]:
    gate = Gate("normal", approver, workspace=str(workspace))
    tools = [wrap_tool_definition(d) for d in create_coding_tools(str(workspace), names=names)]
    agent = Agent(
        model=model,
        stream_fn=stream,
        system_prompt="You edit files.",
        tools=tools,
        api_key=api_key,
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call,
    )
    return agent, gate


def tool_outcomes(messages: Sequence[object]) -> list[tuple[str, bool]]:
    """``(tool name, is_error)`` of each tool result among ``messages``."""
    return [(m.tool_name, m.is_error) for m in messages if isinstance(m, ToolResultMessage)]
