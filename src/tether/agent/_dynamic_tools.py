"""Dynamic tools (``docs/concepts.md``): a tool result activates tools, anchored in the transcript.

A result's ``added_tool_names`` (stored on its :class:`~tether.ai.ToolResultMessage`) makes
those tools of :attr:`AgentLoopConfig.available_tools` active from that point on: the next
request shows them to the model. Because the names live in the transcript, replaying a
transcript — continuing it, or handing it to a new :class:`~tether.agent.Agent` — activates
the same tools at the same point. Whenever the active set changes, and at the start of a run,
:attr:`AgentLoopConfig.system_prompt_for` (when given) rebuilds the system prompt from it;
a builder that fails is logged and the prompt stays as it was.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable

from tether.ai import ToolResultMessage

from ._types import AgentContext, AgentLoopConfig, AgentMessage, AgentTool

__all__ = [
    "activate_added_tools",
    "rebuild_system_prompt",
    "refuse_duplicate_names",
    "start_tool_set",
]

_log = logging.getLogger("tether.agent")


def refuse_duplicate_names(tools: Iterable[AgentTool], where: str) -> None:
    """``ValueError`` naming every name that two or more of ``tools`` share: a model tells
    tools apart only by name, so it would be shown both and only one would ever run."""
    counts = Counter(tool.name for tool in tools)
    shared = [f'"{name}" ({count} tools)' for name, count in counts.items() if count > 1]
    if shared:
        raise ValueError(
            f"Duplicate tool names in {where}: {', '.join(shared)}. Every tool needs its own name."
        )


def start_tool_set(context: AgentContext, config: AgentLoopConfig) -> None:
    """Before a run's first request: the tools the transcript so far activated, and the
    system prompt for the resulting set. Replays quietly: unknown names were logged when
    their results arrived."""
    activate_added_tools(context, context.messages, config, log_unknown=False)
    rebuild_system_prompt(context, config)


def activate_added_tools(
    context: AgentContext,
    messages: Iterable[AgentMessage],
    config: AgentLoopConfig,
    *,
    log_unknown: bool = True,
) -> bool:
    """Make active, in ``context.tools``, each available tool the tool results among
    ``messages`` name and that is not active yet; rebuild the system prompt if any was.

    Returns whether the active set changed. A name with no available tool is skipped (and
    logged when ``log_unknown``): a tool cannot conjure up another that the application did
    not offer. An active tool keeps its place when an available one has the same name.
    """
    available = {tool.name: tool for tool in config.available_tools}
    active = {tool.name for tool in context.tools}
    changed = False
    for message in messages:
        if not isinstance(message, ToolResultMessage) or not message.added_tool_names:
            continue
        for name in message.added_tool_names:
            if name in active:
                continue
            tool = available.get(name)
            if tool is None:
                if log_unknown:
                    _log.warning(
                        "tool result %s of %r adds unknown tool %r; it is not among the "
                        "available tools, so it stays inactive",
                        message.tool_call_id,
                        message.tool_name,
                        name,
                    )
                continue
            context.tools.append(tool)
            active.add(name)
            changed = True
    if changed:
        rebuild_system_prompt(context, config)
    return changed


def rebuild_system_prompt(context: AgentContext, config: AgentLoopConfig) -> None:
    """``context.system_prompt`` from ``config.system_prompt_for``, if given and it works."""
    if config.system_prompt_for is None:
        return
    try:
        prompt = config.system_prompt_for(list(context.tools))
    except Exception:
        _log.exception("system_prompt_for failed; the system prompt stays as it was")
        return
    if isinstance(prompt, str):
        context.system_prompt = prompt
    else:
        _log.error("system_prompt_for returned %s, not a str; prompt unchanged", type(prompt))
