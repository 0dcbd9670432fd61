"""sqlite3's command-line shell, read as sqlite 3.40 reads its arguments: the files it writes
and the shell commands it runs.

Each argument after the database is SQL or a dot-command line. A dot-command's arguments are
split on spaces, where ``'...'`` quotes literally and ``"..."`` quotes with backslash escapes,
so ``.once '|rm -rf ~'`` runs ``rm -rf ~`` as ``.once |rm -rf ~`` does (a reading of the raw
line missed the quoted one). ``.shell`` and ``.system`` run their arguments joined (one with a
space in it quoted with ``"``); ``.once``, ``.output``, ``.import`` and ``.read`` run what
follows a ``|``; the SQL functions the shell adds run code as well: ``writefile(PATH, DATA)``
writes PATH and ``edit(TEXT, EDITOR)`` runs EDITOR on a temporary file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["sqlite_scripts", "sqlite_writes"]

Words = Sequence[str | None]

_WRITES = ("once", "output", "save", "backup")
_SHELL = ("shell", "system")
_PIPED = ("once", "output", "import", "read")
"""Dot-commands whose ``|COMMAND`` argument is a command they run for output or input."""
_STRING = r"'((?:[^']|'')*)'"
_WRITEFILE = re.compile(r"\bwritefile\s*\(\s*" + _STRING, re.I)
_EDIT = re.compile(r"\bedit\s*\((?:[^,()']|" + r"'(?:[^']|'')*')*,\s*" + _STRING, re.I)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}


def _unescaped(text: str) -> str:
    """A ``"..."`` argument's backslash escapes, resolved (``\\NNN`` octal; others drop the
    backslash)."""

    def resolve(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "01234567":
            return chr(int(escape, 8))
        return _ESCAPES.get(escape, escape)

    return re.sub(r"\\([0-7]{1,3}|.)", resolve, text, flags=re.S)


def _arguments(line: str) -> list[str]:
    """A dot-command line's words, the command's name first, split as sqlite3 splits them."""
    words: list[str] = []
    at = 0
    while at < len(line):
        while at < len(line) and line[at].isspace():
            at += 1
        if at == len(line):
            break
        quote = line[at] if line[at] in "'\"" else None
        if quote is None:
            end = at
            while end < len(line) and not line[end].isspace():
                end += 1
            words.append(line[at:end])
            at = end + 1
            continue
        end = at + 1
        while end < len(line) and line[end] != quote:
            end += 2 if line[end] == "\\" and quote == '"' and end + 1 < len(line) else 1
        text = line[at + 1 : end]
        words.append(_unescaped(text) if quote == '"' else text)
        at = end + 1
    return words


def _dot_commands(values: Words) -> list[tuple[str, list[str]]]:
    """Each dot-command line among the arguments: its name (lowercase, without the dot) and its
    arguments."""
    commands: list[tuple[str, list[str]]] = []
    for value in values:
        for line in (value or "").splitlines():
            words = _arguments(line.strip())
            if words and words[0].startswith(".") and len(words[0]) > 1:
                commands.append((words[0][1:].lower(), words[1:]))
    return commands


def _one_of(command: str, names: tuple[str, ...]) -> bool:
    """sqlite3's shell takes any prefix of a dot-command's name (``.sh`` is ``.shell``)."""
    return any(name.startswith(command) for name in names)


def _sql_strings(pattern: re.Pattern[str], values: Words) -> list[str]:
    return [m.group(1).replace("''", "'") for v in values for m in pattern.finditer(v or "")]


def sqlite_writes(values: Words) -> list[str | None]:
    """The files ``sqlite3 ARGS`` writes: ``.once FILE``, ``.output FILE``, ``.save FILE``,
    ``.backup FILE`` and ``writefile('FILE', ...)``."""
    written: list[str | None] = []
    for command, arguments in _dot_commands(values):
        operands = [a for a in arguments if not a.startswith("-")]
        if operands and _one_of(command, _WRITES) and not operands[0].startswith("|"):
            written.append(operands[-1])
    return written + list(_sql_strings(_WRITEFILE, values))


def sqlite_scripts(values: Words) -> list[str]:
    """The shell commands ``sqlite3 ARGS`` runs: ``.shell`` / ``.system`` lines, the
    ``|COMMAND`` of ``.once``, ``.output``, ``.import`` and ``.read``, and the editor of
    ``edit(TEXT, 'EDITOR')``."""
    scripts: list[str] = []
    for command, arguments in _dot_commands(values):
        if len(command) > 1 and _one_of(command, _SHELL):
            scripts.append(" ".join(f'"{a}"' if " " in a else a for a in arguments))
        piped = next((i for i, a in enumerate(arguments) if not a.startswith("-")), None)
        if piped is not None and _one_of(command, _PIPED) and arguments[piped].startswith("|"):
            joined = _one_of(command, ("once", "output"))  # the words after it are its own
            scripts.append(" ".join(arguments[piped : None if joined else piped + 1])[1:])
    scripts += _sql_strings(_EDIT, values)
    return [script for script in scripts if script.strip()]
