"""The names a workspace's ``.gitignore`` makes ripgrep skip at every depth, read as rg reads it.

A search proved not to read a secret may skip what rg skips, and only that: a name taken as
ignored that rg still searches is a secret printed unasked. So the file is read line by line as
ripgrep's gitignore reader does, and anything it might read otherwise is left out (then the
search is checked as if nothing were ignored, which can only refuse more):

- lines split at ``\\n`` only (a lone ``\\r`` is part of a line: never universal newlines);
- ``#`` starts a comment only as the line's first character;
- trailing blanks are trimmed unless the line ends in ``\\ ``; leading whitespace is part of
  the pattern (`` credentials`` does not ignore ``credentials``);
- a ``!`` line re-includes: with one, no name counts as ignored;
- a trailing ``/`` ignores directories only: the name is kept as ``name/``;
- a pattern with a glob, escape, slash, brace or space in it is not a plain name: left out.
"""

from __future__ import annotations

import os
import re

__all__ = ["names_ignored_everywhere"]

_PLAIN_NAME = re.compile(r"[A-Za-z0-9._@%+=~-]+")
"""A pattern that is one literal name to ripgrep's globs: no ``* ? [ ] { } \\ /``, no blank."""
_MAX_BYTES = 1 << 20
_TRIMMED = " \t\r\x0b\x0c"
"""Trailing blanks rg trims (it trims Unicode's white space too; one left here only makes the
name not plain). Not ``str.rstrip()``'s: it trims ``\x1c``-``\x1f``, which rg keeps."""


def names_ignored_everywhere(workspace: str) -> frozenset[str]:
    """The names the top ``.gitignore`` of the git repository ``workspace`` ignores at every
    depth; ``name/`` for those ignored as directories only. Empty when it is not a repository,
    the file cannot be read as rg would, or any line re-includes."""
    if not os.path.isdir(os.path.join(workspace, ".git")):
        return frozenset()
    try:
        with open(os.path.join(workspace, ".gitignore"), "rb") as file:
            data = file.read(_MAX_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    if len(data) > _MAX_BYTES:
        return frozenset()
    names: set[str] = set()
    for line in text.split("\n"):
        pattern = _pattern(line)
        if pattern is None:
            continue
        if pattern.startswith("!"):
            return frozenset()
        directory_only = pattern.endswith("/")
        name = pattern[:-1] if directory_only else pattern
        if _PLAIN_NAME.fullmatch(name) and name not in (".", ".."):
            names.add(name + "/" if directory_only else name)
    return frozenset(names)


def _pattern(line: str) -> str | None:
    """The pattern of one ``.gitignore`` line as ripgrep takes it, or ``None`` (a comment, a
    blank line)."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip(_TRIMMED)
    return line or None
