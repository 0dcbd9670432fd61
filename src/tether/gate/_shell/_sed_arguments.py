"""A ``sed`` command line read as GNU sed 4.9 reads it: the one reader of sed's arguments for the
read-only proof, the files it changes and the commands its scripts run.

GNU sed takes its options through ``getopt_long``, so a reader that knows only the plain spellings
disagrees with sed — and a script hidden in a spelling the reader passes over runs unjudged. This
one follows getopt: short options cluster (``-ne 5p``, ``-se SCRIPT``, ``-nf FILE``), a value may
be attached (``-e5p``) or be the next word, ``-i`` takes only an attached suffix (``-in`` is
``-i`` with suffix ``n``, not ``-n``), a long option may be any prefix that names one option
(``--expr=…``, ``--e …``), ``--`` ends the options. Options may follow operands (getopt permutes
them), except when ``POSIXLY_CORRECT`` is set in sed's environment, where the first operand ends
them: where the two readings differ, :func:`read_sed_arguments` keeps what either finds, so no
script and no file of one reading is missed.

What tether cannot read as sed does is a :attr:`SedArguments.problem`: an option sed does not take,
an ambiguous abbreviation, a missing value, a word that expands at run time where an option may
stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._getopt import ReadOptions, grammar, read_options
from ._sed import prints_only

__all__ = ["SedArguments", "read_sed_arguments", "sed_printed_files"]

_SED = grammar(
    "bEnrsuze:f:l:i::",
    "binary/b debug expression=/e file=/f follow-symlinks help in-place=?/i line-length=/l "
    "null-data/z zero-terminated/z posix quiet/n regexp-extended/r sandbox separate/s silent/n "
    "unbuffered/u version",
)
"""GNU sed 4.9's ``getopt_long`` call: its optstring and every long option."""
_SED_POSIXLY_CORRECT = replace(_SED, permute=False)


@dataclass(frozen=True, slots=True)
class SedArguments:
    """What one sed command line asks of sed (``None``: a word that expands at run time)."""

    scripts: tuple[str | None, ...]
    """Every script text sed may run: ``-e``/``--expression`` values, else the first operand."""
    script_files: tuple[str | None, ...]
    """Files of script (``-f``/``--file``): what they run cannot be read from the command."""
    files: tuple[str | None, ...]
    """The input files it reads (``-``, standard input, left out)."""
    edited: tuple[str | None, ...]
    """The input files it changes in place (``-i``/``--in-place``)."""
    quiet: bool
    """``-n``/``--quiet``/``--silent`` in every reading: nothing but what the script prints."""
    problem: str | None
    """Why the command line cannot be read exactly as sed reads it; ``None`` when it can."""


def read_sed_arguments(values: Sequence[str | None]) -> SedArguments:
    """``values``, the words after ``sed``, read as sed would (the module says how)."""
    scripts: list[str | None] = []
    files: list[str | None] = []
    edited: list[str | None] = []
    script_files: list[str | None] = []
    quiet, problem = True, None
    for spec in (_SED, _SED_POSIXLY_CORRECT):
        read = read_options(spec, values)
        its_scripts, its_files = _scripts_and_files(read, values)
        scripts += [s for s in its_scripts if s not in scripts]
        inputs = [f for f in its_files if f != "-"]
        files += [f for f in inputs if f not in files]
        if read.given("i"):
            edited += [f for f in inputs if f not in edited]
        script_files += [f for f in read.values("f") if f not in script_files]
        quiet = quiet and read.given("n")
        problem = problem or read.problem
    return SedArguments(
        scripts=tuple(scripts),
        script_files=tuple(script_files),
        files=tuple(files),
        edited=tuple(edited),
        quiet=quiet,
        problem=problem,
    )


def _scripts_and_files(
    read: ReadOptions, values: Sequence[str | None]
) -> tuple[list[str | None], list[str | None]]:
    """The scripts and the input files: without ``-e`` or ``-f``, the first operand is the
    script."""
    operands = [values[index] for index in read.operands]
    if read.given("e") or read.given("f"):
        return read.values("e"), operands
    return operands[:1], operands[1:]


def sed_printed_files(values: Sequence[str | None]) -> tuple[str, ...] | str:
    """The files a read-only sed reads — ``sed -n`` whose every script only prints (``5p``,
    ``1,20p``, ``/re/p``), changing nothing — or why it is not read-only."""
    sed = read_sed_arguments(values)
    if sed.problem is not None:
        return f"sed: {sed.problem}"
    scripts = sed.scripts
    only_prints = bool(scripts) and all(s is not None and prints_only(s) for s in scripts)
    if not sed.quiet or sed.edited or sed.script_files or not only_prints:
        return "sed: only `sed -n` with print commands (5p, 1,20p, /re/p) is read-only"
    if None in sed.files:
        return "sed: reads a file whose name expands at run time"
    return tuple(f for f in sed.files if f is not None)
