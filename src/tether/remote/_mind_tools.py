"""The Mind's tools over its hands: ``list_hands``, ``select_hand`` and ``use_hand``.

They are governed tools of the Mind (the session that runs the model) and are never offered by a
hand or by ``tether mcp serve``. ``list_hands`` (which connects each hand to learn its tools) and
``select_hand`` only read or change which hand is current. ``use_hand`` runs one tool on another
hand without switching: this side allows a call of a tool the hand announced as a built-in reading
one (``read``, ``ls``, ``grep``, ``find``) and asks a person for anything else; the hand's own
gate judges it too, and is final."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from tether.agent import AgentTool, AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, TextContent
from tether.gate import Governance, Verdict
from tether.tools import BUILTIN_TOOLS

from ._hands import Hands

__all__ = ["MIND_TOOL_NAMES", "mind_tools"]

MIND_TOOL_NAMES = ("list_hands", "select_hand", "use_hand")


def mind_tools(hands: Hands) -> list[AgentTool]:
    """The three tools, bound to ``hands``."""
    return [_list_hands(hands), _select_hand(hands), _use_hand(hands)]


def _allowed(_args: Mapping[str, Any]) -> Verdict:
    return Verdict.allow("only reads or changes which hand is current")


def _list_hands(hands: Hands) -> AgentTool:
    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult:
        await asyncio.gather(*(_try(hands, name) for name in hands.configs))
        rows = [_row(hands, name) for name in hands.configs]
        if not rows:
            return AgentToolResult([TextContent("No hands are configured.")], [])
        lines = [
            f"{row['name']}{' (current)' if row['current'] else ''}: {row['host']}, "
            f"{row['status']}; {row['tools']}"
            for row in rows
        ]
        return AgentToolResult([TextContent("\n".join(lines))], rows)

    return AgentTool(
        name="list_hands",
        label="list hands",
        description=(
            "List the hands (hosts where tools can run): name, host, status (connected, idle, "
            "unreachable) and the tools each offers. Connects each hand to learn its tools."
        ),
        parameters={"type": "object", "properties": {}},
        execute=execute,
        metadata={"governance": Governance(check=_allowed)},
    )


async def _try(hands: Hands, name: str) -> None:
    """Connect the hand to learn its tools; an unreachable one is listed as such."""
    with contextlib.suppress(ToolError):
        await hands.client(name)


def _row(hands: Hands, name: str) -> dict[str, Any]:
    config = hands.configs[name]
    client = hands.connected_client(name)
    status = hands.status(name)
    if client is not None:
        tools = "tools: " + ", ".join(str(entry.get("name")) for entry in client.catalog)
    elif status == "unreachable":
        tools = f"not reachable: {hands.problem(name)}"
    else:
        tools = "tools known once it is used (select_hand or use_hand connects it)"
    return {
        "name": name,
        "host": config.address,
        "cwd": client.workspace if client is not None else config.cwd,
        "status": status,
        "current": name == hands.current,
        "tools": tools,
    }


def _select_hand(hands: Hands) -> AgentTool:
    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult:
        name = params.get("name")
        if name is None:
            current = hands.current
            if current is None:
                text = "No hand is current: the file and shell tools run on this machine."
            else:
                text = f"The current hand is {current} ({hands.configs[current].address})."
            return AgentToolResult([TextContent(text)], {"current": current})
        if not isinstance(name, str):
            raise ToolError("name must be a hand's name (a string), or left out.")
        client = await hands.select(name)
        offered = ", ".join(str(entry.get("name")) for entry in client.catalog)
        text = (
            f"Hand {name} ({client.address}:{client.workspace}) is current. From the next "
            f"request on your file and shell tools are its tools: {offered or '(none)'}."
        )
        return AgentToolResult([TextContent(text)], {"current": name})

    return AgentTool(
        name="select_hand",
        label="select hand",
        description=(
            "Without a name: say which hand is current. With one: make that hand the target of "
            "the file and shell tools; your tool list then becomes that hand's tools."
        ),
        parameters={
            "type": "object",
            "properties": {
                "name": {
                    "type": ["string", "null"],
                    "description": "The hand to make current (see list_hands).",
                    "x-review": "include",
                }
            },
        },
        execute=execute,
        execution_mode="sequential",  # the calls after it in a batch see the new target
        metadata={"governance": Governance(check=_allowed)},
    )


def _use_hand(hands: Hands) -> AgentTool:
    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult:
        name, tool, arguments = params["name"], params["tool"], params.get("arguments") or {}
        client = await hands.client(name)
        offered = [str(entry.get("name")) for entry in client.catalog]
        if tool not in offered:
            raise ToolError(
                f"The hand {name!r} offers no tool {tool!r}; it offers {', '.join(offered)}."
            )
        return await client.call(tool, dict(arguments), signal, on_update)

    def check(args: Mapping[str, Any]) -> Verdict:
        name, tool = args.get("name"), args.get("tool")
        client = hands.connected_client(name) if isinstance(name, str) else None
        entry = next((e for e in client.catalog if e.get("name") == tool), None) if client else None
        announced = entry.get("governance") if entry is not None else None
        reads = isinstance(tool, str) and tool in BUILTIN_TOOLS and BUILTIN_TOOLS[tool].read_only
        if isinstance(announced, dict) and announced.get("builtin") == tool and reads:
            return Verdict.allow(f"{tool} only reads on hand {name}, whose own gate judges it")
        return Verdict.approve(f"use_hand runs {tool!r} on hand {name!r}")

    return AgentTool(
        name="use_hand",
        label="use hand",
        description=(
            "Run one tool on another hand without making it current: the hand's name, the tool "
            "(one it offers, see list_hands) and the tool's arguments."
        ),
        parameters={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The hand.", "x-review": "include"},
                "tool": {"type": "string", "description": "Its tool.", "x-review": "include"},
                "arguments": {
                    "type": "object",
                    "description": "The tool's arguments.",
                    "x-review": "include",
                },
            },
            "required": ["name", "tool", "arguments"],
        },
        execute=execute,
        metadata={"governance": Governance(check=check)},
    )
