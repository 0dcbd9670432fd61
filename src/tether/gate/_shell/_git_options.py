"""git's read-only subcommands, each with the options it may be spelled with and their values.

One option means different things to different subcommands: ``-S`` is a search string for
``log`` and a file of revisions for ``blame`` (``git blame -S/etc/shadow`` prints the file as
"bad graft data"), so every subcommand has its own table. An option's value has a kind:

- ``text``: any string (a search, an author, a date);
- ``count``: a number;
- ``format``: a pretty or ref format, refused when it holds a placeholder that runs gpg
  (``%G?``, ``%GG``, ``%GS``, ... and ``%(signature)``);
- ``file``: a file git reads (``blame --contents``, ``grep -f``), checked by the path policy;
- ``range``: ``log -L``'s ``START,END:FILE`` or ``:FUNC:FILE``, whose file git reads.

Options missing from a table (``--show-signature``, ``--output``, ``--ext-diff``,
``--textconv``, ``grep -O``, ``tag -v``, ``--no-index``, ``grep --recurse-submodules``, every
option that writes) and GNU-style
abbreviations of long options are refusals, never guesses. :func:`read_git` says which files
the command reads, or why it is not provably read-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["read_git"]

Kind: TypeAlias = Literal["text", "count", "format", "file", "range"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _kinds(kind: Kind, text: str) -> dict[str, Kind]:
    return dict.fromkeys(text.split(), kind)


@dataclass(frozen=True, slots=True)
class GitSpec:
    flags: frozenset[str]
    """Options without a value, spelled exactly."""
    valued: dict[str, Kind]
    """Options that take a value, attached (``--format=x``, ``-n5``) or as the next word."""
    optional: dict[str, Kind]
    """Long options whose value may only be attached (``--decorate[=short]``)."""
    clusters: bool = False
    """Short flags may be bundled (``-sb``): the subcommand uses git's parse-options."""


def _spec(
    flags: str,
    valued: dict[str, Kind] | None = None,
    optional: dict[str, Kind] | None = None,
    *,
    clusters: bool = False,
) -> GitSpec:
    return GitSpec(_words(flags), valued or {}, optional or {}, clusters)  # fmt: skip


_DIFF_FLAGS = (
    "-p --patch -s --no-patch --raw --patch-with-raw --patch-with-stat --shortstat --numstat "
    "--summary --name-only --name-status --compact-summary --no-color --color-words -w "
    "--ignore-all-space -b --ignore-space-change --ignore-space-at-eol --ignore-blank-lines "
    "--ignore-cr-at-eol --no-renames -M -C --find-copies-harder --minimal --patience "
    "--histogram --full-index --binary --no-prefix --check --exit-code --quiet -R -a --text "
    "--no-ext-diff --no-textconv -z --irreversible-delete -D --function-context -W "
    "--indent-heuristic --no-indent-heuristic --ita-invisible-in-index "
)
_DIFF_VALUED: dict[str, Kind] = {
    **_kinds("count", "-U --unified --inter-hunk-context --stat-width --stat-name-width "
             "--stat-count -l"),
    **_kinds("text", "--diff-filter -S -G --src-prefix --dst-prefix --anchored "
             "--diff-algorithm"),
    "-O": "file",
}  # fmt: skip
_DIFF_OPTIONAL: dict[str, Kind] = {
    **_kinds(
        "text",
        "--stat --dirstat --color --word-diff --relative --ignore-submodules "
        "--find-renames --find-copies --abbrev --submodule",
    ),
}
_LOG_FLAGS = (
    "--oneline --graph --decorate --all --abbrev-commit --no-abbrev-commit --reverse "
    "--first-parent --no-merges --merges --follow --left-right --cherry-pick --cherry-mark "
    "--cherry --boundary --simplify-by-decoration --root --topo-order --date-order "
    "--author-date-order --full-history --no-walk --source --use-mailmap --parents --children "
    "-i --regexp-ignore-case -E --extended-regexp -F --fixed-strings --all-match --invert-grep "
    "--no-notes --walk-reflogs -g --pretty --branches --tags --remotes --cc -c -m "
    "--dense --sparse --remove-empty --ancestry-path --show-pulls --no-decorate --count "
    "--relative-date --no-min-parents --no-max-parents --log-size --encoding=UTF-8 "
)
_LOG_VALUED: dict[str, Kind] = {
    **_kinds("count", "-n --max-count --skip --max-parents --min-parents"),
    **_kinds("text", "--since --until --after --before --author --committer --grep --date "
             "--glob --exclude --since-as-filter"),
    **_kinds("format", "--format"),
    "-L": "range",
}  # fmt: skip
_LOG_OPTIONAL: dict[str, Kind] = {
    **_kinds("format", "--pretty"),
    **_kinds("text", "--decorate --branches --tags --remotes --no-walk --abbrev"),
}


