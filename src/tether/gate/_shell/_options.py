"""The read-only commands ``allow`` may prove, each with the options it may be spelled with.

A :class:`CommandSpec` lists a command's allowed options exactly as the command accepts them:
short letters without a value, short letters that take one, long options without and with a
value. :func:`read_arguments` splits one command's literal arguments against its spec and says
which of them name files; anything it does not know — an unlisted option, a GNU abbreviation of
a long option (``--outp`` for ``--output``), a value where none is taken — is a refusal, never a
guess. Commands whose arguments need more than options and operands (``find``, ``git``, ``sed``,
``jq``, ``test``) have their own readers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from ._git_options import read_git
from ._sed_arguments import sed_printed_files
from ._versions import VERSIONED, version_refusal

__all__ = ["READERS", "Reading", "read_arguments"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Reading:
    """What one allowed command touches: ``files`` it reads, ``listed`` paths it only names."""

    files: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()
    searched: tuple[str, ...] = ()
    """Directories whose every file it may read (``grep -r``, ``rg``, ``diff -r``)."""
    skips_ignored: bool = False
    """The search skips hidden and git-ignored files (``rg`` without ``--hidden``)."""
    follows_links: bool = True
    """The search follows symlinks below the directories it searches (``grep -R``, ``ls -LR``;
    not ``rg`` or ``grep -r``, which follow only the ones named)."""
    only_globs: tuple[str, ...] = ()
    """The search reads only files one of these globs matches, hidden and ignored ones too
    (``rg -g '*.py'``); empty: no such restriction."""


Refusal: TypeAlias = str
"""Why a command is not provably read-only, as a person should read it."""
Operands: TypeAlias = Literal["files", "pattern", "text", "none", "one-file", "listed"]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    flags: str = ""
    """Short options without a value, as letters."""
    valued: str = ""
    """Short options that take a value."""
    longs: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    operands: Operands = "files"
    file_options: frozenset[str] = frozenset()
    """Options whose value is a file the command reads."""
    numeric: bool = False
    """``-20`` means ``-n 20`` (head, tail)."""
    default: tuple[str, ...] = ()
    """What the command reads when no file is named (``grep -r``, ``rg``: the directory)."""
    values: tuple[tuple[str, str], ...] = ()
    """Options whose value has a grammar: ``(option, regex the whole value must match)``
    (``grep -d`` takes ``read`` or ``skip``; ``recurse`` searches every file below)."""


def _spec(
    flags: str = "",
    valued: str = "",
    longs: str = "",
    long_valued: str = "",
    operands: Operands = "files",
    file_options: str = "",
    *,
    numeric: bool = False,
    default: tuple[str, ...] = (),
    values: tuple[tuple[str, str], ...] = (),
) -> CommandSpec:
    return CommandSpec(flags, valued, frozenset(longs.split()), frozenset(long_valued.split()),
                       operands, frozenset(file_options.split()), numeric, default,
                       values)  # fmt: skip


_GREP = _spec(
    "rRnivwxclLhHoqsEFGPaIzZUT",
    "ABCmed",
    "--recursive --dereference-recursive --line-number --ignore-case --invert-match "
    "--word-regexp --line-regexp --count --files-with-matches --files-without-match "
    "--no-filename --with-filename --only-matching --quiet --silent --no-messages "
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --text --null --null-data "
    "--color --colour --initial-tab --byte-offset --line-buffered --no-ignore-case",
    "--regexp --max-count --after-context --before-context --context --include --exclude "
    "--exclude-dir --color --colour --binary-files",
    operands="pattern",
    values=(
        ("-d", "read|rea|skip|ski|sk|s"),
        ("--color", "never|auto|always"),
        ("--colour", "never|auto|always"),
    ),
)
_LS = _spec(
    "aAlhRtrS1dFicuXvGngopQNxmBkLHsUZ",
    "wIT",
    "--all --almost-all --human-readable --recursive --reverse --directory --classify "
    "--inode --size --numeric-uid-gid --no-group --quote-name --literal --dereference "
    "--group-directories-first --color --si --full-time --author --escape --hide-control-chars "
    "--show-control-chars --context",
    "--color --sort --time --time-style --format --ignore --hide --width --indicator-style "
    "--quoting-style --block-size",
    operands="listed",
)
_HEAD = _spec("qvz", "nc", "--quiet --silent --verbose --zero-terminated", "--lines --bytes",
              numeric=True)  # fmt: skip
_TAIL = _spec(
    "qvzfF",
    "ncs",
    "--quiet --silent --verbose --zero-terminated --follow --retry",
    "--lines --bytes --sleep-interval --max-unchanged-stats",
    numeric=True,
)
_SUMS = _spec("btz", "", "--binary --text --tag --zero")
_RG = _spec(
    "nNiSswvclFxoqHIapU0",
    "gtTeABCmMrEj",
    "--line-number --no-line-number --ignore-case --smart-case --case-sensitive --word-regexp "
    "--invert-match --count --count-matches --files-with-matches --files-without-match "
    "--fixed-strings --line-regexp --only-matching --quiet --with-filename "
    "--no-filename --files --type-list "
    "--vimgrep --heading --no-heading --column --no-column --json --stats --trim --null "
    "--multiline --multiline-dotall --pcre2 --no-messages --sort-files --byte-offset "
    "--passthru --glob-case-insensitive --text --color --line-buffered --no-config",
    "--glob --iglob --type --type-not --regexp --after-context --before-context --context "
    "--max-count --max-columns --replace --sort --sortr --color --max-depth --max-filesize "
    "--encoding --type-add --colors --threads --engine --path-separator",
    operands="pattern",
    default=(".",),
)

_READERS_BY_SPEC: dict[str, CommandSpec] = {
    "ls": _LS,
    "cat": _spec("nbsAETvetu", "", "--number --number-nonblank --squeeze-blank --show-all "
                 "--show-ends --show-tabs --show-nonprinting"),
    "tac": _spec("brs", "", "--before --regex", "--separator"),
    "nl": _spec("p", "bdfhilnsvw", "", "--body-numbering --number-width --number-format "
                "--number-separator --starting-line-number --line-increment"),
    "rev": _spec(),
    "wc": _spec("lwcmL", "", "--lines --words --bytes --chars --max-line-length"),
    "head": _HEAD,
    "tail": _TAIL,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "sort": _spec("nruhVfbgMsdiRcCz", "kt", "--numeric-sort --reverse --unique "
                  "--human-numeric-sort --version-sort --ignore-case --ignore-leading-blanks "
                  "--general-numeric-sort --month-sort --stable --dictionary-order --check "
                  "--random-sort --zero-terminated", "--key --field-separator"),
    "uniq": _spec("cduiDz", "fsw", "--count --repeated --unique --ignore-case --zero-terminated",
                  "--skip-fields --skip-chars --check-chars", operands="one-file"),
    "cut": _spec("sz", "dfcb", "--only-delimited --complement --zero-terminated",
                 "--delimiter --fields --characters --bytes --output-delimiter"),
    "tr": _spec("dscCt", "", "--delete --squeeze-repeats --complement --truncate-set1",
                operands="text"),
    "comm": _spec("123iz", "", "--check-order --nocheck-order --total --zero-terminated",
                  "--output-delimiter"),
    "diff": _spec("uqrNwbBiaytsdTlp", "UCW", "--brief --recursive --new-file --ignore-all-space "
                  "--ignore-space-change --ignore-blank-lines --ignore-case --text "
                  "--side-by-side --normal --minimal --strip-trailing-cr "
                  "--suppress-common-lines --report-identical-files --expand-tabs "
                  "--initial-tab --show-c-function --color --unified --context",
                  "--unified --context --width --color"),  # --unified[=N]: a value only with =
    "cmp": _spec("slb", "n", "--silent --quiet --verbose --print-bytes", "--bytes"),
    "md5sum": _SUMS, "sha1sum": _SUMS, "sha256sum": _SUMS, "sha512sum": _SUMS, "b2sum": _SUMS,
    "cksum": _spec(),
    "stat": _spec("fLt", "c", "--file-system --dereference --terse", "--format --printf"),
    "du": _spec("ahcksmbxlLS0", "d", "--all --human-readable --total --summarize "
                "--apparent-size --bytes --one-file-system --count-links --si", "--max-depth "
                "--block-size"),
    "df": _spec("ahiklPTH", "t", "--all --human-readable --inodes --local --portability "
                "--print-type --si --total", "--type --output --block-size"),
    "file": _spec("biLhkNz", "", "--brief --mime --mime-type --mime-encoding "
                  "--dereference --no-dereference --keep-going --no-pad --uncompress"),
    "tree": _spec("adflhsCFDpugiQNrtUvJx", "LIP", "--gitignore --noreport --dirsfirst "
                  "--du --prune --matchdirs --ignore-case", "--filelimit --sort --charset",
                  operands="listed"),
    "echo": _spec(operands="text"),
    "pwd": _spec("LP", operands="none"),
    "whoami": _spec(operands="none"),
    "id": _spec("ugGnrz", "", "--user --group --groups --name --real", operands="text"),
    "uname": _spec("asnrvmpio", "", "--all --kernel-name --nodename --kernel-release "
                   "--kernel-version --machine --processor --hardware-platform "
                   "--operating-system", operands="none"),
    "true": _spec(operands="text"),
    "false": _spec(operands="text"),
    "which": _spec("a", operands="text"),
    "basename": _spec("az", "s", "--multiple --zero", "--suffix", operands="text"),
    "dirname": _spec("z", "", "--zero", operands="text"),
    "nproc": _spec("", "", "--all", "--ignore", operands="none"),
    "arch": _spec(operands="none"),
    "tty": _spec("s", "", "--silent --quiet", operands="none"),
    "groups": _spec(operands="text"),
    "seq": _spec("w", "sf", "--equal-width", "--separator --format", operands="text"),
    "sleep": _spec(operands="text"),
    "hostname": _spec(operands="none"),
    "printf": _spec(operands="text"),
    # -I[FMT] takes its value only attached, and an operand not starting with + sets the clock
    "date": _spec("uR", "d", "--utc --universal --rfc-email --iso-8601",
                  "--date --iso-8601 --rfc-3339", operands="text"),
    "realpath": _spec("emsqPLz", "", "--canonicalize-existing --canonicalize-missing "
                      "--no-symlinks --strip --quiet --logical --physical --zero",
                      operands="listed"),
    "readlink": _spec("femnqsvz", "", "--canonicalize --canonicalize-existing "
                      "--canonicalize-missing --no-newline --quiet --silent --verbose --zero",
                      operands="listed"),
}  # fmt: skip

Read: TypeAlias = Callable[[list[str]], "Reading | Refusal"]


def read_arguments(name: str, args: list[str]) -> Reading | Refusal:
    """What the read-only command ``name`` reads, or why it is not provably read-only."""
    reader = READERS.get(name)
    if reader is None:
        return f"{name} is not on the read-only list"
    return reader(args)


def _with_spec(name: str, spec: CommandSpec) -> Read:
    return lambda args: _read_with_spec(name, spec, args)


def _read_with_spec(name: str, spec: CommandSpec, args: list[str]) -> Reading | Refusal:
    operands: list[str] = []
    files: list[str] = []
    seen: dict[str, list[str]] = {}
    """Every option given (``-x`` for a letter), with the values it was given."""
    grammar = dict(spec.values)
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            operands.extend(args[index:])
            break
        if arg == "-" or not arg.startswith("-") or name == "echo":
            operands.append(arg)
            continue
        if spec.numeric and re.fullmatch(r"-\d+", arg):
            continue
        given: list[tuple[str, str | None]] = []
        if arg.startswith("--"):
            option, eq, value = arg.partition("=")
            if option in spec.long_valued and (eq or option not in spec.longs):
                if not eq:
                    if index >= len(args):
                        return f"{name} {option}: its value is missing"
                    value, index = args[index], index + 1
                given.append((option, value))
            elif option in spec.longs and not eq:
                given.append((option, None))
            else:
                return f"{name} {option}: not an option {name} is allowed unasked"
        else:
            for position, letter in enumerate(arg[1:], start=1):
                if letter in spec.valued:
                    value = arg[position + 1 :]
                    if not value:
                        if index >= len(args):
                            return f"{name} -{letter}: its value is missing"
                        value, index = args[index], index + 1
                    given.append(("-" + letter, value))
                    break
                if letter not in spec.flags:
                    return f"{name} -{letter}: not an option {name} is allowed unasked"
                given.append(("-" + letter, None))
        for option, given_value in given:
            pattern = grammar.get(option)
            if given_value is None:
                seen.setdefault(option, [])
                continue
            if pattern is not None and not re.fullmatch(pattern, given_value):
                return f"{name} {option} {given_value}: not a value {name} is allowed unasked"
            if option in spec.file_options:
                files.append(given_value)
            seen.setdefault(option, []).append(given_value)
    return _operands_read(name, spec, operands, files, seen)


def _operands_read(
    name: str, spec: CommandSpec, operands: list[str], files: list[str], seen: dict[str, list[str]]
) -> Reading | Refusal:
    """What the operands name, once the options are read: files, listings, searched trees."""
    if name == "date" and any(not operand.startswith("+") for operand in operands):
        return "date MMDDhhmm: an operand that is not a +FORMAT sets the clock"
    if spec.operands == "text":
        return Reading(tuple(files))
    if spec.operands == "none":
        return Reading() if not operands else f"{name} takes no operands here"
    patterns_given = bool({"-e", "--regexp"} & seen.keys()) or (name == "rg" and "--files" in seen)
    if spec.operands == "pattern" and not patterns_given:
        if not operands:
            return f"{name}: no pattern"
        operands = operands[1:]
    if spec.operands == "one-file" and len(operands) > 1:
        return f"{name}: a second operand is a file it writes"
    named = [o for o in operands if o != "-"] or list(spec.default)
    recursive = bool(_RECURSION.get(name, frozenset()) & seen.keys())
    if name in ("grep", "egrep", "fgrep") and not operands and recursive:
        named = ["."]
    if spec.operands == "listed":
        listed = tuple(named or ["."])
        # Following symlinks while walking lists what lies outside the tree (ls -LR, tree -l).
        follows = _FOLLOWING[name] & seen.keys() if name in _FOLLOWING else set()
        if follows and (name != "ls" or recursive):
            return Reading(tuple(files), listed, listed)
        return Reading(tuple(files), listed)
    if name == "du" and {"-L", "--dereference"} & seen.keys():
        return Reading(tuple(files), tuple(named or ["."]), tuple(named or ["."]))
    # diff reads the files of directories it compares even without -r (diff -N . src).
    searched = tuple(named) if name in ("rg", "diff") or recursive else ()
    if name != "rg":
        dereferences = bool({"-R", "--dereference-recursive"} & seen.keys())
        return Reading(
            tuple(files + named), (), searched, follows_links=name == "diff" or dereferences
        )
    globs = _rg_globs(seen)
    return Reading(tuple(files + named), (), searched, skips_ignored=globs is None,
                   follows_links=False, only_globs=globs or ())  # fmt: skip


_RECURSION = {
    **dict.fromkeys(("grep", "egrep", "fgrep"), frozenset(
        {"-r", "-R", "--recursive", "--dereference-recursive"})),
    "ls": frozenset({"-R", "--recursive"}),
}  # fmt: skip
_FOLLOWING = {"ls": frozenset({"-L", "--dereference"}), "tree": frozenset({"-l"})}


def _rg_globs(seen: dict[str, list[str]]) -> tuple[str, ...] | None:
    """ripgrep searches the hidden and ignored files a positive glob or a selected type
    matches (``-g '*env'``, ``--type-add 'x:*env' -tx``): its overrides beat its hidden-file
    filter. ``None``: no override, the filter holds; else the positive globs, or ``()`` when
    what is searched cannot be told from them (a type, whose globs ripgrep keeps)."""
    globs = seen.get("-g", []) + seen.get("--glob", []) + seen.get("--iglob", [])
    positive = tuple(glob for glob in globs if not glob.startswith("!"))
    if {"-t", "--type", "--type-add"} & seen.keys():
        return ()
    return positive or None


# --- commands with their own grammar -------------------------------------------------------

_FIND_NULLARY = _words(
    "-print -print0 -ls -empty -true -false -prune -depth -xdev -mount -executable -readable "
    "-writable -nouser -nogroup -quit -not -a -o -and -or ! ( ) , -daystart -noleaf "
    "-ignore_readdir_race"
)
_FIND_UNARY = _words(
    "-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -type "
    "-xtype -maxdepth -mindepth -mtime -mmin -atime -amin -ctime -cmin -size -perm -user "
    "-group -uid -gid -links -inum -regextype -printf -used"
)
_FIND_FILE = frozenset({"-newer", "-anewer", "-cnewer", "-samefile"})


def _find(args: list[str]) -> Reading | Refusal:
    index = 0
    while index < len(args) and args[index] in ("-H", "-P"):
        index += 1
    roots: list[str] = []
    while index < len(args) and not args[index].startswith(("-", "(", "!", ")", ",")):
        roots.append(args[index])
        index += 1
    files: list[str] = []
    while index < len(args):
        primary = args[index]
        index += 1
        if primary in _FIND_NULLARY:
            continue
        if primary in _FIND_UNARY or primary in _FIND_FILE:
            if index >= len(args):
                return f"find {primary}: its value is missing"
            if primary in _FIND_FILE:
                files.append(args[index])
            index += 1
            continue
        return f"find {primary}: not a test find is allowed unasked"
    return Reading(tuple(files), tuple(roots or ["."]))


def _sed(args: list[str]) -> Reading | Refusal:
    printed = sed_printed_files(args)
    return printed if isinstance(printed, str) else Reading(printed)


_JQ_FLAGS = "rcSenasjMCR"
_JQ_LONGS = _words(
    "--raw-output --compact-output --sort-keys --exit-status --null-input --slurp "
    "--join-output --ascii-output --monochrome-output --color-output --raw-input --tab --seq "
    "--raw-output0"
)
# ``$ ENV`` and ``$# comment\nENV`` are ``$ENV`` to jq: any ``ENV`` word, or a ``$`` not followed
# by a name, is refused.
_JQ_UNSAFE_FILTER = re.compile(
    r"\benv\b|\bENV\b|\$(?![A-Za-z_])|\bimport\b|\binclude\b|modulemeta|\$__prog|input_|"
    r"get_search_list|\$__loc__"
)


def _jq(args: list[str]) -> Reading | Refusal:
    operands: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg in ("--arg", "--argjson"):
            if index + 2 > len(args):
                return f"jq {arg}: its values are missing"
            index += 2
        elif arg == "--indent" and index < len(args):
            index += 1
        elif arg in _JQ_LONGS or re.fullmatch(rf"-[{_JQ_FLAGS}]+", arg):
            continue
        elif arg.startswith("-") and arg != "-":
            return f"jq {arg}: not an option jq is allowed unasked"
        else:
            operands.append(arg)
    if not operands:
        return "jq: no filter"
    if _JQ_UNSAFE_FILTER.search(operands[0]):
        return "jq: a filter that reads the environment or modules"
    return Reading(tuple(o for o in operands[1:] if o != "-"))


_TEST_UNARY = _words("-e -f -d -s -r -w -x -L -h -z -n -b -c -p -S -g -u -k -O -G -N")


def _test(args: list[str], bracket: bool) -> Reading | Refusal:
    name = "[" if bracket else "test"
    if bracket:
        if not args or args[-1] != "]":
            return "[: no closing ]"
        args = args[:-1]
    listed: list[str] = []
    for index, arg in enumerate(args):
        if arg in ("-v", "-R", "-o") and index + 1 < len(args):
            return f"{name} {arg}: evaluates a name (array subscripts run code)"
        if arg in _TEST_UNARY and index + 1 < len(args) and arg not in ("-z", "-n"):
            listed.append(args[index + 1])
    return Reading((), tuple(listed))


def _command(args: list[str]) -> Reading | Refusal:
    if args[:1] in (["-v"], ["-V"]) and len(args) >= 2:
        return Reading()
    return "command: runs a command (only `command -v` is read-only)"


def _type(args: list[str]) -> Reading | Refusal:
    if all(not a.startswith("-") or a in ("-t", "-a", "-p", "-P", "-f") for a in args):
        return Reading()
    return "type: not an option type is allowed unasked"


def _version_of(name: str) -> Read:
    def read(args: list[str]) -> Reading | Refusal:
        if args not in (["--version"], ["-V"]):
            return "only --version is read-only"
        refusal = version_refusal(name)
        return refusal if refusal is not None else Reading()

    return read


READERS: dict[str, Read] = {
    **{name: _with_spec(name, spec) for name, spec in _READERS_BY_SPEC.items()},
    "find": _find,
    "sed": _sed,
    "jq": _jq,
    "test": lambda args: _test(args, bracket=False),
    "[": lambda args: _test(args, bracket=True),
    "command": _command,
    "type": _type,
    **{name: _version_of(name) for name in VERSIONED - {"git"}},
}


# --- git ---------------------------------------------------------------------------------------


def _git(args: list[str]) -> Reading | Refusal:
    files = read_git(args)
    return files if isinstance(files, str) else Reading(files)


READERS["git"] = _git
