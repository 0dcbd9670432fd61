"""What a command reads: :class:`InputRules`, the part of the walk (:class:`~._walk.Walk`) that
follows a script's text from one command into the next.

Each command of a pipeline is an :class:`Effect`. The rules here judge what flows between them
(downloaded or decoded data piped to a shell, a shell wired to the network, literal text piped
to a shell, which is then a script), what a command reads as literal text (the stage before it
printing it, a here-string, a heredoc), ``cat`` handing its input on (``bash -c 'cat | bash'``
runs what the script is fed), and the options curl reads from a config the script
supplies (:mod:`._config_files`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import NamedTuple

from . import _rules as rules
from ._call import Call
from ._config_files import CONFIG_READERS, SSH_CLIENTS, config_files, config_options
from ._parse import Command, Word
from ._program_kinds import STDIN_FILES
from ._sed import sed_effects
from ._sed_arguments import read_sed_arguments
from ._words import INTERPRETERS, SHELLS, fed_words, printed_by_substitution
from ._wrapper_walk import WrapperRules

__all__ = ["Effect", "InputRules"]

_DONE = {"download": "downloaded", "decode": "decoded"}
_RUNS_INPUT = ("program-stdin", "shell", "code-stdin")
"""The roles of a stage that runs what it reads (``code-stdin``: in a language not the
shell's: ed's commands, a makefile, Tcl, vim's)."""
_PRINTS_PATHS: dict[str, re.Pattern[str] | None] = {
    "realpath": None,
    "readlink": re.compile(r"-[a-z]*[fem][a-z]*"),
    "ls": re.compile(r"-[a-zA-Z]*d[a-zA-Z]*"),
}
"""Programs that print literal paths they are given: realpath always, readlink with ``-f``,
``-e`` or ``-m``, ls with ``-d``."""
_TCL = frozenset({"tclsh", "wish", "expect"})
_TCL_EXEC = re.compile(r"^\s*(?:exec|open\s+\|)\s*(.+)$", re.M)
"""Tcl's ``exec CMD ARGS`` (and ``open |CMD``) run a program: its words read as shell words."""


class Effect(NamedTuple):
    """A command as a pipeline stage: ``role`` is ``program-stdin`` (a shell or interpreter
    reading code from its input), ``shell``, ``network``, ``download``, ``decode``, ``text``
    (prints the literal ``text``), ``relay`` (prints what it reads: ``cat``), ``paths`` (``find``
    printing what ``text`` lists, one a line) or ``other``."""

    call: Call
    role: str
    text: str = ""


class InputRules(WrapperRules):
    """A script's text as it flows from one command into the next."""

    _effects: dict[tuple[int, int], list[Effect]]
    """Each pipeline stage's effects so far, by pipeline and stage."""
    _feeds: dict[int, tuple[int, int]]
    """A pipeline inside a stage of another (``curl x | (cat | bash)``): that stage, which
    its first stage reads the input of (:attr:`~._parse.Command.fed_from`)."""
    _written: dict[str, str]
    """Literal text the script wrote into a file so far (``printf CODE > x.sh``), by path."""
    _reads_input: bool
    """The script runs a program read from its own input (a first-stage ``bash``, ``su``)."""
    _nested: Callable[[str, int, str], bool]
    """The walk's judgement of a nested script (:meth:`~._walk.Walk._nested`)."""

    def _literal_input(self, cmd: Command) -> list[str]:
        """The literal text ``cmd`` reads: what the stage before it prints, when each command
        there prints literal text, and the here-strings and heredocs it is fed."""
        previous = self._previous(cmd)
        texts = [e.text for e in previous if e.role == "text"]
        printed = texts if previous and len(texts) == len(previous) else []
        return printed + [w.value for w in fed_words(cmd) if w.value is not None]

    def _remember_written(self, cmd: Command, effects: list[Effect]) -> None:
        """Keep what a command printing literal text writes into a file (``>``, ``>>``)."""
        texts = [e.text for e in effects if e.role == "text"]
        for redirect in cmd.redirects if texts and len(texts) == len(effects) else ():
            target = redirect.target.value if redirect.target else None
            path = (
                self.paths.resolve(target) if target and redirect.operator in (">", ">>") else None
            )
            if path is not None:
                before = self._written.get(path, "") if redirect.operator == ">>" else ""
                self._written[path] = before + "\n".join(texts) + "\n"

    def _written_script(self, call: Call, file: str | None, depth: int) -> None:
        """``bash x.sh`` or ``. ./x.sh`` of a file this script wrote with literal text: judge
        that text (``printf 'rm -rf ~' > x.sh; . ./x.sh`` is ``rm -rf ~``)."""
        path = self.paths.resolve(file) if file else None
        if path is not None and path in self._written:
            self._nested(self._written[path], depth, f"{call.display}: the script this one wrote")

    def _previous(self, cmd: Command) -> list[Effect]:
        """The commands of the stage whose output ``cmd`` reads (none: not in a pipeline)."""
        pipeline, stage = cmd.fed_from or (cmd.pipeline, cmd.stage)
        return self._effects.get((pipeline, stage - 1), []) if pipeline >= 0 else []

    def _relayed(self, call: Call, cmd: Command) -> Effect:
        """``cat`` with no files prints what it reads: literal text when that is, else the
        input it is handed, passed on (``relay``)."""
        if texts := self._literal_input(cmd):
            return Effect(call, "text", "\n".join(texts))
        reads_a_file = fed_words(cmd) or any(r.operator == "<" for r in cmd.redirects)
        return Effect(call, "other" if reads_a_file else "relay")

    def _given(self, name: str, words: tuple[Word, ...], cmd: Command) -> tuple[Word, ...]:
        """``name``'s words with what it reads as words too: the options of a config the
        script supplies (curl, ssh), and sqlite3's input, read as its arguments are."""
        if name == "sqlite3":
            return words + tuple(Word(text, text) for text in self._literal_input(cmd))
        return self._configured(name, words, cmd) + words if name in CONFIG_READERS else words

    def _configured(self, name: str, words: tuple[Word, ...], cmd: Command) -> tuple[Word, ...]:
        """The options a config the script supplies gives curl or ssh (``-K -`` it is fed,
        ``-F <(echo ...)``), as words put before its own."""
        texts: list[str] = []
        ssh = name in SSH_CLIENTS  # ssh reads /dev/stdin, not "-", and closes other fds
        for file in config_files(name, [w.value for w in words]):
            if file in STDIN_FILES and not (ssh and file == "-"):
                texts += self._literal_input(cmd)
            elif file is None and not ssh:  # -K <(echo ...)
                texts += [text for word in words for text in printed_by_substitution(word)]
        options = [option for text in texts for option in config_options(name, text)]
        return tuple(Word(option, option) for option in options)

    def _input_effect(self, call: Call, cmd: Command) -> Effect | None:
        """:meth:`_input_role` as an effect, or the ``paths`` that ``realpath``, ``readlink
        -f`` and ``ls -d`` of literal paths print (``realpath ~ | xargs rm -rf``)."""
        values = call.values
        if call.name in _PRINTS_PATHS and None not in values:
            printing = _PRINTS_PATHS[call.name]  # the option that makes it print its operands
            shown = printing is None or any(printing.fullmatch(v or "") for v in values)
            operands = [v for v in values if v is not None and not v.startswith("-")]
            if shown and operands:
                return Effect(call, "paths", "\n".join(operands))
        role = self._input_role(call, cmd)
        return Effect(call, role) if role else None

    def _input_role(self, call: Call, cmd: Command) -> str | None:
        """The role of a program that runs what it reads, when it does: ``sed`` with an
        ``e`` command (its input lines are shell commands), ``tee >(sh)``, ``python3
        /dev/stdin``, and ``code-stdin`` for ``ed`` (its ``!CMD`` lines are judged), ``tclsh``
        (its ``exec CMD``), ``make -f -`` and ``vim -S /dev/stdin`` (its ``:!CMD`` lines)."""
        name, values = call.name, call.values
        scripts = read_sed_arguments(values).scripts if name == "sed" else ()
        if any(script is not None and sed_effects(script).runs_input for script in scripts):
            return "program-stdin"
        if name == "tee" and any(_runs_a_shell(word) for word in cmd.args):
            return "program-stdin"
        if rules.family(name) in INTERPRETERS and values[:1] and values[0] in STDIN_FILES:
            return "program-stdin"
        if name in ("ed", "ex") or rules.family(name) in _TCL:
            found = "ed" if name in ("ed", "ex") else "tcl"
            for text in self._literal_input(cmd):
                commands = _bang_commands(text) if found == "ed" else _TCL_EXEC.findall(text)
                self._evidence(commands, 1, f"{call.display}: a command in its input")
            return "code-stdin" if found == "ed" or not values else None
        if name in ("make", "vim", "vi", "nvim", "ex") and any(v in STDIN_FILES for v in values):
            for text in self._literal_input(cmd) if name != "make" else ():
                self._evidence(_bang_commands(text), 1, f"{call.display}: a command it sources")
            return "code-stdin"
        return None

    def _into_shell(self, shell: str, effects: list[Effect], depth: int) -> None:
        """What a command prints after ``exec > >(sh)`` is a script for that shell."""
        for effect in effects:
            if effect.role in ("download", "decode"):
                done = _DONE[effect.role]
                self._deny(f"{effect.call.display} > {shell}: {done} data run as a script")
            elif effect.role == "text":
                self._nested(effect.text, depth, shell)

    def _pipelines(self, depth: int) -> None:
        pipelines: dict[int, list[list[Effect]]] = {}
        for (pipeline, _), effects in sorted(self._effects.items()):
            pipelines.setdefault(pipeline, []).append(effects)
        for pipeline, own in pipelines.items():
            outer, at = self._feeds.get(pipeline, (-1, 0))
            before = [e for (p, s), e in sorted(self._effects.items()) if p == outer and s < at]
            stages = before + own  # a pipeline in a stage reads what that stage is fed
            flat = [effect for stage in stages for effect in stage]
            network = next((e for e in flat if e.role == "network"), None)
            shell = next((e for e in flat if e.role in _RUNS_INPUT), None)
            if network is not None and shell is not None:
                pair = f"{network.call.display} | {shell.call.display}"
                self._deny(f"{pair}: a shell wired to the network (reverse shell)")
            for position, effect in ((p, e) for p, st in enumerate(stages) for e in st):
                if effect.role not in _RUNS_INPUT or not position:
                    continue
                for source in (e for stage in stages[:position] for e in stage):
                    pair = f"{source.call.display} | {effect.call.display}"
                    if source.role in ("download", "decode"):
                        self._deny(f"{pair}: {_DONE[source.role]} data piped to a shell")
                previous = stages[position - 1]
                if effect.role == "program-stdin" and all(e.role == "text" for e in previous):
                    text = "\n".join(e.text for e in previous)
                    self._nested(text, depth, effect.call.display)
                relayed = all(e.role == "relay" for stage in stages[:position] for e in stage)
                if effect.role == "program-stdin" and relayed:  # cat | bash: the script's input
                    self._reads_input = True


def _bang_commands(text: str) -> list[str]:
    """The shell commands of ed's or vim's ``!CMD`` (``:!CMD``) lines in ``text``."""
    lines = (line.lstrip(": \t") for line in text.splitlines())
    return [line[1:] for line in lines if line.startswith("!")]


def _runs_a_shell(word: Word) -> bool:
    """``>(sh)``: an output process substitution whose command is a shell reading its input."""
    if not word.raw.startswith(">("):
        return False
    names = [posixpath.basename(c.name.value or "") for c in word.substitutions if c.name]
    return any(name in SHELLS for name in names)