def _union(*parts: dict[str, Kind]) -> dict[str, Kind]:
    merged: dict[str, Kind] = {}
    for part in parts:
        merged.update(part)
    return merged


_HISTORY = _spec(_DIFF_FLAGS + _LOG_FLAGS, _union(_DIFF_VALUED, _LOG_VALUED),
                 _union(_DIFF_OPTIONAL, _LOG_OPTIONAL))  # fmt: skip
_REF_LISTING: dict[str, Kind] = {
    **_kinds("text", "--contains --no-contains --merged --no-merged --points-at --sort"),
    **_kinds("format", "--format"),
}

SPECS: dict[str, GitSpec] = {
    "status": _spec(
        "-s --short -b --branch --long -v -vv --verbose -u -uno -unormal -uall -z --no-column "
        "--ahead-behind --no-ahead-behind --renames --no-renames --show-stash --ignored -sb",
        {},
        _kinds("text", "--porcelain --untracked-files --ignored --column --ignore-submodules"),
        clusters=True,
    ),
    "diff": _spec(
        _DIFF_FLAGS + "--cached --staged --merge-base -1 -2 -3 --ours --theirs --base",
        _DIFF_VALUED,
        _DIFF_OPTIONAL,
    ),
    "log": _HISTORY,
    "show": _HISTORY,
    "rev-list": _spec(
        _LOG_FLAGS + "--objects --objects-edge --timestamp --quiet --header",
        _LOG_VALUED,
        _LOG_OPTIONAL,
    ),
    "shortlog": _spec(
        "-n --numbered -s --summary -e --email -c --committer " + _LOG_FLAGS,
        _union(_LOG_VALUED, _kinds("text", "--group")),
        _LOG_OPTIONAL,
        clusters=True,
    ),
    "blame": _spec(
        "-b --root --show-stats -l -t -s -n -f -p --porcelain --line-porcelain --incremental -c "
        "-e --show-email -w --show-name --show-number -M -C --reverse --first-parent "
        "--color-lines --color-by-age --no-progress --minimal",
        {
            **_kinds("text", "-L --date --ignore-rev --since"),
            **_kinds("file", "--contents --ignore-revs-file"),
        },
        _kinds("text", "--abbrev"),
        clusters=True,
    ),
    "grep": _spec(
        "-i --ignore-case -I -w --word-regexp -v --invert-match -n --line-number --column -l "
        "--files-with-matches --name-only -L --files-without-match -c --count -h -H "
        "--full-name -E --extended-regexp -G --basic-regexp -F --fixed-strings -P "
        "--perl-regexp -o --only-matching -q --quiet -z --null --no-color --break --heading "
        "-p --show-function -W --function-context --and --or --not ( ) --all-match --cached "
        "-a --text --no-exclude-standard",
        {
            **_kinds("text", "-e"),
            **_kinds("file", "-f"),
            **_kinds(
                "count",
                "-A -B -C --context --after-context --before-context --max-depth "
                "-m --max-count --threads",
            ),
        },
        _kinds("text", "--color"),
        clusters=True,
    ),
    "ls-files": _spec(
        "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u "
        "--unmerged -k --killed -z -t -v -f --full-name --recurse-submodules --error-unmatch "
        "--exclude-standard --directory --no-empty-directory --eol --deduplicate --sparse",
        {
            **_kinds("text", "-x --exclude --exclude-per-directory --with-tree"),
            **_kinds("file", "-X --exclude-from"),
            **_kinds("format", "--format"),
        },
        _kinds("text", "--abbrev"),
        clusters=True,
    ),
    "ls-tree": _spec(
        "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree",
        _kinds("format", "--format"),
        _kinds("text", "--abbrev"),
        clusters=True,
    ),
    "describe": _spec(
        "--tags --all --always --long --broken --contains --exact-match --first-parent",
        _kinds("text", "--match --exclude --candidates"),
        _kinds("text", "--abbrev --dirty"),
    ),
    "rev-parse": _spec(
        "--show-toplevel --git-dir --absolute-git-dir --is-inside-work-tree "
        "--is-inside-git-dir --is-bare-repository --is-shallow-repository --show-prefix "
        "--show-cdup --symbolic --symbolic-full-name --verify -q --quiet --all --branches "
        "--tags --remotes --show-superproject-working-tree --git-common-dir "
        "--show-object-format --abbrev-ref --short",
        _kinds("text", "--git-path"),
        _kinds("text", "--short --abbrev-ref"),
    ),
    "branch": _spec(
        "-a --all -r --remotes -l --list -v -vv --verbose --show-current --no-color --column "
        "--no-column -i --ignore-case --omit-empty --merged --no-merged --contains",
        _REF_LISTING,
        _kinds("text", "--color --abbrev"),
        clusters=True,
    ),
    "tag": _spec(
        "-l --list --column --no-column -i --ignore-case --omit-empty --merged --no-merged "
        "--contains",
        _REF_LISTING,
        _kinds("text", "--color"),
        clusters=True,
    ),
    "remote": _spec("-v --verbose"),
    "stash": _HISTORY,  # `git stash list` takes log's options
    "show-ref": _spec(
        "--heads --tags --head -d --dereference -s --verify -q --quiet --exists --branches",
        {},
        _kinds("text", "--hash --abbrev"),
    ),
    "merge-base": _spec("-a --all --octopus --independent --is-ancestor --fork-point"),
    "cat-file": _spec("-t -s -e -p"),
}
_NUMBERED = frozenset({"log", "show", "rev-list", "shortlog", "stash", "grep"})
"""``-20`` means ``-n 20`` (log) or ``-C 20`` (grep)."""
_SUBMODULE_SUMMARIES = frozenset({"", "short", "log"})
"""``--submodule`` values that name a submodule's commits, not print what they hold
(``--submodule=diff`` prints the submodule's patches, from a repository no listing checked)."""
_NAMED_FORMATS = _words("oneline short medium full fuller reference email raw mboxrd")


