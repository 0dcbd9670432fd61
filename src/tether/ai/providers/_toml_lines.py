"""Where each key of a TOML file is written, by key path: tomllib keeps no positions, and an
error about a parsed value should still name its line.
"""

from __future__ import annotations

import json
import re
from typing import TypeAlias

__all__ = ["KeyPath", "key_lines"]

KeyPath: TypeAlias = tuple[str | int, ...]
"""Keys and array indexes from the root: ``("providers", "ollama", "models", 0, "id")``."""

_HEADER = re.compile(r"\[\[?\s*(?P<keys>[^\[\]]+?)\s*\]")
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_ASSIGNMENT = re.compile(rf"(?P<keys>{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_DOTTED_PART = re.compile(_KEY_PART)


def key_lines(text: str) -> dict[KeyPath, int]:
    """The line where each table header and key assignment first appears, by key path.

    A line-based reading, enough to point at a problem the parsed data revealed (tomllib keeps
    no positions): ``[[array]]`` headers are counted to give each table its index.
    """
    lines: dict[KeyPath, int] = {}
    arrays: dict[KeyPath, int] = {}
    table: KeyPath = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = _HEADER.match(line)
        if header:
            keys = _split_keys(header["keys"])
            if line.startswith("[["):
                array = (*_resolve(keys[:-1], arrays), keys[-1])
                arrays[array] = arrays.get(array, 0) + 1
                table = (*array, arrays[array] - 1)
            else:
                table = _resolve(keys, arrays)
            _record(lines, table, number)
            continue
        assignment = _ASSIGNMENT.match(line)
        if assignment:
            _record(lines, (*table, *_split_keys(assignment["keys"])), number)
    return lines


def _record(lines: dict[KeyPath, int], path: KeyPath, number: int) -> None:
    """``path`` and every table above it (a header defines those too) are written by here."""
    for end in range(1, len(path) + 1):
        lines.setdefault(path[:end], number)


def _split_keys(dotted: str) -> tuple[str, ...]:
    return tuple(_unquote(part) for part in _DOTTED_PART.findall(dotted))


def _unquote(part: str) -> str:
    if part.startswith('"'):
        try:
            return str(json.loads(part))
        except ValueError:  # a TOML escape JSON lacks (\U0001F600): near enough for a line
            return part[1:-1]
    return part.strip("'")


def _resolve(keys: tuple[str, ...], arrays: dict[KeyPath, int]) -> KeyPath:
    """A header's key path, with the current index after every array of tables it passes."""
    path: KeyPath = ()
    for key in keys:
        path = (*path, key)
        if path in arrays:
            path = (*path, arrays[path] - 1)
    return path
