"""What git reads from the work tree, or from no repository at all, judged as the tree walk is.

``git diff``, ``git grep`` and ``git status -v`` print the tracked files of the work tree, and a
tracked file that is a hard link to ``~/.ssh/id_rsa`` (``ln -f ~/.ssh/id_rsa notes.txt``) prints
as the key though no path names it. ``cat notes.txt`` is denied by the path policy's inode
check and ``grep -r`` refuses a tree holding such a link; :func:`work_tree_refusal` applies the
same check (:func:`~.._secret_inodes.is_link_to_a_secret`) to every file git tracks — only when
a secret of the home has another name at all, so the common case costs one ``stat`` per secret.

Outside a repository ``git diff A B`` is ``diff --no-index``: it prints every file under two
directories, as ``diff -r`` does, and nothing of it is a repository's history. So git's content
commands are not allowed unasked where git finds no work tree (it runs with the ceiling at the
workspace's parent: :mod:`._git_neutral`).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence

from .._secret_inodes import is_link_to_a_secret, secrets_have_other_names
from ._budget import off_the_clock
from ._call import git_subcommand
from ._git_neutral import GIT_NEUTRAL_ENVIRONMENT, GIT_NEUTRAL_OPTIONS

__all__ = ["MAX_TRACKED_FILES", "work_tree_refusal"]

MAX_TRACKED_FILES = 200_000
"""Tracked files past which the work tree is not checked for hard links to secrets (when one
may exist, the command is refused)."""
_GIT_TIMEOUT = 5.0
_FRESH_SECONDS = 5.0
_SCANS: dict[tuple[str, str], tuple[float, tuple[int, int] | None, str | None]] = {}
"""The last scan of each work tree for links, by workspace and home: when, the index's stamp,
the refusal."""


def work_tree_refusal(
    args: Sequence[str], workspace: str | None, home: str | None, *, local: bool
) -> str | None:
    """Why ``git ARGS`` run in ``workspace`` may print a file of the work tree that is another
    name of a secret of ``home``, or files outside any repository; ``None`` when it cannot."""
    subcommand, rest = git_subcommand(tuple(args))
    if subcommand is None:
        return None
    words = [word for word in rest if word is not None]
    if not local:  # diff and grep are refused for another host's history already
        if subcommand == "status" and _reads_work_tree(subcommand, words):
            return "git status -v prints the work tree of another host, not checked for secrets"
        return None
    if workspace is None:
        return None
    if _may_read_plain_files(subcommand, words, workspace) and not _inside_a_work_tree(workspace):
        return (
            f"not inside a git work tree: git {subcommand} may read the files themselves "
            "(as --no-index), every file under the directories it is given"
        )
    if home is None or not _reads_work_tree(subcommand, words):
        return None
    if not secrets_have_other_names(home):
        return None
    return _hard_link_among_tracked(workspace, home)


def _may_read_plain_files(subcommand: str, rest: Sequence[str], workspace: str) -> bool:
    """Whether, outside a repository, the command may read files: ``git grep`` (it does where a
    user's config sets ``grep.fallbackToNoIndex``), and ``git diff`` naming two paths that exist
    (then it is ``--no-index``; otherwise git fails before reading any: "Could not access", or
    its usage)."""
    if subcommand == "grep":
        return True
    if subcommand != "diff":
        return False
    words = [arg for arg in rest if arg == "-" or not arg.startswith("-")]
    existing = [
        word for word in words if word == "-" or os.path.lexists(os.path.join(workspace, word))
    ]
    return len(existing) >= 2


def _reads_work_tree(subcommand: str, rest: Sequence[str]) -> bool:
    """Whether the command may print a tracked file's content from the work tree."""
    if subcommand in ("diff", "grep"):
        return not {"--cached", "--staged"} & set(rest)
    if subcommand == "status":
        return any(arg in ("-v", "-vv", "--verbose") for arg in rest)
    return False


def _environment(workspace: str) -> dict[str, str]:
    environment = {**os.environ, **dict(GIT_NEUTRAL_ENVIRONMENT)}
    environment["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.normpath(workspace))
    return environment


def _run_git(workspace: str, args: list[str]) -> subprocess.CompletedProcess[bytes] | None:
    """``git ARGS`` in ``workspace`` as an allowed command runs; ``None`` when it cannot run."""
    try:
        with off_the_clock():
            return subprocess.run(
                ["git", *GIT_NEUTRAL_OPTIONS, *args],
                cwd=workspace, env=_environment(workspace), capture_output=True,
                timeout=_GIT_TIMEOUT, check=False,
            )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None


def _inside_a_work_tree(workspace: str) -> bool:
    done = _run_git(workspace, ["rev-parse", "--is-inside-work-tree"])
    return done is not None and done.returncode == 0 and done.stdout.strip() == b"true"


def _hard_link_among_tracked(workspace: str, home: str) -> str | None:
    """:func:`_scanned_for_links`, kept for a few seconds while the index is unchanged: the
    home's secrets are listed as often (:mod:`.._secret_inodes`), and a large work tree costs
    a ``stat`` a file."""
    index = _stamp(os.path.join(workspace, ".git", "index"))
    now = time.monotonic()
    cached = _SCANS.get((workspace, home))
    if cached is not None and now - cached[0] < _FRESH_SECONDS and cached[1] == index:
        return cached[2]
    refusal = _scanned_for_links(workspace, home)
    _SCANS[(workspace, home)] = (now, index, refusal)
    return refusal


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def _scanned_for_links(workspace: str, home: str) -> str | None:
    """The refusal for a tracked file that is a hard link to a secret of ``home`` (or for a
    work tree whose files cannot be listed or are too many to check)."""
    done = _run_git(workspace, ["ls-files", "-z", "--cached"])
    if done is None or done.returncode != 0:
        return "the tracked files cannot be listed to check them for hard links to secrets"
    names = [name for name in done.stdout.split(b"\0") if name]
    if len(names) > MAX_TRACKED_FILES:
        return f"more than {MAX_TRACKED_FILES} tracked files to check for hard links to secrets"
    root = os.fsencode(workspace)
    with off_the_clock():
        for name in dict.fromkeys(names):
            try:
                status = os.stat(os.path.join(root, name), follow_symlinks=False)
            except OSError:
                continue
            if status.st_nlink > 1 and is_link_to_a_secret(status, home):
                shown = name.decode("utf-8", "surrogateescape")
                return f"the tracked file {shown} is a hard link to a secret of the home"
    return None
