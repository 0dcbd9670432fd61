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

__all__ = ["READ_ONLY_TOOLS", "annotations_for"]

READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls"})
_IDEMPOTENT_WRITERS = frozenset({"write"})
_CLOSED_WORLD = READ_ONLY_TOOLS | {"write", "edit"}


def annotations_for(tool: AgentTool) -> dict[str, Any]:
    """``ToolAnnotations`` fields (snake_case, as the SDK's model names them) for ``tool``."""
    governance = tool.metadata.get("governance")
    read_only = (
        isinstance(governance, Governance)
        and tool.name in READ_ONLY_TOOLS
        and not governance.default_confirm
    )
    return {
        "title": tool.label or tool.name,
        "read_only_hint": read_only,
        "destructive_hint": not read_only,
        "idempotent_hint": read_only or tool.name in _IDEMPOTENT_WRITERS,
        "open_world_hint": tool.name not in _CLOSED_WORLD,
    }
