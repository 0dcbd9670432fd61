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
from dataclasses import dataclass, field

from ._sed import prints_only

__all__ = ["SedArguments", "read_sed_arguments", "sed_printed_files"]

_SHORT_FLAGS = frozenset("bEnrsuz")
_SHORT_VALUED = frozenset("efl")
_QUIET = "n"
_LONG_TO_SHORT = {
    "binary": "b", "debug": "", "expression": "e", "file": "f", "follow-symlinks": "",
    "help": "", "in-place": "i", "line-length": "l", "null-data": "z", "zero-terminated": "z",
    "posix": "", "quiet": "n", "regexp-extended": "r", "sandbox": "", "separate": "s",
    "silent": "n", "unbuffered": "u", "version": "",
}  # fmt: skip
"""Every long option of GNU sed 4.9, with the short option it is (``""``: long only)."""
_LONG_VALUED = frozenset({"expression", "file", "line-length"})
_LONG_OPTIONAL = frozenset({"in-place"})


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


@dataclass(slots=True)
class _Reading:
    scripts: list[str | None] = field(default_factory=list)
    script_files: list[str | None] = field(default_factory=list)
    operands: list[str | None] = field(default_factory=list)
    quiet: bool = False
    in_place: bool = False
    problem: str | None = None

    def refuse(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def take(self, option: str, value: str | None) -> None:
        if option == "e":
            self.scripts.append(value)
        elif option == "f":
            self.script_files.append(value)
        elif option == "i":
            self.in_place = True
        elif option == _QUIET:
            self.quiet = True

    def sed_arguments(self) -> tuple[list[str | None], list[str | None]]:
        """The scripts and the input files: without ``-e`` or ``-f``, the first operand is the
        script."""
        if self.scripts or self.script_files:
            return self.scripts, self.operands
        return self.operands[:1], self.operands[1:]


def read_sed_arguments(values: Sequence[str | None]) -> SedArguments:
    """``values``, the words after ``sed``, read as sed would (the module says how)."""
    permuted, posix = _read(values, permute=True), _read(values, permute=False)
    scripts: list[str | None] = []
    files: list[str | None] = []
    edited: list[str | None] = []
    for reading in (permuted, posix):
        its_scripts, its_files = reading.sed_arguments()
        scripts += [s for s in its_scripts if s not in scripts]
        inputs = [f for f in its_files if f != "-"]
        files += [f for f in inputs if f not in files]
        if reading.in_place:
            edited += [f for f in inputs if f not in edited]
    script_files = list(dict.fromkeys(permuted.script_files + posix.script_files))
    return SedArguments(
        scripts=tuple(scripts),
        script_files=tuple(script_files),
        files=tuple(files),
        edited=tuple(edited),
        quiet=permuted.quiet and posix.quiet,
        problem=permuted.problem or posix.problem,
    )


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


def _read(values: Sequence[str | None], *, permute: bool) -> _Reading:
    reading = _Reading()
    index = 0
    while index < len(values):
        value = values[index]
        index += 1
        if value is None:
            reading.refuse("an argument expands at run time, so it may be an option")
            reading.operands.append(None)
        elif value == "--":
            reading.operands += values[index:]
            break
        elif value == "-" or not value.startswith("-"):
            reading.operands.append(value)
            if not permute:
                reading.operands += values[index:]
                break
        elif value.startswith("--"):
            index = _long(reading, values, index, value[2:])
        else:
            index = _short_cluster(reading, values, index, value[1:])
    return reading


def _long(reading: _Reading, values: Sequence[str | None], index: int, written: str) -> int:
    name, eq, attached = written.partition("=")
    matches = [n for n in _LONG_TO_SHORT if n == name] or [
        n for n in _LONG_TO_SHORT if n.startswith(name)
    ]
    if len({_LONG_TO_SHORT[n] or n for n in matches}) != 1:
        kind = "an ambiguous" if matches else "not an"
        reading.refuse(f"--{name}: {kind} option of sed")
        return index
    full = matches[0]
    value: str | None = attached if eq else None
    if full in _LONG_VALUED and not eq:
        if index >= len(values):
            reading.refuse(f"--{full}: its value is missing")
            return index
        value, index = values[index], index + 1
    elif eq and full not in _LONG_VALUED | _LONG_OPTIONAL:
        reading.refuse(f"--{full}: takes no value")
    reading.take(_LONG_TO_SHORT[full] or full, value)
    return index


def _short_cluster(
    reading: _Reading, values: Sequence[str | None], index: int, letters: str
) -> int:
    for position, letter in enumerate(letters):
        rest = letters[position + 1 :]
        if letter == "i":
            reading.take("i", rest)  # the suffix, attached or none: never the next word
            return index
        if letter in _SHORT_VALUED:
            if rest:
                reading.take(letter, rest)
            elif index < len(values):
                reading.take(letter, values[index])
                index += 1
            else:
                reading.refuse(f"-{letter}: its value is missing")
            return index
        if letter not in _SHORT_FLAGS:
            reading.refuse(f"-{letter}: not an option of sed")
            continue
        reading.take(letter, None)
    return index
