"""Small readings of one command's words for the walk: what a test narrows, patterns that are
not files, the shell a command's output goes to, literal variables substituted."""

from __future__ import annotations

import itertools
import posixpath
import re
import shlex

from . import _rules as rules
from ._budget import TooComplex
from ._call import Call, Values, git_subcommand, parse_options
from ._env_string import split_env_string
from ._getopt import read_options
from ._parse import Command, Word, decode_escapes
from ._sed_arguments import read_sed_arguments
from ._wrapper_commands import GRAMMARS

__all__ = [
    "COPIERS",
    "EXPANDS",
    "INTERPRETERS",
    "SHELLS",
    "fed_words",
    "is_option",
    "narrowed_by",
    "not_files",
    "printed_by_substitution",
    "printed_text",
    "quoted_patterns",
    "shell_fed_by_output",
    "split_string",
    "substitute",
]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "csh", "tcsh",
                     "yash", "posh", "ksh93", "rbash"})  # fmt: skip
INTERPRETERS = frozenset({"python", "perl", "ruby", "php", "node", "lua"})
EXPANDS = re.compile(r"[{$~*?\[`]")
COPIERS = frozenset({"cp", "scp", "rsync", "tar", "zip", "7z", "7za", "rclone", "sftp"})
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "jq", "awk"})


_FIND_NAME_TESTS = frozenset({"-name", "-iname"})


def narrowed_by(tests: Values) -> str | None:
    """The ``-name`` pattern that every file ``find`` acts on must match, when the tests before
    the action are a conjunction holding one (``find ~ -name '*.pyc' -delete`` does not delete
    the home directory); ``None`` when they may match everything (``-o``, ``-name '*'``)."""
    if any(t in ("-o", "-or", ",", "!", "-not") or t is None for t in tests):
        return None
    for test, value in itertools.pairwise(tests):
        if test in _FIND_NAME_TESTS and value is not None and value.strip("*") not in ("", "."):
            pattern: str = value.lower() if test == "-iname" else value
            return pattern
    return None


def quoted_patterns(call: Call, cmd: Command) -> set[str]:
    """Values of quoted words with glob characters: a pattern the program is handed (``kubectl
    proxy --accept-hosts '.*'``), not files bash finds; a copier may glob them remotely."""
    if call.name in COPIERS:
        return set()
    return {
        w.value for w in cmd.args
        if w.value and w.raw[:1] in "'\"" and w.raw[-1:] == w.raw[:1] and EXPANDS.search(w.value)
    }  # fmt: skip


def not_files(call: Call) -> set[str]:
    """Values of ``call`` that are patterns, scripts or env files handed on, not files read."""
    values = call.values
    skipped: set[str] = set()
    if call.name in ("docker", "podman", "nerdctl"):
        opts = parse_options(values, frozenset({"--env-file"}))
        skipped.update(v for v in opts.valued.get("--env-file", []) if v is not None)
    name, rest = call.name, values
    if name == "git":
        subcommand, rest = git_subcommand(values)
        name = "grep" if subcommand == "grep" else ""
    if name == "sed":  # a script in one reading of its arguments may be a file in the other
        sed = read_sed_arguments(rest)
        skipped.update(s for s in sed.scripts if s is not None and s not in sed.files)
    if name in _EXCLUDING:
        skipped.update(_exclude_patterns(name, rest))
    if name in _PATTERN_FIRST:
        takes = frozenset({"-e", "--regexp", "-f", "--file", "-m", "-A", "-B", "-C", "-g", "-t",
                           "--arg", "--argjson", "--glob", "-T", "--type"})  # fmt: skip
        opts = parse_options(rest, takes)
        if opts.flags.isdisjoint({"-e", "--regexp", "-f", "--file"}) and opts.positionals:
            first = opts.positionals[0]
            skipped.update({first} if first is not None else set())
        skipped.update(v for k in ("-e", "--regexp") for v in opts.valued.get(k, []) if v)
    return skipped


_EXCLUDING = {"tar": ("--exclude", "--include"), "rsync": ("--exclude", "--include"),
              "zip": ("-x", "-i", "--exclude", "--include")}  # fmt: skip
"""Options whose values are patterns of files left out (or in), not files read."""


