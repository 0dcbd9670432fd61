"""One command as the rules judge it: literal values, getopt-style options, paths, display.

:func:`parse_options` splits argument values as getopt would, :class:`Paths` resolves literal
paths (``~``, ``~+``, ``~-``, relative to a known working directory) and :class:`Call` is one
normalised command with the paths it runs among.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

from ._parse import Word

__all__ = [
    "GIT_GLOBAL_VALUED", "Call", "Options", "Paths", "Values", "collapse", "display",
    "git_subcommand", "has_glob", "parse_options",
]  # fmt: skip


Values: TypeAlias = tuple[str | None, ...]
"""Literal argument values of one command (``None`` where a word expands at run time)."""


class Options(NamedTuple):
    flags: frozenset[str]
    """Every option seen: short ones split (``-rf`` -> ``-r``, ``-f``), long ones without value."""
    valued: dict[str, list[str | None]]
    positionals: list[str | None]


def parse_options(values: Values, takes_value: frozenset[str] = frozenset()) -> Options:
    """Split getopt-style arguments; ``--`` ends options; ``takes_value`` options consume one."""
    flags: set[str] = set()
    valued: dict[str, list[str | None]] = {}
    positionals: list[str | None] = []
    index = 0
    while index < len(values):
        value = values[index]
        index += 1
        if value is None or value == "-" or not value.startswith("-"):
            positionals.append(value)
        elif value == "--":
            positionals.extend(values[index:])
            break
        elif value.startswith("--"):
            name, eq, attached = value.partition("=")
            flags.add(name)
            if eq:
                valued.setdefault(name, []).append(attached)
            elif name in takes_value and index < len(values):
                valued.setdefault(name, []).append(values[index])
                index += 1
        else:
            for position, letter in enumerate(value[1:], start=1):
                option = "-" + letter
                flags.add(option)
                if option in takes_value:
                    rest: str | None = value[position + 1 :]
                    if not rest and index < len(values):
                        rest, index = values[index], index + 1
                    valued.setdefault(option, []).append(rest)
                    break
    return Options(frozenset(flags), valued, positionals)


def has_glob(text: str) -> bool:
    return "*" in text or "?" in text or "[" in text


_PROC_ALIAS = re.compile(r"^/proc/(self|thread-self|\d+)/(root|cwd)(?=/|$)")


def _without_proc_aliases(path: str, cwd: str | None) -> str | None:
    """``/proc/PID/root/root`` is ``/root`` (a process's ``root`` link is ``/`` outside a
    chroot), and ``/proc/self/cwd/x`` is ``x`` in the working directory (``None``: unknown).
    Another process's ``cwd`` is wherever that process is: the path stays as written, for the
    path policy to resolve the link."""
    alias = _PROC_ALIAS.match(path)
    if alias is None:
        return path
    rest = path[alias.end() :]
    if alias.group(2) == "cwd":
        if alias.group(1).isdigit():
            return path
        return None if cwd is None else posixpath.normpath(cwd + rest)
    return rest or "/"


@dataclass(frozen=True, slots=True)
class Paths:
    """Resolves literal path words: ``~`` is ``home``; relative paths need a known ``cwd``."""

    home: str
    cwd: str | None
    workspace: str | None = None
    oldpwd: str | None = None
    """Where ``cd -`` and ``~-`` lead (``None``: unknown)."""
    local: bool = True
    """Whether the commands run on this machine; if not, ``~user`` is unknown here."""

    def resolve(self, value: str) -> str | None:
        if "\x00" in value:  # no path holds one; the OS would refuse it
            return None
        if value == "~" or value.startswith("~/"):
            value = self.home + value[1:]
        elif value[:2] in ("~+", "~-") and value[2:3] in ("", "/"):
            base = self.cwd if value[1] == "+" else self.oldpwd
            if base is None:
                return None
            value = base + value[2:]
        elif value.startswith("~"):
            if not self.local:  # another host's users: its password database is not read here
                return None
            value = posixpath.expanduser(value)
        if value.startswith("/"):
            return _without_proc_aliases("/" + posixpath.normpath(value).lstrip("/"), self.cwd)
        if self.cwd is None:
            return None
        return posixpath.normpath(posixpath.join(self.cwd, value))

    def best(self, value: str) -> str:
        """The resolved path, or the normalised relative path when the directory is unknown."""
        resolved = self.resolve(value)
        return resolved if resolved is not None else posixpath.normpath(value)


@dataclass(frozen=True, slots=True)
class Call:
    """One command to judge, wrappers removed: ``name`` is the normalised basename."""

    name: str
    values: Values
    display: str
    """The command as a person should see it in a reason."""
    paths: Paths = field(compare=False)

    def deny(self, rule: str) -> str:
        return f"{self.display}: {rule}"


GIT_GLOBAL_VALUED = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)
"""git's own options that take the next word as their value (before the subcommand)."""


def git_subcommand(values: Values) -> tuple[str | None, Values]:
    """The git subcommand and its arguments, past git's own options."""
    index = 0
    while index < len(values):
        value = values[index]
        if value is None or not value.startswith("-"):
            return value, values[index + 1 :]
        index += 2 if value in GIT_GLOBAL_VALUED else 1
    return None, ()


def collapse(text: str) -> str:
    return " ".join(text.split())


def display(name: str, words: tuple[Word, ...]) -> str:
    """A command as a person should see it in a reason: its name, its arguments as written."""
    text = collapse(" ".join([name, *(w.raw for w in words)]))
    return text if len(text) <= 80 else text[:77] + "..."