def _format_runs_gpg(value: str) -> bool:
    """A placeholder that verifies a signature (runs gpg): ``%G?``, ``%GG``, ... or
    ``%(signature...)`` in a ref format; ``%%`` is a literal percent sign."""
    index = 0
    while index < len(value):
        if value[index] != "%":
            index += 1
            continue
        following = value[index + 1 : index + 2]
        if following == "G" or value.startswith("(signature", index + 1):
            return True
        index += 2 if following == "%" else 1
    return False


def _value_refusal(subcommand: str, option: str, kind: Kind, value: str) -> str | None:
    where = f"git {subcommand} {option}"
    if kind == "count" and not re.fullmatch(r"-?\d+", value):
        return f"{where}: {value!r} is not a number"
    if kind == "format" and _format_runs_gpg(value):
        return f"{where}: a %G placeholder verifies signatures (runs gpg)"
    if option == "--submodule" and value not in _SUBMODULE_SUMMARIES:
        return f"{where}={value}: prints a submodule's content, another repository's history"
    return None


class _Reader:
    def __init__(self, subcommand: str, spec: GitSpec) -> None:
        self.subcommand = subcommand
        self.spec = spec
        self.flags: set[str] = set()
        self.files: list[str] = []

    def value(self, option: str, kind: Kind, value: str) -> str | None:
        refusal = _value_refusal(self.subcommand, option, kind, value)
        if refusal is not None:
            return refusal
        self.flags.add(option)
        if kind == "file":
            self.files.append(value)
        elif kind == "range" and ":" in value:  # -L 1,5:FILE shows the file's lines
            self.files.append(value.rpartition(":")[2])
        return None

    def option(self, arg: str, rest: list[str]) -> str | None:
        """Read one option (and its value from ``rest`` when it takes the next word)."""
        spec, unknown = (
            self.spec,
            f"git {self.subcommand} {arg}: not an option git is allowed unasked",
        )
        if arg in spec.valued and arg in spec.flags and rest and not rest[0].startswith("-"):
            return self.value(arg, spec.valued[arg], rest.pop(0))  # --contains [COMMIT]
        if arg in spec.flags or arg in spec.optional:
            self.flags.add(arg)
            return None
        option, eq, attached = arg.partition("=")
        if eq and option.startswith("--") and option in (spec.valued.keys() | spec.optional.keys()):
            kind = spec.valued.get(option) or spec.optional[option]
            return self.value(option, kind, attached)
        if arg in spec.valued:
            if not rest:
                return f"git {self.subcommand} {arg}: its value is missing"
            return self.value(arg, spec.valued[arg], rest.pop(0))
        if arg.startswith("--"):
            return unknown
        if self.subcommand in _NUMBERED and re.fullmatch(r"-\d+", arg):
            return None
        short = arg[:2]
        if short in spec.valued:  # -n5, -Sneedle, -L1,5:FILE
            return self.value(short, spec.valued[short], arg[2:])
        if short in ("-M", "-C", "-B") and short in spec.flags and arg[2:].isdigit():
            return None
        if spec.clusters and len(arg) > 2 and "-" + arg[1] in spec.flags:
            return self.option("-" + arg[1], rest) or self.option("-" + arg[2:], rest)
        return unknown


