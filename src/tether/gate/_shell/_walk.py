"""The walk: every command a bash script would run, judged by the deny and approve rules.

The script is parsed once (:mod:`._parse`) and every command it would run is judged by the
deny rules: wrappers and programs that run programs are unwrapped (``sudo``, ``env``,
``timeout``, ``xargs``, ``find -exec``, ``bash -c``, ``eval``, :mod:`._wrappers`), each
command is also judged as bash expands it (:mod:`._expand`: braces, quoting, known
variables split on ``IFS``, ``~+``/``~-``/``cd -``, globs on system paths), heredocs are read as
bash reads them (:mod:`._heredoc`), a script that tree-sitter may read otherwise than bash
(a parse error, CR and other blank-like characters, comments, backslash-newlines) is also judged
command by command as bash splits it (:mod:`._lex`), and what one command means comes from
:mod:`._rules`. The walk adds what only the whole script shows: pipelines (download or
decode piped to a shell, a shell wired to the network), the directory after ``cd``, literal
variables, redirections and the path policy.

``deny`` for the rules of :mod:`._rules` (``docs/governance.md``, "The shell policy");
``allow`` only when no rule objects *and* the script is proved read-only by :mod:`._allow`
(a list or pipeline of literal read-only commands with allowed options and files); ``approve``
for everything else, however harmless it looks. The session-memory key is the whole tree spelled
canonically (:mod:`._key`).
"""

from __future__ import annotations

import posixpath
import re
import shlex

from .._verdict import Verdict
from . import _rules as rules
from ._allow import PathChecks
from ._budget import check_size
from ._call import Call, Paths, collapse, display, git_subcommand, parse_options
from ._config_files import SSH_CLIENTS
from ._expand import Environment, brace_expand, expand_word
from ._heredoc import heredoc_disagreements
from ._indirect import indirect_readings
from ._input_walk import Effect, InputRules
from ._lex import as_bash_reads_it, differs_from_the_parser
from ._output_files import GIT_READS_ONLY, KEY_MAKERS
from ._parse import Command, Script, ShellParser, Word
from ._program_kinds import (
    DECLARATIONS,
    DOWNLOADERS,
    EVALUATING,
    NETWORK,
    NOT_READING,
    SAFE_ENV,
    SEARCHERS,
    SECRET_VARIABLE,
    SENSITIVE_ENV,
    STDIN_FILES,
    STORED_CODE,
    SYSTEM_BIN,
    WRAPPER_OPTIONS,
    WRAPPER_RAISES,
)
from ._su import shell_reads_its_input
from ._words import (
    EXPANDS,
    INTERPRETERS,
    SHELLS,
    fed_words,
    is_option,
    not_files,
    printed_by_substitution,
    printed_text,
    quoted_patterns,
    shell_fed_by_output,
    split_string,
    substitute,
)
from ._wrapper_commands import GRAMMARS, read_wrapper
from ._wrapper_walk import SETS_A_VARIABLE
from ._wrappers import is_wrapper, unwrap

__all__ = ["Walk"]


_MAX_DEPTH = 6
_ARRAY = re.compile(r'"?\$\{(\w+)\[[@*]\]\}"?')
"""``"${a[@]}"``: an array's elements, each a word (``a=(rm -rf ~); "${a[@]}"``)."""
_SCAN_SECONDS = 0.025
"""The budget of the deny scan after a spent one (:meth:`ShellPolicy._denied_past_budget`)."""


