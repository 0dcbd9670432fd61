"""Files that filters and converters write where their command line says, read as each program
reads its options: ``uniq IN OUT``, ``shuf -o``, ``iconv -o``, ``split`` and ``csplit``'s
prefix, ``xxd IN OUT``, ``script FILE`` (and its logs), openssl's ``-out``, ``patch`` (the file
it patches, ``-o``, ``-r``, the directory ``-d`` names), and the directory ``git clone`` or
``git init`` makes.

Each writes content the command chooses: ``uniq evil.txt ~/.bashrc`` plants a startup file as
``cat evil.txt > ~/.bashrc`` does, and ``git clone URL /root/x`` writes outside the workspace
as ``cp -r x /root/x`` does — and each was ``approve``, which runs unasked in yolo mode, where
the plain spelling is denied.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ._call import GIT_GLOBAL_VALUED
from ._editors import EDITORS, edited_files
from ._getopt import Grammar, ReadOptions, grammar, read_options
from ._make_eval import make_writes
from ._path_rules import word_set
from ._sqlite import sqlite_writes

__all__ = [
    "GIT_READS_ONLY",
    "KEY_MAKERS",
    "OUTPUT_WRITERS",
    "SPLIT",
    "output_files",
]

Words = Sequence[str | None]

_UNIQ = grammar(
    "cdDf:is:uw:z",
    "all-repeated=? count/c repeated/d group=? ignore-case/i skip-fields=/f skip-chars=/s "
    "unique/u check-chars=/w zero-terminated/z help version",
    numeric=True,
)
_SHUF = grammar(
    "ei:n:o:rz",
    "echo/e input-range=/i head-count=/n output=/o random-source= repeat/r zero-terminated/z "
    "help version",
)
_ICONV = grammar("f:t:clo:s", "from-code=/f to-code=/t list/l output=/o silent/s verbose help "
                 "usage version")  # fmt: skip
_CSPLIT = grammar(
    "b:f:kn:sqz",
    "suffix-format=/b prefix=/f keep-files/k digits=/n quiet/q silent/s elide-empty-files/z "
    "suppress-matched help version",
)
SPLIT = grammar(
    "0123456789C:a:b:del:n:t:ux",
    "additional-suffix= bytes=/b line-bytes=/C elide-empty-files/e filter= lines=/l number=/n "
    "separator=/t unbuffered/u suffix-length=/a numeric-suffixes=?/d hex-suffixes=?/x verbose "
    "help version",
)
"""coreutils 9.1's split (``--filter=COMMAND`` runs a shell command: :mod:`._wrappers`)."""
_SCRIPT = grammar(
    "+aB:c:eE:fI:O:qm:T:t::Vh",
    "append/a command=/c echo=/E return/e flush/f force log-io=/B log-input=/I "
    "log-output=/O log-timing=/T logging-format=/m quiet/q timing=?/t version/V help/h",
)
_PATCH = grammar(
    "bB:cd:D:eEfF:g:i:lnNo:p:r:RstTuvV:xY:z:Z",
    "backup/b prefix=/B context/c directory=/d ifdef=/D ed/e remove-empty-files/E force/f "
    "fuzz=/F get=/g input=/i ignore-whitespace/l normal/n forward/N output=/o strip=/p "
    "reject-file=/r reverse/R quiet/s silent/s batch/t set-time/T unified/u version/v "
    "version-control=/V debug=/x basename-prefix=/Y suffix=/z set-utc/Z dry-run posix "
    "merge=? reject-format= read-only= follow-symlinks help binary no-backup-if-mismatch "
    "backup-if-mismatch verbose quoting-style=",
)
"""GNU patch 2.7: it refuses file names in a diff that are absolute or climb with ``..``, so
what it patches lies under ``-d DIR`` (or the working directory)."""


