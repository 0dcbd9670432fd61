"""What ``tar`` and ``unzip`` write, read as they read their command lines.

``cp -r x ~`` was denied as a write outside the workspace while ``tar -xf x.tar -C ~`` (the
same files planted in the same place) was judged only as a copy of ``~``, and
``tar -xf x.tar -C /root`` or ``unzip x.zip -d ~`` not at all. An extraction writes into its
directory (``-C``, ``--one-top-level``; ``-d`` for unzip; the working directory when none is
named), an archive being made or changed is written, and so are the files tar keeps beside it
(``--index-file``, ``-g`` snapshots). An extraction that may write anywhere (``tar -P``,
``unzip -:``) writes a path that is not known before it runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from ._getopt import ReadOptions, grammar, read_options

__all__ = ["TAR", "tar_old_style", "tar_written", "unzip_written"]

TAR = grammar(
    "ab:cdf:g:hijklmnoprstuvwxzABC:F:GH:I:JK:L:MN:OPRST:UV:WX:Z0123456789",
    "absolute-names/P acls add-file= after-date= anchored append/r atime-preserve=? "
    "auto-compress backup=? block-number blocking-factor= bzip2 catenate/A check-device "
    "check-links checkpoint-action= checkpoint=? clamp-mtime compare/d compress concatenate/A "
    "confirmation create/c delay-directory-restore delete dereference diff/d directory=/C "
    "exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-from= "
    "exclude-ignore-recursive= exclude-ignore= exclude-tag-all= exclude-tag-under= "
    "exclude-tag= exclude-vcs exclude-vcs-ignores exclude= extract/x file=/f files-from= "
    "force-local format= full-time get/x group-map= group= gunzip/z gzip/z hard-dereference "
    "help hole-detection= ignore-case ignore-command-error ignore-failed-read ignore-zeros "
    "incremental index-file= info-script=/F interactive keep-directory-symlink "
    "keep-newer-files keep-old-files label= level= list/t listed-incremental=/g lzip lzma "
    "lzop mode= mtime= multi-volume new-volume-script=/F newer-mtime= newer= no-acls "
    "no-anchored no-auto-compress no-check-device no-delay-directory-restore no-ignore-case "
    "no-ignore-command-error no-null no-overwrite-dir no-quote-chars= no-recursion "
    "no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from "
    "no-wildcards no-wildcards-match-slash no-xattrs null numeric-owner occurrence=? "
    "old-archive one-file-system one-top-level=? overwrite overwrite-dir owner-map= owner= "
    "pax-option= portability posix preserve-order preserve-permissions quote-chars= "
    "quoting-style= read-full-records record-size= recursion recursive-unlink remove-files "
    "restrict rmt-command= rsh-command= same-order same-owner same-permissions seek selinux "
    "show-defaults show-omitted-dirs show-snapshot-field-ranges show-stored-names "
    "show-transformed-names skip-old-files sort= sparse sparse-version= starting-file= "
    "strip-components= suffix= tape-length= test-label to-command= to-stdout/O totals=? touch "
    "transform= uncompress ungzip/z unlink-first unquote update/u usage "
    "use-compress-program=/I utc verbatim-files-from verbose/v verify version volno-file= "
    "warning= wildcards wildcards-match-slash xattrs xattrs-exclude= xattrs-include= xform= xz "
    "zstd",
)
"""GNU tar 1.34's options (argp: getopt's rules for clusters, values and abbreviations)."""

_TAR_CHANGES_ARCHIVE = ("c", "r", "u", "A", "delete")
"""Modes that write the ``-f`` archive: create, append, update, catenate, delete."""
_TAR_SIDE_FILES = ("g", "index-file", "volno-file")
"""Files tar writes beside its work: the ``-g`` snapshot, the ``--index-file`` listing (the
members' names, which the archive chooses), the volume number."""


def tar_old_style(values: Sequence[str | None]) -> list[str | None]:
    """``tar cvf A F`` as ``tar -c -v -f A F``: the letters of the first word, their values
    the words after it, in order."""
    first = values[0] if values else None
    if first is None or first.startswith("-"):
        return list(values)
    rest = list(values[1:])
    spelled: list[str | None] = []
    for letter in first:
        spelled.append(f"-{letter}")
        if TAR.short.get(letter) == "required" and rest:
            spelled.append(rest.pop(0))
    return spelled + rest


def tar_written(values: Sequence[str | None]) -> list[str | None]:
    """What ``tar`` writes (``None``: a place not known before it runs), its options read both
    ways when they follow operands: as argp permutes them, and as under ``POSIXLY_CORRECT``."""
    spelled = tar_old_style(values)
    written = _tar_written(read_options(TAR, spelled))
    in_order = _tar_written(read_options(replace(TAR, permute=False), spelled))
    unknown: list[str | None] = [None] if None in values else []  # tar $OPTS may say -C /root
    return written + [w for w in in_order + unknown if w not in written]


def _tar_written(read: ReadOptions) -> list[str | None]:
    written = [v for key in _TAR_SIDE_FILES for v in read.values(key)]
    if any(read.given(mode) for mode in _TAR_CHANGES_ARCHIVE):
        written += [archive for archive in read.values("f") if archive != "-"]
    if read.given("x") and not read.given("O"):
        written += _extracted_into(read)
    return written


def _extracted_into(read: ReadOptions) -> list[str | None]:
    """The directories an extraction writes into: each ``-C`` (relative to the one before it),
    ``--one-top-level`` inside it, else the working directory; anywhere with ``-P``."""
    directories: list[str | None] = []
    current: str | None = ""
    for option in read.options:
        if option.key == "C":
            value = option.value
            current = _within(current, value)
            directories.append(current)
        elif option.key == "one-top-level" and option.value:
            directories.append(_within(current, option.value))
    if not directories:
        directories.append(".")
    if read.given("P"):  # --absolute-names: members named /etc/... or ../.. are written there
        directories.append(None)
    return directories


def _within(directory: str | None, path: str | None) -> str | None:
    if directory is None or path is None:
        return None
    return posixpath.normpath(posixpath.join(directory, path))


_UNZIP_NOT_EXTRACTING = frozenset("lptvcZz")
"""unzip's modes that write no files: list, pipe, test, verbose list, to stdout, zipinfo,
comment."""
_UNZIP_VALUED = frozenset("PIO")
"""unzip's letters that take the rest of the word or the next word: the password, the
character sets (Debian's)."""


def unzip_written(values: Sequence[str | None]) -> list[str | None]:
    """The directories Info-ZIP unzip 6.0 extracts into: every ``-d`` (before the archive, or
    after it among the members: unzip reads it in either place; attached, as ``-dDIR``, or the
    next word, also at the end of a cluster, ``-qod DIR``), else the working directory; none
    in a listing, test or pipe mode; anywhere with ``-:`` (which lets members named ``../..``
    out) or when a word expands at run time. Read generously: a ``-d`` in a place unzip would
    not take it still counts."""
    letters: set[str] = set()
    for value in values:
        if value is None or not value.startswith("-") or value == "-":
            break
        letters.update(value[1:])
    if not letters.isdisjoint(_UNZIP_NOT_EXTRACTING) and "d" not in letters:
        return []
    directories: list[str | None] = []
    index = 0
    while index < len(values):
        value = values[index]
        index += 1
        if value is None or not value.startswith("-") or value.startswith("--"):
            continue
        for position, letter in enumerate(value[1:], start=2):
            if letter in _UNZIP_VALUED or letter == "d":
                attached = value[position:]
                taken = attached or (values[index] if index < len(values) else "")
                index += not attached
                if letter == "d" and taken != "":
                    directories.append(taken)
                break
    if not directories:
        directories.append(".")
    if ":" in letters or None in values:
        directories.append(None)
    return directories
