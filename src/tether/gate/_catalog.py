"""``Catalog``: the registry of tools a session may offer, with isolated views and snapshots.

Sessions and tests restrict tools by deriving a new catalog, never by mutating a shared list.
A snapshot pins what a model is shown: a revision, deep copies of the model-facing tools, and a
digest over their model-visible parts and governance flags. Give ``snapshot().tools`` to the
agent context: the loop resolves a response's tool calls against exactly the tools that request
showed the model.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from tether.agent import AgentTool
from tether.ai import parameters_schema

from ._governance import Governance, govern

__all__ = ["Catalog", "CatalogSnapshot"]


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    revision: int
    tools: tuple[AgentTool, ...]
    digest: str
    """sha256 over the canonical JSON of the model-visible parts and the governance flags."""


class Catalog:
    """Tools by unique name, in registration order. Every tool goes in and out as a copy."""

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._tools: dict[str, AgentTool] = {}
        self._revision = 0
        for tool in tools:
            self.register(tool)

    @property
    def revision(self) -> int:
        """Increases with every registration."""
        return self._revision

    def register(self, tool: Any) -> AgentTool:
        """Add an :class:`AgentTool` or a ``ToolDefinition``; returns the registered form.

        Refuses an empty or duplicate name and a governed tool whose parameters lack an
        ``x-review`` exposure (``ValueError``).
        """
        agent_tool = govern(_as_agent_tool(tool))
        name = agent_tool.name
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"Tool names must be non-empty, got {name!r}.")
        if name in self._tools:
            raise ValueError(f'A tool named "{name}" is already registered.')
        self._tools[name] = _copy_tool(agent_tool)
        self._revision += 1
        return _copy_tool(agent_tool)

    def get(self, name: str) -> AgentTool:
        """A copy of the named tool; ``KeyError`` naming the registered tools otherwise."""
        try:
            return _copy_tool(self._tools[name])
        except KeyError:
            raise KeyError(
                f'No tool named "{name}". Registered: {", ".join(self._tools) or "(none)"}.'
            ) from None

    def names(self) -> list[str]:
        return list(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def derive(self, keep: Iterable[str] | Callable[[AgentTool], bool]) -> Catalog:
        """An independent catalog holding the kept tools (names, or a predicate on a tool).

        Unknown names are refused, so a typo cannot silently drop a tool.
        """
        if callable(keep):
            kept = [tool for tool in self._tools.values() if keep(_copy_tool(tool))]
        else:
            wanted = list(keep)
            unknown = [name for name in wanted if name not in self._tools]
            if unknown:
                raise ValueError(
                    f"Cannot derive: unknown tool(s) {', '.join(unknown)}. "
                    f"Registered: {', '.join(self._tools) or '(none)'}."
                )
            kept = [self._tools[name] for name in self._tools if name in set(wanted)]
        derived = Catalog()
        for tool in kept:
            derived._tools[tool.name] = _copy_tool(tool)
        derived._revision = len(kept)
        return derived

    def snapshot(self) -> CatalogSnapshot:
        tools = tuple(_copy_tool(tool) for tool in self._tools.values())
        return CatalogSnapshot(self._revision, tools, catalog_digest(tools))


def catalog_digest(tools: Iterable[AgentTool]) -> str:
    entries = []
    for tool in tools:
        governance = tool.metadata.get("governance")
        flags: dict[str, Any] | None = None
        if isinstance(governance, Governance):
            flags = {
                "default_confirm": governance.default_confirm,
                "owns_confirm": governance.owns_confirm,
                "sandboxed": governance.sandboxed,
                "check": governance.check is not None,
                "policy_check": governance.policy_check is not None,
                "review_schema": tool.metadata.get("review_schema"),
            }
        entries.append(
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": parameters_schema(tool.parameters),
                "governance": flags,
            }
        )
    canonical = json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _as_agent_tool(tool: Any) -> AgentTool:
    if isinstance(tool, AgentTool):
        return tool
    as_agent_tool = getattr(tool, "as_agent_tool", None)  # a tether.tools.ToolDefinition
    if callable(as_agent_tool):
        converted = as_agent_tool()
        if isinstance(converted, AgentTool):
            return converted
    raise TypeError(f"Catalog.register takes an AgentTool or a ToolDefinition, got {tool!r}.")


def _copy_tool(tool: AgentTool) -> AgentTool:
    parameters = tool.parameters
    if isinstance(parameters, dict):
        parameters = copy.deepcopy(parameters)
    metadata = dict(tool.metadata)
    if "review_schema" in metadata:
        metadata["review_schema"] = copy.deepcopy(metadata["review_schema"])
    return replace(tool, parameters=parameters, metadata=metadata)