def _both_readings(spec: Grammar, values: Words, written: Callable[[ReadOptions, Words],
                   list[str | None]]) -> list[str | None]:  # fmt: skip
    """``written`` of the line read as getopt permutes it, and as under ``POSIXLY_CORRECT``."""
    found = written(read_options(spec, values), values)
    in_order = written(read_options(replace(spec, permute=False), values), values)
    return found + [w for w in in_order if w not in found]


def _operand(read: ReadOptions, values: Words, position: int) -> list[str | None]:
    return [values[read.operands[position]]] if len(read.operands) > position else []


def _uniq(read: ReadOptions, values: Words) -> list[str | None]:
    return _operand(read, values, 1)  # uniq [INPUT [OUTPUT]]


def _option_files(key: str) -> Callable[[ReadOptions, Words], list[str | None]]:
    return lambda read, _values: [v for v in read.values(key) if v != "-"]


def _csplit(read: ReadOptions, values: Words) -> list[str | None]:
    prefix = (read.values("f") or ["xx"])[-1]
    return [None if prefix is None else prefix + "00"]


def _split(read: ReadOptions, values: Words) -> list[str | None]:
    if read.given("filter"):  # each piece goes to the command, not to a file
        return []
    prefix = _operand(read, values, 1) or ["x"]
    suffix = (read.values("additional-suffix") or [""])[-1]
    if prefix[0] is None or suffix is None:
        return [None]
    return [prefix[0] + "aa" + suffix]


def _script(read: ReadOptions, values: Words) -> list[str | None]:
    logs = [v for key in ("B", "I", "O", "T") for v in read.values(key)]
    logs += [v for v in read.values("t") if v]
    named = _operand(read, values, 0)
    return named + logs if named or logs else ["typescript"]


def _patch(read: ReadOptions, values: Words) -> list[str | None]:
    if read.given("dry-run"):
        return []
    written = [v for key in ("o", "r") for v in read.values(key) if v != "-"]
    directory = (read.values("d") or ["."])[-1]
    patched = _operand(read, values, 0)  # patch [ORIGFILE [PATCHFILE]]
    if patched and directory is not None and patched[0] is not None:
        patched = [posixpath.join(directory, patched[0])]
    return written + (patched if patched else [directory])


_OPENSSL_OUTPUTS = frozenset({"-out", "--out", "-keyout", "--keyout"})


def _openssl(values: Words) -> list[str | None]:
    """openssl's ``-out FILE`` (``--out``, ``-out=FILE``) in any of its commands."""
    written: list[str | None] = []
    for index, value in enumerate(values):
        option, eq, attached = (value or "").partition("=")
        if option in _OPENSSL_OUTPUTS:
            following = values[index + 1] if index + 1 < len(values) else ""
            written.append(attached if eq else following)
    return [w for w in written if w != ""]


_XXD_VALUED = {"c": "ols", "g": "roupsize", "l": "en", "n": "ame", "o": "ffset", "s": "eek",
               "R": ""}  # fmt: skip
"""xxd's options that take a value, with the rest of their long spelling (``-cols 8``)."""


def _xxd(values: Words) -> list[str | None]:
    """``xxd [options] [INFILE [OUTFILE]]``: xxd reads its options by their first letter, with a
    value attached (``-c8``) or, after a spelled-out name (``-cols``), as the next word."""
    index = 0
    while index < len(values):
        word = values[index]
        if word is None:
            return [None]
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or word == "-":
            break
        spelled = word[1:] if word.startswith("--") else word
        rest = _XXD_VALUED.get(spelled[1:2])
        index += 1
        if rest is not None and (len(spelled) == 2 or spelled[2:].startswith(rest[:3] or "\0")):
            index += 1
    operands = values[index:]
    return [operands[1]] if len(operands) > 1 else []


_GIT_CLONE_VALUED = word_set(
    "-b --branch -o --origin -u --upload-pack --reference --reference-if-able --depth -c "
    "--config --separate-git-dir --template -j --jobs --filter --shallow-since "
    "--shallow-exclude --server-option --bundle-uri --ref-format"
)