def read_git(args: list[str]) -> tuple[str, ...] | str:
    """The files a read-only git command reads (``REV:PATH`` kept as ``:PATH``), or why it is
    not provably read-only."""
    while args[:1] == ["--no-pager"]:
        args = args[1:]
    if args == ["--version"]:
        return ()
    if not args or args[0].startswith("-"):
        return "git: global options (-c, -C, --exec-path, -p, ...) are never allowed unasked"
    subcommand, rest = args[0], list(args[1:])
    spec = SPECS.get(subcommand)
    if spec is None:
        return f"git {subcommand}: not a read-only subcommand"
    if subcommand == "stash":
        if rest[:1] != ["list"]:
            return "git stash: only `git stash list` is read-only (a bare `git stash` writes)"
        rest = rest[1:]
    reader = _Reader(subcommand, spec)
    operands: list[str] = []
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            operands.extend(rest)
            break
        if not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        refusal = reader.option(arg, rest)
        if refusal is not None:
            return refusal
    refusal = _subcommand_refusal(subcommand, reader.flags, operands)
    if refusal is not None:
        return refusal
    if subcommand == "grep" and not {"-e", "-f"} & reader.flags:
        operands = operands[1:]
    paths = list(reader.files)
    for operand in operands:
        revision, colon, path = operand.partition(":")
        paths.append(path if colon and path else operand if not colon else revision)
    return tuple(p for p in paths if p)


def _subcommand_refusal(subcommand: str, flags: set[str], operands: list[str]) -> str | None:
    listing = bool({"-l", "--list"} & flags)
    if subcommand in ("branch", "tag") and operands and not listing:
        return f"git {subcommand}: only listing is read-only"
    if subcommand == "remote" and operands:
        return "git remote: only `git remote -v` is read-only"
    if subcommand == "diff" and len(operands) >= 2 and any(_path_like(o) for o in operands):
        return "git diff of two paths compares files outside the repository (--no-index)"
    return None


def _path_like(operand: str) -> bool:
    return operand.startswith(("/", "~", "./", "../")) or operand == "/dev/null"
