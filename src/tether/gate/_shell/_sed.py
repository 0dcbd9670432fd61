"""What a GNU sed script does besides editing text: commands it runs, files it writes and reads.

:func:`sed_effects` walks a script command by command, as sed reads it — addresses (``5``,
``$``, ``/re/``, ``\\%re%``, ``first~step``, ``,+N``, ``!``), then one command with its
arguments: ``s`` and ``y`` with their own delimiters and escapes, ``a``/``i``/``c`` text, labels.
Found:

- ``e COMMAND`` runs COMMAND in a shell; ``e`` alone and the ``s///e`` flag run the pattern space
  (text from the input, so nothing to judge but a person's call);
- ``w FILE``, ``W FILE`` and the ``s///w FILE`` flag write FILE;
- ``r FILE`` and ``R FILE`` read FILE into the output.

A filename or a command runs to the end of the line, as in sed.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["SedEffects", "prints_only", "sed_effects"]


class SedEffects(NamedTuple):
    commands: tuple[str, ...]
    """Shell commands ``e`` runs."""
    writes: tuple[str, ...]
    reads: tuple[str, ...]
    runs_input: bool
    """``e`` without a command or ``s///e``: the input's text runs as commands."""


_PRINT_ADDRESS = r"(?:\d+(?:~\d+)?|\$|/(?:[^/\\\n]|\\.)*/I?)"
_PRINT_RANGE = rf"{_PRINT_ADDRESS}\s*(?:,\s*(?:{_PRINT_ADDRESS}|[+~]\d+))?\s*!?"
_PRINT_COMMAND = rf"\s*(?:{_PRINT_RANGE})?\s*(?:p|=|[qQ]\d*)\s*"
_PRINT_ONLY = re.compile(rf"^{_PRINT_COMMAND}(?:[;\n]{_PRINT_COMMAND})*;?\s*$")


def prints_only(script: str) -> bool:
    """Whether ``script`` only prints (``5p``, ``1,20p``, ``/re/p``, ``=``, ``q``): the scripts
    with which ``sed -n`` is read-only, for both the deny rules and the allow proofs."""
    return _PRINT_ONLY.match(script) is not None


_NUMBER = re.compile(r"\d+(?:~\d+)?|\$")
_SIMPLE = frozenset("pPdDnNgGhHxz=Fl")


def _delimited(script: str, index: int, delimiter: str) -> int:
    """The index just past the next unescaped ``delimiter`` at or after ``index``."""
    while index < len(script):
        char = script[index]
        if char == "\\":
            index += 2
            continue
        if char == delimiter or (char == "\n" and delimiter != "\n"):
            return index + 1
        index += 1
    return index


def _address(script: str, index: int) -> int:
    match = _NUMBER.match(script, index)
    if match:
        return match.end()
    if script[index : index + 1] == "/":
        end = _delimited(script, index + 1, "/")
        return end + _flags(script, end)
    if script[index : index + 1] == "\\" and index + 1 < len(script):
        end = _delimited(script, index + 2, script[index + 1])
        return end + _flags(script, end)
    return index


def _flags(script: str, index: int) -> int:
    """Regex address flags (``/re/I``, ``/re/M``)."""
    count = 0
    while index + count < len(script) and script[index + count] in "IM":
        count += 1
    return count


def _line(script: str, index: int) -> tuple[str, int]:
    end = script.find("\n", index)
    end = len(script) if end < 0 else end
    return script[index:end].strip(), end


class _Found:
    def __init__(self) -> None:
        self.commands: list[str] = []
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.runs_input = False


def sed_effects(script: str) -> SedEffects:
    found = _Found()
    index = 0
    while index < len(script):
        while index < len(script) and script[index] in " \t\n;{}":
            index += 1
        if index >= len(script):
            break
        index = _address(script, index)
        if script[index : index + 1] == ",":
            index += 1
            step = re.match(r"[+~]\d+", script[index:])
            index = index + step.end() if step else _address(script, index)
        while index < len(script) and script[index] in " \t!":
            index += 1
        if index >= len(script):
            break
        next_index = _command(script, index + 1, script[index], found)
        if next_index is None:
            break  # not sed as we know it: the caller's grammar refuses it anyway
        index = next_index
    return SedEffects(tuple(found.commands), tuple(found.writes), tuple(found.reads),
                      found.runs_input)  # fmt: skip


def _command(script: str, index: int, command: str, found: _Found) -> int | None:
    """Read one command's arguments from ``index``; the index after them (``None``: unknown)."""
    if command in _SIMPLE or command in "qQLv}{":
        while command in "qQlL" and index < len(script) and script[index] in " \t0123456789":
            index += 1
        return index
    if command in "ewWrR":
        text, index = _line(script, index)
        if command == "e":
            found.commands += [text] if text else []
            found.runs_input = found.runs_input or not text
        (found.writes if command in "wW" else found.reads if command in "rR" else []).append(text)
        return index
    if command in "aic":
        return _line(script, index)[1]
    if command in ":btT":
        ends = (script.find(";", index), script.find("\n", index), len(script))
        return min(end for end in ends if end >= 0)
    if command not in "sy" or index >= len(script):
        return None
    delimiter = script[index]
    start = index + 1
    replacement = _delimited(script, start, delimiter)
    index = _delimited(script, replacement, delimiter)
    if command == "s":
        flags = re.match(r"[0-9gpiImMe]*", script[index:])
        letters = flags.group(0) if flags else ""
        found.runs_input = found.runs_input or "e" in letters
        literal = script[replacement : index - 1].replace("\\" + delimiter, delimiter)
        whole = script[start : replacement - 1] in (".*", "^.*", ".*$", "^.*$")
        prefix = script[start : start + 1] == "^"  # s/^/CMD #/e runs CMD, the line a comment
        if "e" in letters and (whole or prefix) and not re.search(r"&|\\[0-9]", literal):
            found.commands.append(literal)
        index += len(letters)
        if script[index : index + 1] == "w":
            text, index = _line(script, index + 1)
            found.writes.append(text)
    return index
