"""A work budget for one ``classify``: time, syntax nodes, filesystem entries, expanded size.

Some scripts cost far more to judge than to write: ``ls /*/*/*/*/*/*/*/*/zzzz`` would glob the
whole filesystem, nested loops multiply their bodies, ``x=$x$x`` doubles a string per step, and
500 nested ``$(…)`` reach the interpreter's recursion limit. The policy spends from the
:class:`Budget` that :func:`spending` makes current; past any limit :class:`TooComplex` is raised
and the script is ``approve`` — "too complex to prove" — never ``allow``. :func:`bounded_glob` is
the only way the policy globs: it spends an entry per directory entry it reads and never enters
``/proc`` or ``/sys``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import os
import re
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar

from tree_sitter import Node

from ._pace import machine_pace

__all__ = [
    "MAX_DEPTH",
    "Budget",
    "TooComplex",
    "bounded_glob",
    "check_size",
    "check_tree",
    "off_the_clock",
    "spend_entries",
    "spend_nodes",
    "spending",
]

MAX_DEPTH = 120
"""Nesting (of the syntax tree, of substitutions) beyond which a script is too complex."""
_SECONDS = 0.04
_NODES = 10_000
_ENTRIES = 5_000
_CHARACTERS = 64 * 1024
_NEVER_GLOBBED = frozenset({"/proc", "/sys"})
_GLOB = re.compile(r"[*?\[]")


class TooComplex(Exception):
    """The budget is spent; the message says on what."""


class Budget:
    """``seconds`` of the reference machine's work (:mod:`._pace`), and the counts."""

    def __init__(self, seconds: float = _SECONDS) -> None:
        self.deadline = _clock() + seconds * machine_pace()
        self.nodes = _NODES
        self.entries = _ENTRIES


def _clock() -> float:
    """The CPU time this thread has used, less its garbage collections: the budget counts the
    policy's own work, so a verdict does not change when a loaded machine leaves the thread
    waiting for a core, nor when a collection of the whole process's objects (tens of ms in a
    worker running many runs) happens to start while a script is judged."""
    return time.thread_time() - getattr(_collecting, "seconds", 0.0)


_collecting = threading.local()
"""Per thread: CPU seconds spent in garbage collections, and when the current one started."""


def _count_collections(phase: str, _info: dict[str, int]) -> None:
    if phase == "start":
        _collecting.started = time.thread_time()
    elif (started := getattr(_collecting, "started", None)) is not None:
        _collecting.seconds = getattr(_collecting, "seconds", 0.0) + time.thread_time() - started
        _collecting.started = None


gc.callbacks.append(_count_collections)


_CURRENT: ContextVar[Budget | None] = ContextVar("tether_shell_budget", default=None)


@contextlib.contextmanager
def spending(seconds: float = _SECONDS) -> Iterator[Budget]:
    """A fresh budget of ``seconds`` of CPU time (the reference machine's), current for the
    ``with`` block (nested blocks share the outer one)."""
    outer = _CURRENT.get()
    if outer is not None:
        yield outer
        return
    budget = Budget(seconds)
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def off_the_clock() -> Iterator[None]:
    """Time spent in the ``with`` block does not count against the current budget: for work
    that does not grow with the script and has its own bound (listing a repository's history
    once per state of its refs)."""
    started = _clock()
    try:
        yield
    finally:
        budget = _CURRENT.get()
        if budget is not None:
            budget.deadline += _clock() - started


def spend_nodes(count: int = 1) -> None:
    budget = _CURRENT.get()
    if budget is None:
        return
    budget.nodes -= count
    if budget.nodes < 0:
        raise TooComplex(f"more than {_NODES} syntax nodes to judge")
    if budget.nodes % 64 == 0:  # the clock is read once every 64 nodes, not for each
        _check_clock(budget)


def spend_entries(count: int) -> None:
    budget = _CURRENT.get()
    if budget is None:
        return
    budget.entries -= count
    if budget.entries < 0:
        raise TooComplex(f"more than {_ENTRIES} filesystem entries to read")
    _check_clock(budget)


def _check_clock(budget: Budget) -> None:
    """Raise when the time of ``budget`` is spent."""
    if _clock() > budget.deadline:
        raise TooComplex(f"more than {_SECONDS * 1000:.0f} ms of work")


def check_size(text: str) -> None:
    """Raise when an expanded string or variable value is larger than the budget allows."""
    if len(text) > _CHARACTERS and _CURRENT.get() is not None:
        raise TooComplex(f"an expansion longer than {_CHARACTERS} characters")


def bounded_glob(pattern: str, limit: int) -> list[str]:
    """Up to ``limit`` paths matching the absolute glob ``pattern`` as bash would (hidden names
    only for a component that starts with ``.``), sorted; nothing inside ``/proc`` or ``/sys`` is
    read (they may be matched, not searched)."""
    if not pattern.startswith("/"):
        return []
    found: list[str] = []
    pending: list[tuple[str, list[str]]] = [("/", [c for c in pattern.split("/") if c])]
    while pending and len(found) < limit:
        directory, components = pending.pop()
        if not components:
            found.append(directory)
            continue
        if directory in _NEVER_GLOBBED:
            continue  # named by a match, never read
        head, rest = components[0], components[1:]
        if not _GLOB.search(head):
            path = os.path.join(directory, head)
            if os.path.lexists(path):
                pending.append((path, rest))
            continue
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        spend_entries(len(entries))
        matcher = re.compile(fnmatch.translate(head))
        for entry in sorted(entries, key=lambda e: e.name, reverse=True):
            if entry.name.startswith(".") and not head.startswith("."):
                continue
            if not matcher.match(entry.name):
                continue
            if rest and not entry.is_dir():
                continue
            pending.append((entry.path, rest))
    return sorted(found)


def check_tree(root: Node) -> None:
    """Spend a node per syntax node; raise when the tree nests deeper than the walks may
    recurse (measured without recursion)."""
    cursor = root.walk()
    depth = 0
    while True:
        spend_nodes()
        if depth > MAX_DEPTH:
            raise TooComplex(f"syntax nested more than {MAX_DEPTH} deep")
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
            depth -= 1
