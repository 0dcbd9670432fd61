"""Which bash commands run a git command that writes the repository.

The sandbox keeps ``.git`` read-only, so such a command fails there; instead its governance
sends it to a person (in every mode but ``yolo``), and once approved it runs with ``.git``
writable. Both sides ask :func:`git_write_reason` about the same command text, so ``.git`` is
writable exactly for the commands a person was asked about.

Lexical on purpose: a miss only means the command runs with ``.git`` read-only and fails (the
sandbox is the guard); a false alarm only means a person is asked. Words are split as the shell
splits them, a word the shell would run is read again as a script (``bash -c 'git commit'``,
``eval``, ``"$(git init)"``),
and ``git`` is found under any path or wrapper (``/usr/bin/git``, ``env git``, ``xargs git``).
"""

from __future__ import annotations

import os
import re
import shlex

__all__ = ["git_write_reason"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_READ_ONLY = _words(
    "status log diff show rev-parse ls-files blame grep describe shortlog ls-tree cat-file "
    "rev-list show-ref for-each-ref name-rev merge-base count-objects version whatchanged "
    "annotate show-branch help var check-ignore check-attr ls-remote"
)
_GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)
_BRANCH_TAG_WRITES = _words(
    "-d -D -m -M -c -C -f -a -s -u -e -F --delete --move --copy --force --set-upstream-to "
    "--unset-upstream --edit-description --track -t --no-track --create-reflog --annotate "
    "--sign --message --file --edit"
)
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"})
_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", "|&", ";;", "\n"})
_MAX_DEPTH = 4


def git_write_reason(command: str) -> str | None:
    """Why ``command`` needs a person as a git command that writes the repository (naming it),
    or ``None``."""
    return _scan(command, 0)


def _scan(text: str, depth: int) -> str | None:
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        words = list(lexer)
    except ValueError:
        found = re.search(r"\bgit\b", text)
        return "git in a script that does not split into words" if found else None
    for index, word in enumerate(words):
        if os.path.basename(word) == "git":
            reason = _judge(_until_separator(words[index + 1 :]))
            if reason is not None:
                return reason
        elif depth < _MAX_DEPTH and _is_script(word, words[index - 1] if index else ""):
            reason = _scan(word, depth + 1)
            if reason is not None:
                return reason
    return None


def _is_script(word: str, previous: str) -> bool:
    """A word the shell runs as a script: after ``-c`` or ``eval``, or holding a substitution."""
    if "$(" in word or "`" in word:
        return True
    return previous == "eval" or (previous.startswith("-") and previous.endswith("c"))


def _until_separator(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word in _SEPARATORS:
            return words[:index]
    return words


def _judge(arguments: list[str]) -> str | None:
    index = 0
    while index < len(arguments) and arguments[index].startswith("-"):
        option = arguments[index]
        if option in ("--version", "--help", "-h"):
            return None
        index += 2 if option in _GLOBAL_WITH_VALUE else 1
    if index >= len(arguments):
        return None
    subcommand, rest = arguments[index], arguments[index + 1 :]
    if _reads_only(subcommand, rest):
        return None
    return f"git {subcommand} may write the repository, which only a person may allow"


def _reads_only(subcommand: str, rest: list[str]) -> bool:
    if subcommand in _READ_ONLY:
        return True
    flags = {word.split("=", 1)[0] for word in rest if word.startswith("-")}
    operands = [word for word in rest if not word.startswith("-")]
    if subcommand in ("branch", "tag"):
        listing = not operands or not flags.isdisjoint({"-l", "--list"})
        return listing and flags.isdisjoint(_BRANCH_TAG_WRITES)
    if subcommand == "stash":
        return rest[:1] in (["list"], ["show"])
    if subcommand == "reflog":
        return rest[:1] in ([], ["list"], ["show"])
    if subcommand == "remote":
        return rest in ([], ["-v"], ["--verbose"])
    if subcommand == "config":
        return not _CONFIG_READS.isdisjoint(flags | set(operands[:1]))
    return False
