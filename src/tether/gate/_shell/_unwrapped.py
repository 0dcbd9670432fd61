"""What one line of a program that runs programs runs: :class:`Unwrapped`, the answer of every
reader in :mod:`._wrappers` and :mod:`._wrappers_more`."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Unwrapped"]


class Unwrapped(NamedTuple):
    argv: int | None
    """Index of the first argument of the command it executes, if it executes one."""
    scripts: tuple[str, ...]
    """Shell code it runs."""
    why: str
    program: str | None = None
    """A program it runs with the words from :attr:`argv` on as its arguments (``capsh -- ARGS``
    runs ``/bin/bash ARGS``; ``setarch`` with no command runs ``/bin/sh``, which reads its
    input); ``None``: the word at :attr:`argv` names the program."""
    may_start: tuple[int, ...] = ()
    """Where else its command may start, when its line cannot be read exactly (an option tether
    does not know): each is a reading the deny rules judge."""
    directories: tuple[str | None, ...] = ()
    """The directories it moves to before it runs its command, in order (``None``: one that is
    not known before it runs): the command's paths are relative to the last."""
