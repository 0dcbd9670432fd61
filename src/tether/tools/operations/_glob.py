"""Globs as ripgrep (and .gitignore) read them, as a Python test on relative POSIX paths.

Used where ripgrep cannot apply a glob itself: by :class:`RipgrepOperations` for globs with a
directory part (a ``--glob`` whitelist would override .gitignore) and by
:class:`MemoryOperations`, which has no ripgrep at all.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

__all__ = ["compile_glob"]

_GLOB_TOKEN = re.compile(r"\*\*/|/\*\*$|\*\*|\*|\?|\[[^\]]*\]|\{[^}]*\}|.", re.DOTALL)


def compile_glob(glob: str) -> Callable[[str], bool]:
    """A test of paths relative to the searched directory against ``glob``.

    Without a slash the glob matches the file name at any depth (``*.py``); with one it matches
    the whole path from the searched directory (``src/**/*.py``, ``/top.py``); a trailing slash
    means everything under such a directory. ``*`` and ``?`` stay within one path segment, ``**``
    crosses segments, ``[...]`` is a character class, ``{a,b}`` alternation, a leading ``!``
    negates.
    """
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    directory = body.endswith("/")
    body = body.rstrip("/")
    anchored = "/" in body
    body = body.lstrip("/")
    if directory:
        body = f"{body}/**" if anchored else f"**/{body}/**"
        anchored = True
    regex = re.compile(_glob_to_regex(body), re.DOTALL)

    def matches(path: str) -> bool:
        subject = path if anchored else posixpath.basename(path)
        return (regex.fullmatch(subject) is not None) != negated

    return matches


def _glob_to_regex(glob: str) -> str:
    parts: list[str] = []
    for token in _GLOB_TOKEN.findall(glob):
        if token == "**/":
            parts.append("(?:.*/)?")
        elif token == "/**":
            parts.append("/.*")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and len(token) > 2:
            inner = token[1:-1]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            parts.append(f"[{inner}]")
        elif token.startswith("{") and len(token) > 1:
            options = token[1:-1].split(",")
            parts.append("(?:" + "|".join(_glob_to_regex(option) for option in options) + ")")
        else:
            parts.append(re.escape(token))
    return "".join(parts)