class Walk(InputRules):
    """One ``classify``: the verdicts so far, the working directory, literal variables."""

    def __init__(self, parser: ShellParser, path_policy: PathChecks | None, paths: Paths) -> None:
        self._parser = parser
        self._path_policy = path_policy
        self.paths = paths
        self.verdicts: list[Verdict] = []
        self._variables: dict[str, str] = {}
        self._effects = {}
        self._feeds = {}
        self._written = {}
        self.top: Script | None = None
        """The script as parsed at depth 0 (what ``allow`` must be proved on)."""
        self._outer_paths: Paths | None = None
        """Where the shell is while a wrapper runs its command elsewhere (``env -C DIR``)."""
        self._reads_input = False

    # --- scripts -----------------------------------------------------------------------------

    def script(self, text: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            self._approve(f"{collapse(text)[:60]}: scripts nested too deeply to inspect")
            return
        script = self._parser.parse(text)
        if depth == 0:
            self.top = script
        if script.error:
            self._approve(f"{collapse(text)[:60]}: does not parse cleanly; nothing is auto-allowed")
        if script.error or differs_from_the_parser(text):  # deny rules see bash's own words too
            reading = as_bash_reads_it(text)
            if reading.strip() != text.strip():
                self._evidence([reading], depth, f"{collapse(text)[:60]}: as bash splits it")
        if script.error and "{" in text:  # {rm,-rf,~} does not parse, but bash runs it
            expanded = [brace_expand(token) or [token] for token in text.split()]
            reading = " ".join(field for fields in expanded for field in fields)
            if reading != " ".join(text.split()):
                self._evidence([reading], depth, f"{collapse(text)[:60]}: as bash expands it")
        for reading in indirect_readings(text, script.root, script.source):
            self._evidence([reading], depth, f"{collapse(text)[:60]}: what it runs indirectly")
        if b"<<" in script.source and script.root is not None:
            for hidden in heredoc_disagreements(script.root, script.source):
                self._approve(f"{collapse(text)[:60]}: bash and the parser disagree on a heredoc")
                self._evidence([hidden], depth, f"{collapse(text)[:60]}: what bash runs")
        for name in dict.fromkeys(script.fork_bombs):
            self._deny(f"{name}(): calls itself in a pipeline or the background (fork bomb)")
        saved, self._effects, self._feeds = (self._effects, self._feeds), {}, {}
        output_shell: str | None = None
        for cmd in script.commands:
            effects = self._command(cmd, depth)
            if not (cmd.stage or cmd.nested) and any(e.role == "program-stdin" for e in effects):
                self._reads_input = True
            if cmd.pipeline >= 0:
                self._effects.setdefault((cmd.pipeline, cmd.stage), []).extend(effects)
            if cmd.fed_from is not None:
                self._feeds[cmd.pipeline] = cmd.fed_from
            self._remember_written(cmd, effects)
            if output_shell is not None and not cmd.nested:
                self._into_shell(output_shell, effects, depth)
            output_shell = output_shell or shell_fed_by_output(cmd)
            if output_shell is not None and cmd.name is not None and cmd.name.value == "exec":
                self._approve(f"{output_shell}: everything printed from here runs as a script")
        self._pipelines(depth)
        self._effects, self._feeds = saved

    def _nested(self, text: str, depth: int, display: str) -> bool:
        """Judge ``text`` as a script; whether it runs a program read from its input (which is
        then the input of the command that runs ``text``: ``echo CMD | su -c bash``)."""
        before, outer, self._reads_input = len(self.verdicts), self._reads_input, False
        self.script(text, depth + 1)
        if len(self.verdicts) == before:
            self.verdicts.append(Verdict.allow(f"{display}: runs nothing"))
        reads, self._reads_input = self._reads_input, outer
        return reads

    def _evidence(self, readings: list[str], depth: int, why: str) -> None:
        """Classify each reading of an unknown command; keep what one of them would deny."""
        for text in dict.fromkeys(readings):
            probe = Walk(self._parser, None, self.paths)
            probe._variables = self._variables
            probe.script(text, depth + 1)
            denials = [v for v in probe.verdicts if v.decision == "deny"]
            if denials:
                self._deny(f"{why}; read as `{collapse(text)[:60]}` it is denied")
                self.verdicts.extend(denials)
                return

    # --- commands ----------------------------------------------------------------------------

    def _command(self, cmd: Command, depth: int) -> list[Effect]:
        for assignment in cmd.assignments:
            name, value = assignment.name, assignment.value.value
            if cmd.name is not None and not SAFE_ENV.match(name):
                self._approve(f"{name}=... {cmd.name.raw}: runs with a changed environment")
            elif cmd.name is None and SENSITIVE_ENV.match(name):
                self._approve(f"{name}=...: changes how later commands run")
            elif cmd.name is None:
                self.verdicts.append(Verdict.allow(f"{name}=...: sets a shell variable"))
            if value is None and assignment.value.raw.startswith("("):  # NAME=(ELEMENTS)
                self._variables[f"{name}[@]"] = assignment.value.raw[1:-1]
            if name in ("BASH_ENV", "ENV"):  # BASH_ENV=<(echo CODE) bash -c : runs CODE first
                for text in printed_by_substitution(assignment.value):
                    self._evidence([text], depth, f"{name}=...: a script the shell runs first")
            elif value is None:  # GIT_SSH_COMMAND=$X git fetch: what $X holds, unsplit
                value = self._expanded_value(assignment.value)
            if value is not None:
                self._assigned(name, value, depth, f"{name}=...", reads_only=self._reads_only(cmd))
            if value is not None and STORED_CODE.search(value):
                self._evidence([value], depth, f"{name}=...: holds code bash may run later")
            if cmd.name is None and value is not None:
                check_size(value)
                self._variables[name] = value
        self._redirects(cmd)
        if cmd.name is None:
            return []
        self._expanded_reading(cmd, depth)
        if cmd.name.value is None:
            self._unknown(cmd.name, cmd.args, depth)
            return []
        name = cmd.name.value.strip()
        if "/" in name:
            if posixpath.dirname(posixpath.normpath(name)) not in SYSTEM_BIN:
                self._approve(f"{name}: runs a program outside the system binary directories")
            name = posixpath.basename(name)
        return self._call(name, cmd.args, cmd, depth)

    def _reads_only(self, cmd: Command) -> bool:
        """``cmd`` is git with a subcommand that writes nothing in the work tree."""
        values = tuple(w.value for w in cmd.args)
        named = cmd.name is not None and cmd.name.value == "git"
        return named and git_subcommand(values)[0] in GIT_READS_ONLY

    def _environment(self) -> Environment:
        paths = self.paths
        return Environment(paths.home, self._variables, paths.cwd, paths.oldpwd, local=paths.local)

    def _expanded_value(self, word: Word) -> str | None:
        expanded = expand_word(word.raw, self._environment(), split=False)
        if expanded:
            check_size(expanded[0])
        return expanded[0] if expanded else None

    def _expanded_reading(self, cmd: Command, depth: int) -> None:
        """Judge the command as bash expands it: braces, quoting, known variables split on IFS,
        ``~+``/``~-``, globs on system paths; deny what that reading would deny."""
        words = (cmd.name, *cmd.args) if cmd.name is not None else cmd.args
        if not any(EXPANDS.search(w.raw) for w in words):
            return
        environment = self._environment()
        fields: list[str] = []
        changed = False
        for word in words:
            expanded = expand_word(word.raw, environment)
            if expanded is None:
                fields.append(word.raw)
                continue
            changed = changed or expanded != [word.value]
            fields.extend(shlex.quote(f) for f in expanded)
            check_size("".join(fields))
        name = cmd.name.value if cmd.name is not None else None
        evaluates = name in EVALUATING or (
            name in ("printf", "test", "[") and any(w.value == "-v" for w in cmd.args)
        )
        if evaluates:
            for word in cmd.args:
                if word.value is not None and STORED_CODE.search(word.value):
                    self._evidence([word.value], depth, f"{name}: evaluates {word.raw[:40]}")
        if changed and fields:
            text = " ".join(w.raw for w in words)
            self._evidence([" ".join(fields)], depth, f"{collapse(text)[:60]}: as bash expands it")

    def _unknown(self, name: Word, args: tuple[Word, ...], depth: int) -> None:
        why = f"{display(collapse(name.raw), args)}: the command name is not a literal word"
        self._approve(f"{why}; what runs is decided at run time")
        self._fetched(Call("", (), why, self.paths), (name,))
        rest = " ".join(word.raw for word in args)
        spaced = re.sub(r"\$\{IFS\}|\$IFS\b", " ", f"{name.raw} {rest}")  # rm${IFS}-rf${IFS}/
        arrays = _ARRAY.sub(lambda m: self._variables.get(f"{m[1]}[@]", m[0]), f"{name.raw} {rest}")
        self._evidence([f"rm {rest}", f"sh {rest}", rest, spaced, arrays], depth, why)

    def _call(self, name: str, words: tuple[Word, ...], cmd: Command, depth: int) -> list[Effect]:
        """Unwrap wrappers, then classify the command they run; a directory a wrapper moved
        to is its command's alone, and the shell stays where it was."""
        saved, self._outer_paths = self._outer_paths, None
        try:
            return self._unwrapped_call(name, words, cmd, depth)
        finally:
            self.paths = self._outer_paths or self.paths
            self._outer_paths = saved

    def _unwrapped_call(
        self, name: str, words: tuple[Word, ...], cmd: Command, depth: int
    ) -> list[Effect]:
        given = None
        while is_wrapper(name) or name in WRAPPER_OPTIONS:
            words, given = (
                (self._given(name, words, cmd), name) if name != given else (words, given)
            )
            if is_wrapper(name):
                inner = self._program(name, words, depth)
                if inner is None:
                    break
                if not inner:
                    return []
                name, words = posixpath.basename(inner[0].value or ""), inner[1:]
                continue
            if name in WRAPPER_RAISES:
                self._approve(f"{display(name, words)}: {WRAPPER_RAISES[name]}")
                self._runner(name, words, depth)  # npx -c SCRIPT, npx --registry URL CMD
            inner = self._wrapped(name, words, cmd, depth)
            if inner is None:
                break
            if not inner:
                name, words = "echo", ()
            elif inner[0].value is None:
                self._unknown(inner[0], inner[1:], depth)
                return []
            else:
                name, words = posixpath.basename(inner[0].value), inner[1:]
        words = self._given(name, words, cmd) if name != given else words
        values = rules.canonical_options(name, tuple(w.value for w in words))
        call = Call(name, values, display(name, words), self.paths)
        if any(SECRET_VARIABLE.search(w.raw) for w in words):
            self._approve(f"{call.display}: uses a variable that looks like a secret")
        if name in DECLARATIONS or name in SETS_A_VARIABLE:
            self._declared(name, call, words, cmd, depth)
        if name in SHELLS:
            return [self._shell(call, words, cmd, depth)]
        if name == "eval":
            if all(w.value is not None for w in words):
                self._nested(" ".join(w.value or "" for w in words), depth, call.display)
            else:
                self._approve(f"{call.display}: evaluates text that expands at run time")
            self._fetched(call, words)
            return [Effect(call, "shell")]
        if name == "find":
            return [Effect(call, "paths", "\n".join(self._find(call, words, cmd, depth)))]
        self._runner(name, words, depth)
        reads = name in ("su", "runuser") and self._switched_user(call, depth)
        if rules.family(name) in INTERPRETERS or name in ("source", ".", "su", "runuser"):
            self._fetched(call, words)
        if name in ("source", ".") and words and self._sourced(call, words[0], cmd, depth):
            return [Effect(call, "program-stdin")]
        effect = self._classify(call, cmd)
        return [self._input_script(call, cmd, depth) if reads else effect]

    def _program(self, name: str, words: tuple[Word, ...], depth: int) -> tuple[Word, ...] | None:
        """A program that runs others (:mod:`._wrappers`): judge the scripts it runs; the
        command it executes (``()``: one that is not a literal word, already judged)."""
        unwrapped = unwrap(name, tuple(w.value for w in words))
        if unwrapped is None:  # this line of it runs nothing (``split -l 10 f``)
            return None
        shown = display(name, words)
        if unwrapped.why:
            self._approve(f"{shown}: {unwrapped.why}")
        for directory in unwrapped.directories:
            self._child_cd(directory)
        for code in unwrapped.scripts:
            self._nested(code, depth, shown)
        starts = [" ".join(w.raw for w in words[i:]) for i in unwrapped.may_start]
        self._evidence(starts, depth, f"{shown}: where the command it runs may start")
        if unwrapped.program is not None and unwrapped.argv is not None:
            program = Word(shlex.quote(unwrapped.program), unwrapped.program)
            return (program, *words[unwrapped.argv :])
        if unwrapped.argv is None:
            return None
        if words[unwrapped.argv].value is None:
            self._unknown(words[unwrapped.argv], words[unwrapped.argv + 1 :], depth)
            return ()
        return words[unwrapped.argv :]

    def _sourced(self, call: Call, word: Word, cmd: Command, depth: int) -> bool:
        """``source <(...)`` or ``. /dev/stdin``: judge the code; whether it reads its input."""
        if word.raw.startswith("<("):
            self._substituted_script(call, word, depth)
        self._written_script(call, word.value, depth)
        if word.value not in STDIN_FILES:
            return False
        self._approve(f"{call.display}: runs a script read from its input")
        for fed in fed_words(cmd):
            self._script_word(call, fed, depth)
        return True

    def _wrapped(
        self, name: str, words: tuple[Word, ...], cmd: Command, depth: int
    ) -> tuple[Word, ...] | None:
        """The command a wrapper runs (``()``: xargs' default ``echo``); ``None``: it runs none."""
        if name not in GRAMMARS:
            return self._wrapped_loosely(name, words)
        if name == "env":
            words = split_string(words)
        wrapped = read_wrapper(name, [w.value for w in words])
        if wrapped.options.problem is not None:
            self._misread_wrapper(name, words, wrapped.options.problem, depth)
        if not wrapped.runs:
            return None
        for directory in wrapped.options.values({"env": "C", "sudo": "D"}.get(name, "")):
            self._child_cd(directory)
        if name == "sudo" and wrapped.options.given("i"):  # a login shell, in the user's home
            self._child_cd(self._login_home(wrapped.options.values("u")))
        self._wrapper_environment(name, words, wrapped, depth)
        self._wrapper_outputs(name, words, wrapped, depth)
        if name == "xargs":
            files = wrapped.options.values("a")
            return self._xargs(words, len(words) if wrapped.start is None else wrapped.start,
                               files, cmd)  # fmt: skip
        return words[wrapped.start :] if wrapped.start is not None else None

    def _wrapped_loosely(self, name: str, words: tuple[Word, ...]) -> tuple[Word, ...] | None:
        """The command of a launcher whose options are not getopt's (``npx``, ``uvx``,
        ``coproc``, ``busybox``): past the words that look like options."""
        takes_value = WRAPPER_OPTIONS[name].split()
        values = [w.value for w in words]
        index = 0
        while index < len(values) and is_option(values[index]):
            index += 1
            if values[index - 1] == "--":
                break
            index += (values[index - 1] or "") in takes_value
        if name == "coproc" and "{" in values[index : index + 2]:
            index = values.index("{", index) + 1
        return words[index:] if index < len(words) else None

    def _xargs(
        self, words: tuple[Word, ...], start: int, files: list[str | None], cmd: Command
    ) -> tuple[Word, ...]:
        """The command xargs runs, with the literal input it reads appended (``-I`` or not), or
        the paths a ``find`` before it may print; ``files``: the ``-a`` files it reads its
        arguments from."""
        for file in files:
            self._path(display("xargs", words), file, "read")
        found = [e.text for e in self._previous(cmd) if e.role == "paths"]
        supplied = " ".join(self._literal_input(cmd) + found).split()
        return words[start:] + tuple(Word(item, item) for item in supplied)

    # --- shells, find ------------------------------------------------------------------------

    def _shell(self, call: Call, words: tuple[Word, ...], cmd: Command, depth: int) -> Effect:
        values, index, letters, unusual = call.values, 0, "", []
        while index < len(values) and (values[index] or "").startswith(("-", "+")):
            value = values[index] or ""
            index += 1
            if value in ("-", "--"):
                index -= value == "-"
                break
            if value in ("--rcfile", "--init-file"):
                index += 1
            elif not value.startswith("--"):  # each o or O of a cluster takes the next word
                index += value[1:].count("o") + value[1:].count("O")
            if value.startswith("--") or set(value[1:]) - set("ceuxvs"):
                unusual.append(value)
            letters += value[1:] if not value.startswith("--") else ""
        rest = words[index:]
        if unusual:
            self._approve(f"{call.display}: starts a shell with {' '.join(unusual)}")
        if "c" in letters:
            reads = bool(rest) and self._script_word(call, rest[0], depth)
            if len(rest) > 1 and rest[0].value is not None:
                args = [w.value or "" for w in rest[1:]]
                positional = {str(i): arg for i, arg in enumerate(args)} | {"@": " ".join(args[1:])}
                reading = substitute(rest[0].value, positional)
                self._evidence([reading], depth, f"{call.display}: with its arguments in place")
            return self._input_script(call, cmd, depth) if reads else Effect(call, "shell")
        if rest and rest[0].raw.startswith("<("):
            self._substituted_script(call, rest[0], depth)
            return Effect(call, "shell")
        if rest and "s" not in letters and rest[0].value not in STDIN_FILES:
            self._fetched(call, rest[:1])
            self._secrets(call, set())  # bash ~/.ssh/id_rsa prints its lines in its errors
            self._written_script(call, rest[0].value, depth)
            self._approve(f"{call.display}: runs the script {rest[0].raw}")
            return Effect(call, "shell")
        inputs = [r.target for r in cmd.redirects if r.target and r.operator == "<"]
        self._fetched(call, tuple(inputs))
        fed = fed_words(cmd)
        for word in fed:
            if word.value is None:
                display = f"{call.display} {collapse(word.raw)[:40]}"
                self._approve(f"{display}: a script that expands at run time")
                self._fetched(call, (word,))
            self._nested(word.value if word.value is not None else word.raw, depth, call.display)
        if fed:
            return Effect(call, "shell")
        self._approve(f"{call.display}: runs a program read from its input")
        return Effect(call, "program-stdin")

    def _substituted_script(self, call: Call, word: Word, depth: int) -> None:
        """``sh <(echo CODE)``, ``. <(printf CODE)``: judge the code the substitution prints."""
        self._approve(f"{call.display}: runs a script a process substitution writes")
        self._fetched(call, (word,))
        for text in printed_by_substitution(word):
            self._nested(text, depth, call.display)

    def _script_word(self, call: Call, word: Word, depth: int) -> bool:
        if word.value is not None:
            return self._nested(word.value, depth, call.display)
        self._approve(f"{call.display}: runs a script that expands at run time")
        self._fetched(call, (word,))
        return False

    def _input_script(self, call: Call, cmd: Command, depth: int) -> Effect:
        """A command whose script runs a program read from its input (``bash -c bash``,
        ``su -c sh``): what it is fed, or what a pipeline prints into it, is that program."""
        for word in fed_words(cmd):
            self._script_word(call, word, depth)
        return Effect(call, "program-stdin")

    def _fetched(self, call: Call, words: tuple[Word, ...]) -> None:
        """Deny running code that a substitution in ``words`` downloads or decodes."""
        for command in (c for word in words for c in word.substitutions):
            name = posixpath.basename((command.name.value or "") if command.name else "")
            if name in DOWNLOADERS:
                self._deny(f"{call.display}: runs code downloaded by {name}")
            elif rules.decodes(name, tuple(w.value for w in command.args)):
                self._deny(f"{call.display}: runs data decoded by {name}")

    # --- one command -------------------------------------------------------------------------

    def _classify(self, call: Call, cmd: Command) -> Effect:
        checked = call
        if rules.family(call.name) in INTERPRETERS or rules.family(call.name) == "awk":
            stdin = tuple(w.value if w.value is not None else w.raw for w in fed_words(cmd))
            checked = Call(call.name, call.values + stdin, call.display, call.paths)
        for reason in rules.check_call(checked):
            self._deny(reason)
        targets = rules.write_targets(call)
        for target in targets:
            self._path(call.display, target, "write", makes_keys=call.name in KEY_MAKERS)
        self._extracted_into(call, targets)
        reads = rules.read_only_paths(call.name, call.values)
        if call.name not in NOT_READING or call.name in SSH_CLIENTS:
            self._secrets(call, {t for t in targets if t is not None} | not_files(call)
                          | quoted_patterns(call, cmd))  # fmt: skip
        family = rules.family(call.name)
        if family in INTERPRETERS or family == "awk":
            self._code(checked, cmd)
        if call.name == "make":
            self._makefile(call, cmd)
        if call.name in ("cd", "pushd", "popd"):
            operands = [v for v in call.values if v is None or not v.startswith("-") or v == "-"]
            self._cd(None if call.name == "popd" else operands[0] if operands else "~")
        if reads is None:
            self._approve(f"{call.display}: not on the read-only list")
        else:
            for path in reads:
                self._path(call.display, path, "list" if call.name in NOT_READING else "read")
                best = self.paths.best(path) if path and call.name in SEARCHERS else ""
                if best and rules.secret_directory(best, self.paths.home):
                    self._deny(f"{call.display}: searches {path}, which holds secrets")
            self.verdicts.append(Verdict.allow(f"{call.display}: read-only"))
        return self._effect(call, cmd)

    def _effect(self, call: Call, cmd: Command) -> Effect:
        name, values = rules.family(call.name), call.values
        if (effect := self._input_effect(call, cmd)) is not None:
            return effect
        if name in INTERPRETERS:
            opts = parse_options(values, frozenset({"-W", "-X", "-Q", "-I", "-M", "-r"}))
            code = not opts.flags.isdisjoint({"-c", "-m", "-e", "-E", "-r", "--eval", "-p"})
            stdin = not (code or [p for p in opts.positionals if p != "-"] or fed_words(cmd))
            return Effect(call, "program-stdin" if stdin else "other")
        if name in ("echo", "printf") and None not in values:
            return Effect(call, "text", printed_text(name, values))
        fed = fed_words(cmd)
        if shell_reads_its_input(name, values):  # echo CMD | su, su <<< CMD, sudo -s
            return self._input_script(call, cmd, 0)
        if name in ("at", "batch") and not {"-l", "-r", "-d", "-c", "-f"} & set(values):
            for word in fed:  # at now <<EOF ... EOF: the job is the heredoc
                self._script_word(call, word, 0)
            return Effect(call, "program-stdin")
        if name == "cat" and not values:
            return self._relayed(call, cmd)
        decodes = rules.decodes(name, values)
        role = "download" if name in DOWNLOADERS else "decode" if decodes else ""
        return Effect(call, role or ("network" if name in NETWORK else "other"))

    def _code(self, call: Call, cmd: Command) -> None:
        """Interpreter one-liners: judge the shell commands the code runs; deny a fork loop."""
        code = " ".join(v for v in call.values if v is not None)
        if rules.forks_without_bound(code):
            self._deny(f"{call.display}: forks in an endless loop (fork bomb)")
        for command in rules.code_commands(code):
            self._approve(f"{call.display}: runs the shell command {collapse(command)[:40]}")
            self._evidence([command], 1, f"{call.display}: its code runs `{command[:40]}`")
