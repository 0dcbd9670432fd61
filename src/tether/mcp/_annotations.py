"""MCP tool annotations from tether's own knowledge of a tool, never from its description.

The built-in file readers (read, grep, find, ls) change nothing: ``readOnlyHint``. The writers
and bash may change or destroy anything in the workspace: ``destructiveHint``. A tool tether
knows nothing about, or one that always needs a person (``default_confirm``), is described as
destructive: hints published by tether err on the side of caution.
"""

from __future__ import annotations

from typing import Any

from tether.agent import AgentTool
from tether.gate import Governance
from tether.tools import BUILTIN_TOOLS

__all__ = ["READ_ONLY_TOOLS", "annotations_for"]

READ_ONLY_TOOLS = frozenset(name for name, tool in BUILTIN_TOOLS.items() if tool.read_only)
"""The shipped built-in tools that change nothing (read, grep, find, ls)."""


def annotations_for(tool: AgentTool) -> dict[str, Any]:
    """``ToolAnnotations`` fields (snake_case, as the SDK's model names them) for ``tool``."""
    governance = tool.metadata.get("governance")
    builtin = BUILTIN_TOOLS.get(tool.name) if isinstance(governance, Governance) else None
    asks_always = isinstance(governance, Governance) and governance.default_confirm
    read_only = builtin is not None and builtin.read_only and not asks_always
    return {
        "title": tool.label or tool.name,
        "read_only_hint": read_only,
        "destructive_hint": not read_only,
        "idempotent_hint": read_only or (builtin is not None and builtin.idempotent),
        "open_world_hint": builtin is None or builtin.open_world,
    }
