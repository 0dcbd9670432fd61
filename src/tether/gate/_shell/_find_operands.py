"""What ``find``'s words mean to the walk: its starting points, and what ``{}`` stands for in an
``-exec`` below them."""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Sequence

__all__ = ["exec_placeholders", "find_roots"]


def find_roots(values: Sequence[str | None]) -> tuple[list[str | None], int, int]:
    """The starting points (``.`` when none is named), where they start and where the
    expression after them starts; the ``-H``/``-L``/``-P``/``-D x`` options come first."""
    index = 0
    while index < len(values) and values[index] in ("-H", "-L", "-P", "-D"):
        index += 2 if values[index] == "-D" else 1
    start = index
    while index < len(values) and not (values[index] or "-").startswith(("-", "(", "!")):
        index += 1
    return list(values[start:index]) or ["."], start, index


def exec_placeholders(root: str | None, narrowed: str | None) -> list[str]:
    """What ``{}`` may be for ``root``: the root itself, unless a ``-name`` pattern the root does
    not match narrows the search — then a found file below it, never the root; and every file
    below it (``root/*``, or ``root/**/PATTERN`` when narrowed), so ``find ~/.ssh -type f -exec
    cat {} +`` is judged as ``cat ~/.ssh/*``."""
    if not root:
        return ["{}"]
    if narrowed is None:
        return [root, posixpath.join(root, "*")]
    below = posixpath.join(root, "**", narrowed)
    name = posixpath.basename(root.rstrip("/")) or "/"
    if not fnmatch.fnmatchcase(name, narrowed):
        return [posixpath.join(root, "found"), below]
    return [root, below]
