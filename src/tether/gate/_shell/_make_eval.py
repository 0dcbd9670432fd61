"""The shell commands in makefile text: ``make --eval=TEXT`` (``-E TEXT``) reads TEXT as a
makefile, so ``make --eval='x:;rm -rf ~' x`` runs ``rm -rf ~`` and was ``approve`` where
``rm -rf ~`` is denied; a makefile ``make -f /dev/stdin`` is fed holds recipes too.

:func:`makefile_scripts` finds what GNU make 4.3 hands to a shell: each recipe line (after
the ``;`` of a rule line, or indented with a tab), the command of a ``VAR != CMD``
assignment and of every ``$(shell CMD)``, each with make's ``$$`` read as ``$``.
:func:`make_eval_texts` finds the texts, make's options read as make reads them.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence

from ._call import Values
from ._getopt import grammar, read_options
from ._unwrapped import Unwrapped

__all__ = ["make_eval", "make_writes", "makefile_scripts", "makefile_writes"]

_MAKE = grammar(
    "bBC:deE:f:hiI:j::kl::LmnO::o:pqrRsStvwW:",
    "always-make/B directory=/C debug=? environment-overrides/e eval=/E file=/f makefile=/f "
    "help/h ignore-errors/i include-dir=/I jobs=?/j keep-going/k load-average=?/l "
    "max-load=?/l check-symlink-times/L just-print/n dry-run/n recon/n old-file=/o "
    "assume-old=/o output-sync=?/O print-data-base/p question/q no-builtin-rules/r "
    "no-builtin-variables/R silent/s quiet/s no-silent no-keep-going/S stop/S touch/t "
    "trace version/v print-directory/w no-print-directory what-if=/W new-file=/W "
    "assume-new=/W warn-undefined-variables jobserver-auth= jobserver-fds= sync-mutex=",
)
"""GNU make 4.3's options (it permutes: they may follow targets)."""

_RULE_RECIPE = re.compile(r"^(?!\s)[^=#;]*?[^:=#;]:{1,2}(?![=])[^;#]*;(.*)$")
"""A rule line with its recipe after ``;`` (``x: deps; CMD``), not an assignment."""
_SHELL_ASSIGNMENT = re.compile(r"^\s*[^\s=#:]+\s*!=(.*)$")
_SHELL_FLAGS = re.compile(r"^\s*(?:(?:override|export)\s+)*\.SHELLFLAGS\s*(?::{1,3}|\+|\?)?=(.*)$")
"""``.SHELLFLAGS = -c CMD;``: make runs each recipe as ``$(SHELL) $(.SHELLFLAGS) RECIPE``."""
_FILE_WRITE = re.compile(r"\$[({]file\s*>>?\s*([^,)}]+)")
"""``$(file >FILE,TEXT)`` and ``$(file >>FILE,TEXT)``: make writes FILE when it expands it."""


def _texts(values: Sequence[str | None]) -> tuple[list[str | None], list[str | None]]:
    """The makefile texts of a make line: each ``--eval`` text and each ``NAME=VALUE``
    operand (make reads a command-line variable as a makefile line: ``make 'X!=CMD'`` runs
    CMD); and the directories of ``-C``."""
    read = read_options(_MAKE, values)
    texts = read.values("E")
    if read.problem is not None:
        texts += [t for t in _scanned_eval_texts(values) if t not in texts]
    operands = [values[i] for i in read.operands]
    texts += [o for o in operands if o is not None and "=" in o and o not in texts]
    return texts, read.values("C")


def make_eval(values: Values) -> Unwrapped | None:
    """``make --eval=TEXT`` (``-E TEXT``, ``-sETEXT``, ``--ev TEXT`` ...): the shell commands
    of each TEXT (and of ``NAME=VALUE`` operands), run in the directory of ``-C DIR``."""
    texts, directories = _texts(values)
    if not texts:
        return None
    if None in texts:
        return Unwrapped(None, (), "evaluates makefile text that expands at run time")
    scripts = tuple(script for text in texts for script in makefile_scripts(text or ""))
    return Unwrapped(None, scripts, "runs the recipes of makefile text",
                     directories=tuple(directories))  # fmt: skip


def make_writes(values: Sequence[str | None]) -> list[str | None]:
    """The files the makefile texts of a make line write (``$(file >FILE,...)``), inside
    ``-C DIR`` when relative; ``None``: text or a directory that expands at run time."""
    texts, directories = _texts(values)
    if None in texts or None in directories:
        return [None] if texts else []
    base = posixpath.join("", *(d or "" for d in directories))
    return [posixpath.join(base, f) for text in texts for f in makefile_writes(text or "")]


def makefile_writes(text: str) -> list[str]:
    """The files makefile ``text`` writes with ``$(file >FILE,TEXT)``."""
    return [match.group(1).strip().replace("$$", "$") for match in _FILE_WRITE.finditer(text)]


def _scanned_eval_texts(values: Sequence[str | None]) -> list[str | None]:
    """The values after every word that may be make's ``--eval`` or a cluster ending in ``E``:
    a line make would refuse is read word by word, too."""
    texts: list[str | None] = []
    for index, value in enumerate(values):
        following = values[index + 1] if index + 1 < len(values) else None
        option, eq, attached = (value or "").partition("=")
        if len(option) > 3 and "--eval".startswith(option):
            texts.append(attached if eq else following)
        elif re.fullmatch(r"-[a-zA-Z]*E.*", value or ""):
            rest = (value or "").partition("E")[2]
            texts.append(rest or following)
    return texts


def makefile_scripts(text: str) -> list[str]:
    """The shell commands in makefile ``text``: recipes, ``!=`` assignments, ``$(shell)``."""
    scripts: list[str] = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        recipe = _RULE_RECIPE.match(line)
        assigned = _SHELL_ASSIGNMENT.match(line)
        flags = _SHELL_FLAGS.match(line)
        if flags is not None:
            scripts += _flag_commands(flags.group(1))
        if line.startswith("\t"):
            scripts.append(line.strip().lstrip("@-+"))
        elif recipe is not None:
            scripts.append(recipe.group(1).strip().lstrip("@-+"))
        elif assigned is not None:
            scripts.append(assigned.group(1).strip())
    scripts += _shell_calls(text)
    return [script.replace("$$", "$") for script in scripts if script.strip()]


def _flag_commands(flags: str) -> list[str]:
    """The command ``.SHELLFLAGS`` gives the shell: the word after its ``-c`` (make splits the
    flags into words, a backslash quoting a space)."""
    try:
        words = shlex.split(flags)
    except ValueError:
        words = flags.split()
    found = next((i for i, w in enumerate(words) if re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", w)), None)
    return [words[found + 1]] if found is not None and found + 1 < len(words) else []


def _shell_calls(text: str) -> list[str]:
    """The command of each ``$(shell CMD)`` and ``${shell CMD}``, its parentheses balanced."""
    calls: list[str] = []
    for match in re.finditer(r"\$([({])shell\s", text):
        opening = match.group(1)
        closing = ")" if opening == "(" else "}"
        depth, index = 1, match.end()
        while index < len(text) and depth:
            depth += (text[index] == opening) - (text[index] == closing)
            index += 1
        calls.append(text[match.end() : index - 1 if depth == 0 else index])
    return calls