def _exclude_patterns(name: str, values: Values) -> set[str]:
    """``tar --exclude=.env``, ``rsync --exclude .env``, ``zip -r a.zip . -x .env``: the
    patterns, as the words they are. A pattern that is also an operand of its own is left in,
    since that word is read."""
    options = _EXCLUDING[name]
    patterns: list[str] = []
    words = [v for v in values if v is not None]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        option, eq, _ = word.partition("=")
        if eq and option in options:
            patterns.append(word)
        elif word in options:
            while index < len(words) and not words[index].startswith("-"):
                patterns.append(words[index])
                index += 1
                if name != "zip":  # zip's -x and -i take every word up to the next option
                    break
    attached = {p for p in patterns if p.startswith("-")}  # --exclude=PATTERN: one word
    return attached | {p for p in patterns if words.count(p) == 1}


def shell_fed_by_output(cmd: Command) -> str | None:
    """``exec > >(sh)``: the shell that the rest of the script's output is sent to."""
    if cmd.name is None or cmd.name.value != "exec":
        return None
    for redirect in cmd.redirects:
        target = redirect.target
        if ">" in redirect.operator and target is not None and target.raw.startswith(">("):
            for inner in target.substitutions:
                name = posixpath.basename(inner.name.value or "") if inner.name else ""
                if name in SHELLS or rules.family(name) in INTERPRETERS:
                    return f"exec > >({name})"
    return None


def fed_words(cmd: Command) -> list[Word]:
    """Heredoc and here-string text fed to ``cmd`` on its standard input."""
    fed = [r.body or (r.target if r.operator == "<<<" else None) for r in cmd.redirects]
    return [word for word in fed if word is not None]


def substitute(text: str, variables: dict[str, str]) -> str:
    """``text`` with ``$name``, ``${name}`` and ``"$name"`` of known ``variables`` in place."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        return shlex.quote(variables[name]) if name in variables else match.group(0)

    return re.sub(r'"?\$\{?([A-Za-z_]\w*|[0-9@*])\}?"?', value, text)


def is_option(value: str | None) -> bool:
    return value is not None and value.startswith("-") and value != "-"


_MAX_SPLITS = 64
"""More ``-S`` strings than this in one env line is too complex to prove (each is judged)."""


def split_string(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """``env -S 'cmd args'`` (``-iS``, ``--split=``...): env's arguments with each split string
    replaced by the words env splits it into (:mod:`._env_string`), as env re-reads them. A
    string that cannot be split here (it expands at run time, or uses ``${NAME}``) becomes one
    word that expands at run time, where the command would start."""
    for _ in range(_MAX_SPLITS):
        read = read_options(GRAMMARS["env"], [w.value for w in words])
        split = next((o for o in read.options if o.key == "S"), None)
        if split is None:
            return words
        cluster = words[split.word].value or ""
        before = cluster[: cluster.index("S")] if not cluster.startswith("--") else ""
        parts = split_env_string(split.value) if split.value is not None else "unknown"
        kept = (*words[: split.word], *([Word(before, before)] if len(before) > 1 else []))
        if isinstance(parts, str):
            return (*kept, Word(words[split.word].raw, None), *words[split.end :])
        words = (*kept, *(Word(shlex.quote(p), p) for p in parts), *words[split.end :])
    raise TooComplex(f"env with more than {_MAX_SPLITS} -S strings")


def printed_text(name: str, values: tuple[str | None, ...]) -> str:
    """What ``echo``/``printf`` with literal arguments print, near enough to re-parse."""
    words = [v or "" for v in values]
    flags = ""
    while name == "echo" and words and re.fullmatch(r"-[neE]+", words[0]):
        flags, words = flags + words[0], words[1:]
    if name == "echo":
        return decode_escapes(" ".join(words)) if "e" in flags else " ".join(words)
    return decode_escapes(" ".join(words[1:]) if words and "%" in words[0] else "".join(words[:1]))


def printed_by_substitution(word: Word) -> list[str]:
    """What the ``echo`` and ``printf`` commands with literal arguments in ``word``'s
    substitutions print (``<(echo CODE)``)."""
    printed = []
    for command in word.substitutions:
        name = posixpath.basename(command.name.value or "") if command.name else ""
        values = tuple(w.value for w in command.args)
        if name in ("echo", "printf") and None not in values:
            printed.append(printed_text(name, values))
    return printed
