"""The built-in tools by name: one registry, assembled from the tool modules' ``TOOL`` values.

Everything that lists built-in tools derives from :data:`BUILTIN_TOOLS` — the command's
``--tools``, the default tool set, the tools a hand or ``tether mcp serve`` offers, which of
them MCP may call read-only. A tool outside this package joins with
:meth:`BuiltinTools.register`, and is then offered, governed and rendered like the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from tether.gate import Governance

from . import bash, edit, find, grep, ls, read, write
from ._builtin import BuiltinTool

__all__ = [
    "BUILTIN_TOOLS",
    "BUILTIN_TOOL_NAMES",
    "BuiltinTools",
    "builtin_governance",
]


class BuiltinTools(Mapping[str, BuiltinTool]):
    """The built-in tools by name, in the order the product lists them."""

    def __init__(self, tools: Iterable[BuiltinTool] = ()) -> None:
        self._tools: dict[str, BuiltinTool] = {}
        for tool in tools:
            self.register(tool)

    def __getitem__(self, name: str) -> BuiltinTool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._tools))

    def __len__(self) -> int:
        return len(self._tools)

    def register(self, tool: BuiltinTool) -> Callable[[], None]:
        """Add ``tool`` after the others; returns the function that removes it again.
        A name already registered is refused (``ValueError``)."""
        if not isinstance(tool, BuiltinTool):
            raise TypeError(f"register takes a BuiltinTool, got {tool!r}.")
        if tool.name in self._tools:
            raise ValueError(f'A built-in tool named "{tool.name}" is already registered.')
        self._tools[tool.name] = tool

        def unregister() -> None:
            if self._tools.get(tool.name) is tool:
                del self._tools[tool.name]

        return unregister

    def default_names(self) -> tuple[str, ...]:
        """The tools a run gets without ``--tools``."""
        return tuple(name for name, tool in self._tools.items() if tool.default)


BUILTIN_TOOLS = BuiltinTools(
    [read.TOOL, bash.TOOL, edit.TOOL, write.TOOL, grep.TOOL, find.TOOL, ls.TOOL]
)
"""The product's built-in tools; a new one is a module with a ``TOOL`` and a line here."""

BUILTIN_TOOL_NAMES = frozenset(BUILTIN_TOOLS)
"""The names of the built-in tools tether ships."""


def builtin_governance(name: str, cwd: str, *, sandboxed: bool = False) -> Governance:
    """The governance of the built-in tool ``name`` working in ``cwd`` (a hand's tools are
    governed with it on the caller's side too); ``KeyError`` for a name that is not built in."""
    return BUILTIN_TOOLS[name].governance(cwd, sandboxed)