def _git(values: Words) -> list[str | None]:
    """The directory ``git clone URL [DIR]`` or ``git init [DIR]`` makes (inside ``git -C``)."""
    base: str | None = ""
    index = 0
    while index < len(values) and (values[index] or "").startswith("-"):
        if values[index] == "-C" and index + 1 < len(values):
            following = values[index + 1]
            base = None if following is None or base is None else posixpath.join(base, following)
        index += 2 if values[index] in GIT_GLOBAL_VALUED else 1
    subcommand = values[index] if index < len(values) else None
    if subcommand not in ("clone", "init"):
        return _git_writes_elsewhere(values[:index], subcommand, values[index + 1 :])
    operands: list[str | None] = []
    rest = values[index + 1 :]
    position = 0
    while position < len(rest):
        word = rest[position]
        position += 1
        if word == "--":
            operands += rest[position:]
            break
        if word is not None and word.startswith("-"):
            position += "=" not in word and word in _GIT_CLONE_VALUED
            continue
        operands.append(word)
    directory: str | None
    if subcommand == "init":
        directory = operands[0] if operands else "."
    elif len(operands) > 1:
        directory = operands[1]
    elif operands and operands[0] is not None:
        name = posixpath.basename(operands[0].rstrip("/").removesuffix(".git"))
        directory = name.rpartition(":")[2] or "."
    else:
        directory = None
    if directory is None or base is None:
        return [None]
    return [posixpath.join(base, directory)]


def _zstd(values: Words) -> list[str | None]:
    """``zstd ... -o FILE`` (a separate word) and ``--output-dir-flat/-mirror DIR``."""
    written: list[str | None] = []
    for value, following in itertools.pairwise((*values, None)):
        option, eq, attached = (value or "").partition("=")
        if _cluster_ends_in_o(value) or (option.startswith("--output-dir-") and not eq):
            written.append(following)
        elif option.startswith("--output-dir-") and eq:
            written.append(attached)
    return [w for w in written if w != "-"]


def _cluster_ends_in_o(value: str | None) -> bool:
    """``-o``, or a cluster of single letters ending in it (``-do FILE``, ``-qdfo FILE``)."""
    return value is not None and re.fullmatch(r"-[a-zA-Z]*o", value) is not None


def _second_operand(values: Words) -> list[str | None]:
    """``lz4 IN OUT``, ``link FILE NAME``, ``lwp-download URL FILE``: the second operand."""
    operands = [v for v in values if v is None or not v.startswith("-") or v == "-"]
    return [operands[1]] if len(operands) > 1 and operands[1] != "-" else []


def _gpg(values: Words) -> list[str | None]:
    """gpg's ``-o FILE`` / ``-oFILE`` / ``--output FILE`` / ``--output=FILE`` (any prefix of
    ``--output`` from ``--out``, which gpg takes)."""
    written: list[str | None] = []
    for value, following in itertools.pairwise((*values, None)):
        option, eq, attached = (value or "").partition("=")
        if _cluster_ends_in_o(value) or (
            len(option) >= 5 and "--output".startswith(option) and not eq
        ):
            written.append(following)
        elif eq and len(option) >= 5 and "--output".startswith(option):
            written.append(attached)
        elif value is not None and re.fullmatch(r"-[a-zA-Z]*o.+", value) and value[1] != "-":
            written.append(value[value.index("o") + 1 :])
    return [w for w in written if w != "-"]


GIT_READS_ONLY = frozenset({"status", "diff", "log", "show", "ls-files", "grep", "blame"})
"""git subcommands that write nothing in the work tree (``--work-tree`` is only read)."""


