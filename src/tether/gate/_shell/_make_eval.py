"""The shell commands in makefile text: ``make --eval=TEXT`` (``-E TEXT``) reads TEXT as a
makefile, so ``make --eval='x:;rm -rf ~' x`` runs ``rm -rf ~`` and was ``approve`` where
``rm -rf ~`` is denied; a makefile ``make -f /dev/stdin`` is fed holds recipes too.

:func:`makefile_scripts` finds what GNU make 4.3 hands to a shell: each recipe line (after
the ``;`` of a rule line, or indented with a tab), the command of a ``VAR != CMD``
assignment and of every ``$(shell CMD)``, each with make's ``$$`` read as ``$``.
:func:`make_eval_texts` finds the texts, make's options read as make reads them.
"""

from __future__ import annotations

import re

from ._call import Values
from ._getopt import grammar, read_options
from ._unwrapped import Unwrapped

__all__ = ["make_eval", "makefile_scripts"]

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


def make_eval(values: Values) -> Unwrapped | None:
    """``make --eval=TEXT`` (``-E TEXT``, ``-sETEXT``, ``--ev TEXT`` ...): the shell commands
    of each TEXT, run in the directory of ``-C DIR``."""
    read = read_options(_MAKE, values)
    texts = read.values("E")
    if read.problem is not None:
        texts += [t for t in _scanned_eval_texts(values) if t not in texts]
    if not texts:
        return None
    if None in texts:
        return Unwrapped(None, (), "evaluates makefile text that expands at run time")
    scripts = tuple(script for text in texts for script in makefile_scripts(text or ""))
    return Unwrapped(None, scripts, "runs the recipes of makefile text",
                     directories=tuple(read.values("C")))  # fmt: skip


def _scanned_eval_texts(values: Values) -> list[str | None]:
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
        if line.startswith("\t"):
            scripts.append(line.strip().lstrip("@-+"))
        elif recipe is not None:
            scripts.append(recipe.group(1).strip().lstrip("@-+"))
        elif assigned is not None:
            scripts.append(assigned.group(1).strip())
    scripts += _shell_calls(text)
    return [script.replace("$$", "$") for script in scripts if script.strip()]


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
