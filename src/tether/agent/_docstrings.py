"""Docstrings of ``@tool`` functions: the description, and each parameter's line from ``Args:``.

Google style, the one most Python code uses::

    Search the notes.

    Args:
        query: Words to look for.
        limit (int): At most this many results;
            a continuation line is indented further.

The ``Args:`` (or ``Arguments:`` / ``Parameters:``) section leaves the description and becomes
per-parameter descriptions in the schema, where a model reads them next to each parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ToolDocstring", "parse_docstring"]

_SECTION = re.compile(r"(?:Args|Arguments|Parameters):")
_ENTRY = re.compile(r"\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:\s*(?P<text>.*)")


@dataclass(frozen=True, slots=True)
class ToolDocstring:
    description: str
    """The docstring without its ``Args:`` section."""
    parameters: dict[str, str] = field(default_factory=dict)
    """Each documented parameter's description, continuation lines joined by spaces."""


def parse_docstring(doc: str) -> ToolDocstring:
    """Split a cleaned docstring (``inspect.getdoc``) into description and parameter lines."""
    lines = doc.splitlines()
    for start, line in enumerate(lines):
        if _SECTION.fullmatch(line.strip()):
            indent = _indent(line)
            end = start + 1
            while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
                end += 1
            parameters = _entries(lines[start + 1 : end])
            if parameters:
                kept = [*lines[:start], *lines[end:]]
                return ToolDocstring("\n".join(kept).strip(), parameters)
    return ToolDocstring(doc.strip())


def _entries(section: list[str]) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    entry_indent: int | None = None
    current: list[str] | None = None
    for line in section:
        if not line.strip():
            continue
        indent = _indent(line)
        match = _ENTRY.fullmatch(line.strip())
        if match is not None and (entry_indent is None or indent <= entry_indent):
            entry_indent = indent
            current = entries.setdefault(match["name"], [])
            if match["text"]:
                current.append(match["text"].strip())
        elif current is not None:
            current.append(line.strip())
    return {name: " ".join(words) for name, words in entries.items() if words}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
