"""``su`` and ``runuser`` read as util-linux 2.38 reads them: what shell line they run.

A loose reading knew only ``-c`` and ``--command``, so ``su --session-command='rm -rf ~'``,
``su --comm='rm -rf ~'`` (getopt takes any unique prefix), ``runuser --comm=CMD root`` and
``su root -- -c 'rm -rf ~'`` (the words after the user go to the shell) were ``approve`` where
``rm -rf ~`` is denied. Both programs read their options with ``getopt_long`` and permute
(``su root -c CMD`` is ``su -c CMD root``); after the options come ``-`` (a login), the user,
and the arguments the shell gets after its ``-c CMD``.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ._getopt import ReadOptions, grammar, read_options
from ._words import SHELLS
from ._wrapper_commands import GRAMMARS

__all__ = ["SU", "UserShell", "read_su", "shell_reads_its_input"]

SU = grammar(
    "c:fg:G:lmpPs:u:hVw:",
    "command=/c session-command=/C fast/f login/l preserve-environment/p pty/P shell=/s "
    "group=/g supp-group=/G user=/u whitelist-environment=/w help/h version/V",
)
"""util-linux 2.38's su and runuser (``-u``/``--user`` is runuser's alone)."""

_ROOT_HOME = "/root"


@dataclass(frozen=True, slots=True)
class UserShell:
    """What one ``su`` (or ``runuser`` without ``-u``) line runs."""

    scripts: tuple[str | None, ...]
    """Each shell line it may run (``bash -c CMD ARGS``; a shell ``-s`` names that tether does
    not know is read as bash); ``None``: one that expands at run time."""
    home: str | None
    """Where it runs them: the user's home for a login (``None``: a home not known here), or
    ``""`` when it stays where it is."""
    options: ReadOptions


def read_su(values: Sequence[str | None]) -> UserShell:
    """``values``, the words after ``su`` or ``runuser``, read as they read them."""
    options = read_options(SU, values)
    if options.given("h") or options.given("V"):
        return UserShell((), "", options)
    operands = [values[index] for index in options.operands]
    login = options.given("l") or operands[:1] == ["-"]
    operands = operands[1:] if operands[:1] == ["-"] else operands
    user, arguments = (operands[0], operands[1:]) if operands else ("root", [])
    shells = options.values("s")
    shell = shells[-1] if shells and posixpath.basename(shells[-1] or "") in SHELLS else "bash"
    commands = options.values("c") + options.values("C")
    lines = [_shell_line(shell, command, arguments) for command in commands]
    if not commands and arguments:
        lines.append(_shell_line(shell, None, arguments, with_command=False))
    home = _home(user) if login else ""
    return UserShell(tuple(lines), home, options)


def _shell_line(
    shell: str | None, command: str | None, arguments: list[str | None], with_command: bool = True
) -> str | None:
    """The shell line su runs: ``SHELL [-c COMMAND] ARGS``, quoted (``None``: a part of it
    expands at run time)."""
    words = [shell, *(["-c", command] if with_command else []), *arguments]
    if any(word is None for word in words):
        return None
    return " ".join(shlex.quote(word or "") for word in words)


def _home(user: str | None) -> str | None:
    return _ROOT_HOME if user in ("root", "0") else None


def shell_reads_its_input(name: str, values: Sequence[str | None]) -> bool:
    """``su`` or ``runuser`` with no ``-c``, ``sudo -s`` / ``-i`` with no command: a shell that
    runs the lines it reads from its input."""
    if name in ("su", "runuser"):
        return not read_su(values).scripts and "-u" not in values
    if name == "sudo":
        read = read_options(GRAMMARS["sudo"], values)
        return (read.given("s") or read.given("i")) and read.first_operand is None
    return False
