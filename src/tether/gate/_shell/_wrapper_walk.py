"""What a wrapper's own options do: :class:`WrapperRules`, the part of the walk
(:class:`~._walk.Walk`) that judges them once :mod:`._wrapper_commands` has read the line —
the directory it runs its command in (``env -C``, ``unshare -w``, ``su -``, ``sudo -i``), the
shell lines ``su`` and ``runuser`` run, the recipes of a makefile ``make`` is fed,
``env NAME=value`` and ``sudo NAME=value`` words whose value some program runs (and
``export``, ``read`` and ``printf -v`` of such a variable), strace's, ltrace's and GNU time's
``-o`` (a file each writes; strace's, with ``|`` / ``!``, a shell command it pipes the trace
to), runners (``uv run CMD``), and a line the wrapper would not read as tether did (every place
its command may start is judged)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ._call import Call, Paths, display, parse_options
from ._find_walk import FindRules
from ._make_eval import makefile_scripts, makefile_writes
from ._parse import Command, Script, Word
from ._program_kinds import STDIN_FILES, WRITTEN_ENV, environment_readings, judged_variable
from ._runners import runner_readings
from ._su import read_su
from ._words import fed_words, is_option, printed_text
from ._wrapper_commands import Wrapped

__all__ = ["SETS_A_VARIABLE", "WrapperRules"]

SETS_A_VARIABLE = frozenset({"read", "printf"})
"""Builtins that set a variable from text (``read NAME <<< text``, ``printf -v NAME text``)."""
_MAX_MISREAD_STARTS = 8
"""How many places a command may start that the deny rules judge, for a wrapper misread."""


class WrapperRules(FindRules):
    """A wrapper's options, judged; the commands they hold go to the walk's deny rules."""

    _evidence: Callable[[list[str], int, str], None]
    """The walk's judgement of code found in the words (:meth:`~._walk.Walk._evidence`)."""
    _script_word: Callable[[Call, Word, int], bool]
    """The walk's judgement of a shell script (:meth:`~._walk.Walk._script_word`): whether it
    runs a program read from its input."""
    _outer_paths: Paths | None
    """Where the shell is while a wrapper runs its command elsewhere (``env -C DIR``)."""
    _expanded_value: Callable[[Word], str | None]
    """A word as bash assigns it, expanded and unsplit (:meth:`~._walk.Walk._expanded_value`)."""
    top: Script | None
    _variables: dict[str, str]
    """The script's literal variables; an array as ``NAME[@]``, its elements as written."""
    """The script as parsed at depth 0 (:attr:`~._walk.Walk.top`)."""

    def _aliases_expand(self) -> bool:
        """Whether an alias defined here can ever run: bash -c expands none unless the script
        turns ``expand_aliases`` on (or starts an interactive shell)."""
        source = self.top.source if self.top is not None else b""
        interactive = re.search(rb"\b(?:ba|z|k|da|mk)?sh\s+(?:-\w+\s+)*-\w*i", source)
        return b"expand_aliases" in source or interactive is not None

    def _child_cd(self, directory: str | None) -> None:
        """A wrapper runs its command in ``directory`` (``None``: one not known here); the walk
        moves back when that command is judged (:meth:`~._walk.Walk._call`)."""
        self._outer_paths = self._outer_paths or self.paths
        self._cd(directory)

    @staticmethod
    def _login_home(users: list[str | None]) -> str | None:
        """The home a login shell of the last of ``users`` (none: root) starts in; ``None`` for
        a user whose home is not known here."""
        return "/root" if (users[-1] if users else "root") in ("root", "0") else None

    def _switched_user(self, call: Call, depth: int) -> bool:
        """``su`` and ``runuser`` without ``-u`` (:mod:`._su`): each shell line they run is
        judged, in the user's home after a login (``su -``, ``-l``, ``--login``); whether one
        runs a program read from the input (``su -c bash``)."""
        shell = read_su(call.values)
        outer = self.paths
        if shell.home != "":
            self._cd(shell.home)
        reads = [self._script_word(call, Word(line or "", line), depth) for line in shell.scripts]
        self.paths = outer
        return any(reads)

    def _makefile(self, call: Call, cmd: Command) -> None:
        """``make -f /dev/stdin`` (or a process substitution): judge the recipes it is fed."""
        opts = parse_options(call.values, frozenset({"-f", "--file", "--makefile", "-C"}))
        files = opts.valued.get("-f", []) + opts.valued.get("--file", [])
        if not any(f in STDIN_FILES or f is None for f in files):
            return
        self._approve(f"{call.display}: runs recipes from a makefile it is fed")
        for word in fed_words(cmd):
            self._evidence(makefile_scripts(word.value or ""), 1, f"{call.display}: a recipe")
            for written in makefile_writes(word.value or ""):
                self._path(call.display, written, "write")

    def _declared(
        self, name: str, call: Call, words: tuple[Word, ...], cmd: Command, depth: int
    ) -> None:
        """``export NAME=value`` (the value as bash assigns it: expanded, never split),
        ``alias``, and ``read NAME <<< text`` / ``printf -v NAME text``: a value some program
        runs, or bash runs, is judged."""
        values = [w.value for w in words]
        if name == "read" and "-a" in values and values.index("-a") + 1 < len(values):
            array = values[values.index("-a") + 1]  # read -a NAME <<< 'rm -rf ~'
            texts = [w.value for w in fed_words(cmd) if w.value is not None]
            if array and texts:
                self._variables[f"{array}[@]"] = " ".join(texts)
        if name in SETS_A_VARIABLE:
            names = [w.value for w in words if w.value and judged_variable(w.value)]
            if names and name == "read":
                for fed in fed_words(cmd):
                    text = fed.value if fed.value is not None else fed.raw
                    self._assigned(names[0], text, depth, call.display)
            elif names and any(w.value == "-v" for w in words):  # printf -v NAME FORMAT ARGS
                at = next(i for i, w in enumerate(words) if w.value == names[0])
                printed = printed_text("printf", tuple(w.value for w in words[at + 1 :]))
                self._assigned(names[0], printed, depth, call.display)
            return
        for word in words:
            given = word.value if word.value is not None else self._expanded_value(word)
            variable, eq, value = (given or "").partition("=")
            if not eq:
                continue
            if value.startswith("(") and value.endswith(")"):  # declare -a NAME=(ELEMENTS)
                self._variables[f"{variable}[@]"] = value[1:-1]
            if name == "alias" and self._aliases_expand():
                self._evidence([value], depth, f"{call.display}: defines a command")
            elif name != "alias":
                self._assigned(variable, value, depth, call.display)

    def _wrapper_environment(
        self, name: str, words: tuple[Word, ...], wrapped: Wrapped, depth: int
    ) -> None:
        """``env NAME=value`` and ``sudo NAME=value``: a value some program runs is judged."""
        assigned = wrapped.options.values("=")
        first = wrapped.options.first_operand
        if name == "env" and first is not None:
            assigned = [w.value for w in words[first : wrapped.start or len(words)]]
        for text in assigned:
            variable, eq, value = (text or "").partition("=")
            if eq:
                self._assigned(variable, value, depth, f"{name} {variable}=...")

    def _assigned(
        self, variable: str, value: str, depth: int, shown: str, *, reads_only: bool = False
    ) -> None:
        """A value ``variable`` is given, wherever (``NAME=value cmd``, ``export``, ``env``):
        judged as the command it stands for (:func:`environment_readings`), or as a write
        where the variable names one (:data:`WRITTEN_ENV`: ``GIT_WORK_TREE=/root``) — unless
        the one command it reaches writes nothing there (``reads_only``: ``GIT_WORK_TREE=..
        git status``, as ``git --work-tree=.. status`` is read; ``git status`` still writes
        the index, so ``GIT_INDEX_FILE`` counts)."""
        if variable in WRITTEN_ENV and not (reads_only and variable == "GIT_WORK_TREE"):
            self._path(f"{shown} ({variable})", value, "write")
        if readings := environment_readings(variable, value):
            self._evidence(readings, depth, f"{shown}: a command some program may run")

    def _misread_wrapper(
        self, name: str, words: tuple[Word, ...], problem: str, depth: int
    ) -> None:
        """A wrapper line tether cannot read as the wrapper does: a person's call, and the deny
        rules judge every place the command might start."""
        shown = display(name, words)
        self._approve(f"{shown}: its options cannot be read as {name} reads them: {problem}")
        starts = [i for i, w in enumerate(words) if not is_option(w.value)][:_MAX_MISREAD_STARTS]
        readings = [" ".join(w.raw for w in words[i:]) for i in starts]
        self._evidence(readings, depth, f"{shown}: where the command may start")

    def _runner(self, name: str, words: tuple[Word, ...], depth: int) -> None:
        """``uv run CMD``, ``npx -c SCRIPT`` ... (:mod:`._runners`): every place the command it
        runs may start, and every script it hands to a shell, is judged by the deny rules."""
        readings = runner_readings(name, tuple(w.value for w in words))
        if readings is None:
            return
        shown = display(name, words)
        starts = [" ".join(w.raw for w in words[i:]) for i in readings.starts]
        self._evidence(starts, depth, f"{shown}: where the command it runs may start")
        self._evidence(list(readings.scripts), depth, f"{shown}: the shell script it runs")

    def _wrapper_outputs(
        self, name: str, words: tuple[Word, ...], wrapped: Wrapped, depth: int
    ) -> None:
        """``strace -o FILE``, ``ltrace -o FILE`` and GNU ``time -o FILE`` write FILE (time's
        ``-f`` chooses what it holds); strace's ``-o '|CMD'`` and ``-o '!CMD'`` pipe the trace
        to CMD, run by a shell."""
        if name not in ("strace", "ltrace", "time"):
            return
        shown = display(name, words)
        for output in wrapped.options.values("o"):
            if name == "strace" and output is not None and output[:1] in ("|", "!"):
                self._approve(f"{shown}: pipes its trace to a shell command")
                self._evidence([output[1:]], depth, f"{shown}: the command its trace goes to")
            else:
                self._path(shown, output, "write")
