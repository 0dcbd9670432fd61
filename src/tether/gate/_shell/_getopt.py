"""A command line read as glibc's ``getopt_long`` reads it, for programs tether must read exactly.

A reader that knows only the plain spellings of a program's options disagrees with the program:
``timeout --sig KILL 5 CMD`` (an abbreviation), ``env -vu HOME CMD`` (a cluster ending in an
option that takes a value), ``xargs -0I {} CMD`` — each hides where the command starts, and a
command tether misplaces is one its rules never judge. :func:`read_options` follows getopt:

- short options cluster (``-vk 1``); a letter that takes a value takes the rest of the word
  (``-k1``) or, when that is empty, the next word; an optional value is only ever attached;
- a long option may be any prefix that names one option (``--sig`` is ``--signal``), its value
  attached with ``=`` or, when required, the next word;
- ``--`` ends the options; ``-`` alone is an operand;
- without permutation (an optstring starting with ``+``, as every wrapper's does) the first
  operand ends the options; with it, options are read anywhere before ``--``.

What getopt would refuse — an unknown option, an ambiguous abbreviation, a missing value, a
value given to an option that takes none — is a :attr:`ReadOptions.problem`, and reading goes
on as if the option took no value, so a caller still sees the most likely reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Grammar", "Option", "ReadOptions", "grammar", "read_options"]

Arity: TypeAlias = Literal["none", "required", "optional"]


@dataclass(frozen=True, slots=True)
class Grammar:
    """One program's options, as its ``getopt_long`` call declares them."""

    short: Mapping[str, Arity]
    """Short option letters and whether each takes a value."""
    long: Mapping[str, tuple[str, Arity]]
    """Long option names, each with its key (the short letter it is, else its name)."""
    permute: bool = False
    """Whether options may follow operands (no ``+`` at the start of the optstring)."""
    numeric: bool = False
    """A word ``-N`` (``--N``, ``-+N``) where an option may stand is a value of its own, key
    ``"N"`` (``nice -5``, read by nice before getopt)."""
    assignments: bool = False
    """A word with an ``=`` (not starting with ``/``) where the operands would start is a
    variable, key ``"="``, and options may follow it (``sudo -u u A=1 -H cmd``)."""


def grammar(
    optstring: str, longs: str = "", *, numeric: bool = False, assignments: bool = False
) -> Grammar:
    """A :class:`Grammar` from getopt's optstring (``"+k:s:v"``, ``x::`` for an optional
    value) and long options written ``name``, ``name=`` (a value), ``name=?`` (an optional
    value), each with ``/x`` when it is the short option ``x`` (``"signal=/s verbose/v"``)."""
    permute = not optstring.startswith("+")
    letters = optstring.lstrip("+")
    short: dict[str, Arity] = {}
    index = 0
    while index < len(letters):
        letter = letters[index]
        colons = len(letters[index + 1 :]) - len(letters[index + 1 :].lstrip(":"))
        short[letter] = ("none", "required", "optional")[min(colons, 2)]
        index += 1 + colons
    long: dict[str, tuple[str, Arity]] = {}
    for entry in longs.split():
        spelled, _, key = entry.partition("/")
        name, eq, optional = spelled.partition("=")
        arity: Arity = "optional" if optional == "?" else "required" if eq else "none"
        long[name] = (key or name, arity)
    return Grammar(short, long, permute, numeric, assignments)


@dataclass(frozen=True, slots=True)
class Option:
    """One option as getopt returns it."""

    key: str
    """The short letter, or the full long name of an option with no short form."""
    value: str | None
    """Its value (``None``: none given, or one that expands at run time)."""
    word: int
    """Where the word that names it is."""
    end: int
    """Where the words after it start (past its value, when that is the next word)."""


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """The options of one command line and where its operands are."""

    options: tuple[Option, ...]
    operands: tuple[int, ...]
    """The indexes of the operands, in order (without permutation: from the first to the end)."""
    problem: str | None
    """Why getopt would not read the line this way; ``None`` when it would."""

    def values(self, key: str) -> list[str | None]:
        return [option.value for option in self.options if option.key == key]

    def given(self, key: str) -> bool:
        return any(option.key == key for option in self.options)

    @property
    def first_operand(self) -> int | None:
        return self.operands[0] if self.operands else None


def read_options(spec: Grammar, values: Sequence[str | None]) -> ReadOptions:
    """``values``, the words after the program's name, read as getopt reads them (see the
    module). A word that expands at run time stands where an option may: it is read as an
    operand, and that it may be an option is the problem."""
    reader = _Reader(spec, values)
    reader.read()
    return ReadOptions(tuple(reader.options), tuple(reader.operands), reader.problem)


_NUMERIC = re.compile(r"-[-+]?[0-9]")


def _is_assignment(value: str | None) -> bool:
    """sudo's test for a word that is no option: an ``=`` in it, and not at a ``/`` (after
    ``--``, none is)."""
    return value is not None and "=" in value and not value.startswith(("/", "-"))


class _Reader:
    def __init__(self, spec: Grammar, values: Sequence[str | None]) -> None:
        self.spec = spec
        self.values = values
        self.options: list[Option] = []
        self.operands: list[int] = []
        self.problem: str | None = None

    def refuse(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def read(self) -> None:
        index = 0
        while index < len(self.values):
            value = self.values[index]
            if value == "--":
                self.operands += range(index + 1, len(self.values))
                return
            if self.spec.numeric and value is not None and _NUMERIC.match(value):
                self.options.append(Option("N", value.lstrip("-"), index, index + 1))
                index += 1
            elif self.spec.assignments and _is_assignment(value):
                self.options.append(Option("=", value, index, index + 1))
                index += 1
            elif value is None or value == "-" or not value.startswith("-"):
                if value is None:
                    self.refuse("an argument expands at run time, so it may be an option")
                if not self.spec.permute:
                    self.operands += range(index, len(self.values))
                    return
                self.operands.append(index)
                index += 1
            elif value.startswith("--"):
                index = self.long(index, value[2:])
            else:
                index = self.cluster(index, value[1:])

    def long(self, index: int, written: str) -> int:
        name, eq, attached = written.partition("=")
        longs = self.spec.long
        matches = [name] if name in longs else [n for n in longs if n.startswith(name)]
        if len({longs[n] for n in matches}) != 1:
            self.refuse(f"--{name}: {'an ambiguous' if matches else 'not an'} option")
            return index + 1
        key, arity = longs[matches[0]]
        value: str | None = attached if eq else None
        after = index + 1
        if arity == "required" and not eq:
            if after >= len(self.values):
                self.refuse(f"--{matches[0]}: its value is missing")
            else:
                value, after = self.values[after], after + 1
        elif eq and arity == "none":
            self.refuse(f"--{matches[0]}: takes no value")
        self.options.append(Option(key, value, index, after))
        return after

    def cluster(self, index: int, letters: str) -> int:
        for position, letter in enumerate(letters):
            rest = letters[position + 1 :]
            arity = self.spec.short.get(letter)
            if arity is None:
                self.refuse(f"-{letter}: not an option")
                continue
            if arity == "none":
                self.options.append(Option(letter, None, index, index + 1))
                continue
            if rest or arity == "optional":
                self.options.append(Option(letter, rest or None, index, index + 1))
            elif index + 1 < len(self.values):
                self.options.append(Option(letter, self.values[index + 1], index, index + 2))
                return index + 2
            else:
                self.refuse(f"-{letter}: its value is missing")
            return index + 1
        return index + 1