def _git_writes_elsewhere(options: Words, subcommand: str | None, rest: Words) -> list[str | None]:
    """Where git writes outside its repository: the ``--work-tree`` of a command that changes
    files (``git --work-tree=/root checkout HEAD -- .bashrc``), the file ``git config -f FILE``
    edits, ``git apply --unsafe-paths`` (anywhere; inside ``--directory``), and what
    :func:`_git_made` names."""
    written = _git_made(subcommand, rest)
    for value, following in itertools.pairwise((*options, None)):
        option, eq, attached = (value or "").partition("=")
        if option == "--work-tree" and subcommand not in GIT_READS_ONLY:
            written.append(attached if eq else following)
    for value, following in itertools.pairwise((*rest, None)):
        option, eq, attached = (value or "").partition("=")
        edited = subcommand == "config" and option in ("-f", "--file")
        if edited or (subcommand == "apply" and option == "--directory"):
            written.append(attached if eq else following)
    if subcommand == "apply" and "--unsafe-paths" in rest:
        written.append(None)
    return written


_GIT_MAKERS = {"archive": ("-o", "--output"), "checkout-index": ("--prefix",)}
"""Options naming the file or the directory prefix a git command writes."""


def _git_made(subcommand: str | None, rest: Words) -> list[str | None]:
    """The file ``git archive -o FILE`` and ``git bundle create FILE`` write, the prefix
    ``git checkout-index --prefix=DIR/`` writes every file under, and the directory ``git
    worktree add DIR`` checks out into."""
    made: list[str | None] = []
    options = _GIT_MAKERS.get(subcommand or "", ())
    for value, following in itertools.pairwise((*rest, None)):
        option, eq, attached = (value or "").partition("=")
        if option in options:
            made.append(attached if eq else following)
        elif "-o" in options and option.startswith("-o") and len(option) > 2:
            made.append((value or "")[2:])
    prefixes = [m if m is None or m.endswith("/") else posixpath.dirname(m) or "." for m in made]
    made = prefixes if subcommand == "checkout-index" else made
    action = rest[0] if rest else None
    if (subcommand, action) in (("bundle", "create"), ("worktree", "add")):
        operands = _operands_after(rest[1:], frozenset({"-b", "-B", "--reason", "--version"}))
        made += operands[:1]
    return made


def _operands_after(words: Words, valued: frozenset[str]) -> list[str | None]:
    operands: list[str | None] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word is not None and word.startswith("-") and word != "-":
            skip = word in valued
        else:
            operands.append(word)
    return operands


_READ: dict[str, tuple[Grammar, Callable[[ReadOptions, Words], list[str | None]]]] = {
    "uniq": (_UNIQ, _uniq),
    "shuf": (_SHUF, _option_files("o")),
    "iconv": (_ICONV, _option_files("o")),
    "csplit": (_CSPLIT, _csplit),
    "split": (SPLIT, _split),
    "script": (_SCRIPT, _script),
    "patch": (_PATCH, _patch),
}
_OWN_READERS: dict[str, Callable[[Words], list[str | None]]] = {
    "openssl": _openssl,
    "xxd": _xxd,
    "git": _git,
    "zstd": _zstd,
    "lz4": _second_operand,
    "link": _second_operand,
    "lwp-download": _second_operand,
    "gpg": _gpg,
    "gpg2": _gpg,
    "sqlite3": sqlite_writes,
    "make": make_writes,
}
OUTPUT_WRITERS = frozenset(_READ) | frozenset(_OWN_READERS) | EDITORS
KEY_MAKERS = frozenset({"openssl", "gpg", "gpg2"})
"""Programs that create keys: a file they write named like a secret is a new key, not a leak."""


def output_files(name: str, values: Words) -> list[str | None]:
    """The files ``name`` (one of :data:`OUTPUT_WRITERS`) writes (``None``: one not known
    before it runs)."""
    if name in _OWN_READERS:
        return _OWN_READERS[name](values)
    if name in EDITORS:
        return edited_files(name, values)
    spec, written = _READ[name]
    return _both_readings(spec, values, written)
