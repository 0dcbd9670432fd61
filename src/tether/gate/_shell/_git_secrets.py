"""Committed secrets are secrets: no allowed git command prints one from the repository's store.

The path policy keeps ``git show HEAD:.env`` from being allowed, but a ``.env`` committed once
comes back through every command that prints content from history — ``git show``, ``log -p``,
``diff``, ``grep``, ``cat-file``, ``stash list -p`` — without its path in the arguments. So
before such a command is proved read-only, :func:`history_refusal` asks whether the repository
has *ever* tracked a path :func:`~._secret_paths.secret_path_rule` names (every ref, every
worktree's ``HEAD``, the reflogs, the stashes and the index: ``git rev-list --objects --all
--reflog --indexed-objects``), and refuses (``approve``) when it has. A blob named by its id
(``git show 3f2a…``, ``git cat-file -p :0:.env``) is refused in any repository: which file it
was cannot be told, and a blob that was staged and unstaged again is in no commit at all.

Cheap: the listing runs once per state of the refs — a fingerprint of the files under the git
directory that change when a ref, a reflog or the index does — and is cached; after the first
one, a listing walks only what the previous one's ref tips did not reach (``--not`` them: a
blob those reached was judged then, under its first path); a repository
that cannot be listed (git missing, too slow: :data:`LISTING_TIMEOUT`) counts as holding a
secret, and so does one whose listing takes longer than :data:`LISTING_WAIT` — while it goes on
in the background (the first history-reading commands in a huge repository need a person).
The listing covers what the refs and reflogs reach, nothing else: an object named by its id
that no ref reaches (a popped stash's commit, one ``git commit-tree`` made) or a pseudo-ref
(``FETCH_HEAD``, ``ORIG_HEAD``, ...) may hold a secret it never saw, so a revision argument that
reaches an object outside it is refused too (:func:`_unscanned_refusal`).
Commands that print no content (``status``, ``log --oneline``, ``ls-files``, ...) are never
refused; a log-like command is content unless every option it has is one that only
selects or formats commits (:data:`_NO_CONTENT_OPTIONS`).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeAlias

from .._secret_paths import CONDITIONAL_SECRET_NAMES, holds_credentials, secret_path_rule
from ._budget import off_the_clock
from ._git_neutral import GIT_NEUTRAL_ENVIRONMENT, GIT_NEUTRAL_OPTIONS
from ._git_options import SPECS

__all__ = ["LISTING_TIMEOUT", "LISTING_WAIT", "committed_secrets", "history_refusal"]

LISTING_TIMEOUT = 600.0
"""Seconds the listing of a repository's history may take before it counts as holding a secret
(until the refs change)."""
LISTING_WAIT = 2.0
"""Seconds a ``classify`` waits for a listing; past them the listing goes on in the background
and the command is ``approve`` ("history still being listed")."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LOG_LIKE = frozenset({"log", "show", "diff", "stash", "whatchanged", "reflog"})
_ALWAYS_CONTENT = frozenset({"grep", "cat-file"})
_NO_CONTENT_OPTIONS = _words(
    "--oneline --stat --shortstat --numstat --summary --name-only --name-status -s --no-patch "
    "--graph --decorate --no-decorate --all --abbrev-commit --no-abbrev-commit --reverse "
    "--first-parent --no-merges --merges --color --no-color --follow --tags --branches "
    "--remotes --count --simplify-by-decoration --boundary --left-right --cherry-pick "
    "--no-renames --find-renames -M --raw --root -z --quiet --exit-code -n --max-count --since "
    "--until --after --before --author --committer --grep --format --pretty --date --skip "
    "--abbrev --diff-filter --stat-width --relative -i --regexp-ignore-case -E -F --all-match "
    "--invert-grep --no-pager list --cached --staged"
)
"""Options of log-like commands that only select commits or format what is not file content
(``--stat`` names files, ``--format`` has no placeholder for content). Values follow them."""
_NO_CONTENT_PREFIXES = ("-n",)
"""(``-S``/``-G``, the pickaxe, print no content but search it: a yes or no per guess reads a
committed secret as surely as printing it.)"""
_INSTEAD_OF_PATCH = _words(
    "--stat --shortstat --numstat --summary --name-only --name-status -s --no-patch --raw --quiet"
)
"""What ``show`` and ``diff`` print in place of the patch they print by default."""
_GLOBAL_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace"})
_SEPARATE_VALUES = _words(
    "-n --max-count --since --until --after --before --author --committer --grep --format "
    "--pretty --date --skip --abbrev --diff-filter --stat-width -S -G"
)


_Fingerprint: TypeAlias = tuple[tuple[str, int, int, int], ...]


@dataclass(frozen=True, slots=True)
class _Listing:
    fingerprint: _Fingerprint
    secrets: tuple[str, ...]
    """Secret paths the repository has tracked, sorted; ``("(history not listed: …)",)`` when
    that cannot be told."""
    tips: bytes
    """The ref tips the listing started from (the next one excludes what they reach)."""


_CACHE: dict[str, _Listing] = {}
_JOBS: dict[str, _Job] = {}
_LOCK = threading.Lock()


def history_refusal(args: Sequence[str], workspace: str | None, *, local: bool) -> str | None:
    """Why the git command ``git ARGS``, run in ``workspace``, may print a committed secret, or
    ``None``. ``local``: the repository is on this machine (otherwise its history cannot be
    looked at, and every command that prints content is refused)."""
    subcommand, rest = _subcommand(args)
    if subcommand is None or not _prints_content(subcommand, rest):
        return None
    if subcommand == "grep" and {"--untracked", "--no-index"} & set(rest):
        return "git grep searches untracked files too, secrets among them"
    blob = _blob_operand(subcommand, rest)
    if blob is not None:
        return f"{blob} names a blob by its id, which may hold a secret no path shows"
    if not local:
        return "the repository's history is on another host and cannot be checked for secrets"
    if workspace is None:
        return "no workspace: the repository's history cannot be checked for secrets"
    found = committed_secrets(workspace)
    if not found:
        return _unscanned_refusal(subcommand, rest, workspace)
    if _unknown(found):
        return (
            f"the repository's history is not checked for committed secrets yet {found[0]}, "
            f"and git {subcommand} can print from it"
        )
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return (
        f"the repository has tracked {shown} (secret), which git {subcommand} can print from "
        "its history"
    )


def committed_secrets(workspace: str) -> tuple[str, ...]:
    """The secret paths the git repository at ``workspace`` (its ``.git``) has ever tracked,
    or why that cannot be told (then non-empty too); ``()`` when it is not a repository.

    A listing that is not done within :data:`LISTING_WAIT` goes on in the background, and until
    it is done the answer is that the history is still being listed (a secret, for the caller)."""
    git_dir = _git_dir(workspace)
    if git_dir is None:
        return ()
    fingerprint = _fingerprint(git_dir)
    with _LOCK:
        cached = _CACHE.get(git_dir)
        if cached is not None and cached.fingerprint == fingerprint:
            return cached.secrets
        job = _JOBS.get(git_dir)
        if job is None or job.done.is_set():
            job = _JOBS[git_dir] = _Job(git_dir, workspace, fingerprint, cached)
    with off_the_clock():
        finished = job.done.wait(LISTING_WAIT)
    if finished and job.fingerprint == fingerprint and job.listing is not None:
        return job.listing.secrets
    return ("(history still being listed)",)


class _Job:
    """One listing of a repository, in a thread of its own; its result goes to the cache."""

    def __init__(
        self, git_dir: str, workspace: str, fingerprint: _Fingerprint, previous: _Listing | None
    ) -> None:
        self.fingerprint = fingerprint
        self.listing: _Listing | None = None
        self.done = threading.Event()
        self._arguments = (git_dir, workspace, previous)
        threading.Thread(target=self._run, name="tether-git-secrets", daemon=True).start()

    def _run(self) -> None:
        git_dir, workspace, previous = self._arguments
        try:
            listing = replace(_list_secrets(workspace, previous), fingerprint=self.fingerprint)
        except Exception as error:  # a bug: the repository counts as holding a secret
            listing = _Listing(self.fingerprint, (f"(history not listed: {error!r})",), b"")
        with _LOCK:
            _CACHE[git_dir] = self.listing = listing
        self.done.set()


def _subcommand(args: Sequence[str]) -> tuple[str | None, list[str]]:
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _GLOBAL_VALUED else 1
    if index >= len(args):
        return None, []
    return args[index], list(args[index + 1 :])


def _prints_content(subcommand: str, rest: Sequence[str]) -> bool:
    if subcommand in _ALWAYS_CONTENT:
        return True
    if subcommand not in _LOG_LIKE:
        return False
    options: set[str] = set()
    for arg in rest:
        if arg == "--":
            break
        if not arg.startswith("-") or arg[1:].isdigit():
            continue
        option = arg.partition("=")[0]
        if option not in _NO_CONTENT_OPTIONS and not option.startswith(_NO_CONTENT_PREFIXES):
            return True
        options.add(option)
    return subcommand in ("show", "diff") and not options & _INSTEAD_OF_PATCH


def _blob_operand(subcommand: str, rest: Sequence[str]) -> str | None:
    """An operand of ``show``/``diff``/``cat-file`` that is a bare object id (or an index
    stage, ``:0:path``) naming a blob: its content is printed whatever its path was."""
    if subcommand not in ("show", "diff", "cat-file"):
        return None
    operands: list[str] = []
    skip_value = False
    for arg in rest:
        if arg == "--":
            break
        if skip_value:
            skip_value = False
            continue
        if arg.startswith("-"):
            skip_value = arg in _SEPARATE_VALUES
            continue
        operands.append(arg)
    for operand in operands:
        revision = operand.split("^", 1)[0].split("~", 1)[0]
        if _is_object_id(revision) or operand[:3] in (":0:", ":1:", ":2:", ":3:"):
            return operand
    return None


def _is_object_id(text: str) -> bool:
    return 4 <= len(text) <= 64 and all(c in "0123456789abcdefABCDEF" for c in text)


def _git_dir(workspace: str) -> str | None:
    """The workspace's own git directory (a ``.git`` directory, or where a ``.git`` file
    points): git is run with ``GIT_CEILING_DIRECTORIES`` at the workspace's parent."""
    dot_git = os.path.join(workspace, ".git")
    if os.path.isdir(dot_git):
        return os.path.realpath(dot_git)
    if not os.path.isfile(dot_git):
        return None
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as file:
            line = file.readline(4096).strip()
    except OSError:
        return dot_git  # unreadable: fingerprinted as itself, listed by git (which fails)
    if not line.startswith("gitdir:"):
        return dot_git
    return os.path.realpath(os.path.join(workspace, line[7:].strip()))


def _fingerprint(git_dir: str) -> _Fingerprint:
    """What changes whenever a ref, a reflog, the index or a worktree's ``HEAD`` does: the
    stat of each of those files (in the worktree's own and the common git directory)."""
    directories = [git_dir]
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as file:
            directories.append(os.path.realpath(os.path.join(git_dir, file.read().strip())))
    except OSError:
        pass
    found: list[tuple[str, int, int, int]] = []
    for directory in directories:
        for name in ("HEAD", "index", "packed-refs", "logs", "refs", "worktrees"):
            _stat_tree(os.path.join(directory, name), found)
    return tuple(found)


def _stat_tree(path: str, found: list[tuple[str, int, int, int]]) -> None:
    pending = [path]
    while pending:
        current = pending.pop()
        try:
            status = os.stat(current, follow_symlinks=False)
        except OSError:
            continue
        found.append((current, status.st_mtime_ns, status.st_size, status.st_ino))
        if os.path.isdir(current) and not os.path.islink(current):
            try:
                pending.extend(entry.path for entry in os.scandir(current))
            except OSError:
                continue


def _list_secrets(workspace: str, previous: _Listing | None) -> _Listing:
    """List what the refs reach now; after a ``previous`` listing only what its ref tips did
    not reach (what they reached was judged then, and a secret once tracked stays counted)."""
    environment = {**os.environ, **dict(GIT_NEUTRAL_ENVIRONMENT)}
    environment["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.normpath(workspace))
    known = previous if previous is not None and not _unknown(previous.secrets) else None
    try:
        tips = _git(workspace, environment, ["for-each-ref", "--format=%(objectname)"], b"")
        tips = b"\n".join(sorted(set(tips.split())))
        exclude = b"".join(b"^" + tip + b"\n" for tip in known.tips.split()) if known else b""
        listed = _git(
            workspace,
            environment,
            ["rev-list", "--objects", "--all", "--reflog", "--indexed-objects", "--stdin"],
            exclude,
        )
    except _ListingFailed as failed:
        if "does not have any commits" in str(failed):
            return _Listing((), (), b"")
        return _Listing((), (f"(history not listed: {failed})",), b"")
    found = _secrets_in(listed, workspace, environment)
    if known is not None:
        found.update(known.secrets)
    return _Listing((), tuple(sorted(found)), tips)


REACHABILITY_TIMEOUT = 5.0
"""Seconds the check that a command's revisions lie inside the listing may take (past them the
command is refused)."""


def _unscanned_refusal(subcommand: str, rest: Sequence[str], workspace: str) -> str | None:
    """Why a revision argument of ``rest`` may reach objects the listing did not cover (it lists
    what ``--all --reflog --indexed-objects`` reaches): git itself is asked which objects the
    arguments reach that those do not (``rev-list --objects ARGS --not --all ...``; an argument
    that is no revision, a path, is ignored as git ignores it). ``REV:PATH`` and ``REV^{...}``
    are asked about as ``REV``: what a reachable commit holds is inside the listing."""
    revisions = [
        revision
        for operand in _operands(subcommand, rest)
        for revision in map(_revision_part, _endpoints(operand))
        if revision is not None
    ]
    if not revisions or _git_dir(workspace) is None:  # no repository: git names nothing
        return None
    environment = {**os.environ, **dict(GIT_NEUTRAL_ENVIRONMENT)}
    environment["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.normpath(workspace))
    listed = ["--not", "--all", "--reflog", "--indexed-objects", "--not"]
    arguments = ["rev-list", "--objects", "--ignore-missing", *listed, "--end-of-options"]
    try:
        with off_the_clock():
            outside = _git(
                workspace, environment, [*arguments, *revisions], b"", timeout=REACHABILITY_TIMEOUT
            )
    except _ListingFailed as failed:
        shown = " ".join(revisions)
        return f"cannot tell whether {shown} lies inside the checked history ({failed})"
    if outside.strip():
        return (
            f"{' '.join(revisions)} reaches objects no ref or reflog does (an unreachable "
            "commit, FETCH_HEAD, ...), whose history is not checked for secrets"
        )
    return None


def _operands(subcommand: str, rest: Sequence[str]) -> list[str]:
    """The words of ``rest`` before ``--`` that are neither options nor their values, as the
    subcommand's table reads them (:data:`~._git_options.SPECS`), less ``grep``'s pattern:
    revisions and paths (asking git about a path is harmless: it is no revision)."""
    spec = SPECS.get(subcommand)
    valued = spec.valued.keys() if spec is not None else frozenset()
    operands: list[str] = []
    patterns_given = False
    words = iter(rest)
    for arg in words:
        if arg == "--":
            break
        if arg in ("-e", "-f"):
            patterns_given = True
        if arg in valued:
            next(words, None)
        elif not arg.startswith("-"):
            operands.append(arg)
    if subcommand == "grep" and not patterns_given:
        return operands[1:]
    return operands


def _endpoints(operand: str) -> list[str]:
    """Every revision ``operand`` names, each as one whose objects may be printed: both ends of
    ``A..B`` and ``A...B`` (``git diff A..B`` prints A's tree, which rev-list would subtract),
    ``A`` of ``^A``, ``A^!``, ``A^@`` and ``A^-`` (an empty end is ``HEAD``)."""
    if operand.startswith(":"):
        return [operand]
    revision = operand.removeprefix("^")
    for suffix in ("^!", "^@", "^-"):
        revision = revision.removesuffix(suffix)
    for dots in ("...", ".."):
        if dots in revision.partition(":")[0]:
            left, _, right = revision.partition(dots)
            return [left or "HEAD", right or "HEAD"]
    return [revision]


def _revision_part(operand: str) -> str | None:
    """The revision ``operand`` names its objects through: ``REV`` of ``REV:PATH`` and of
    ``REV^{tree}``; ``None`` for the index (``:PATH``, ``:0:PATH``) and ``:/TEXT`` (the newest
    reachable commit whose message matches), which the listing covers."""
    if operand.startswith(":"):
        return None
    revision = operand.partition(":")[0]
    while revision.endswith("}") and "^{" in revision:
        revision = revision[: revision.rindex("^{")]
    return revision or None


class _ListingFailed(Exception):
    pass


def _unknown(secrets: Sequence[str]) -> bool:
    return any(secret.startswith("(history ") for secret in secrets)


def _git(
    workspace: str,
    environment: dict[str, str],
    args: list[str],
    stdin: bytes,
    *,
    timeout: float = LISTING_TIMEOUT,
) -> bytes:
    try:
        done = subprocess.run(
            ["git", *GIT_NEUTRAL_OPTIONS, *args],
            cwd=workspace, env=environment, input=stdin, capture_output=True,
            timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise _ListingFailed(f"not within {timeout:g}s") from None
    except OSError as error:
        raise _ListingFailed(str(error.strerror or error)) from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _ListingFailed(f"git exited with {done.returncode}: {why[0] if why else ''}")
    return done.stdout


def _secrets_in(listed: bytes, workspace: str, environment: dict[str, str]) -> set[str]:
    """The secret paths among the ``rev-list --objects`` lines ``listed``."""
    paths: set[bytes] = set()
    conditional: dict[bytes, bytes] = {}
    for line in listed.splitlines():
        object_id, space, path = line.partition(b" ")
        if space and path:
            paths.add(path)
            if path.rpartition(b"/")[2].decode("utf-8", "replace") in CONDITIONAL_SECRET_NAMES:
                conditional[object_id] = path
        elif not _is_object_id(object_id.decode("ascii", "replace")):
            paths.add(line)  # the rest of a path with a newline in it
    secrets: set[str] = set()
    for raw in paths:
        text = raw.decode("utf-8", "surrogateescape")
        if secret_path_rule(text) is not None:
            secrets.add(text)
    secrets.update(_holding_credentials(workspace, environment, conditional))
    return secrets


def _holding_credentials(
    workspace: str, environment: dict[str, str], blobs: dict[bytes, bytes]
) -> set[str]:
    """The paths of ``blobs`` (committed ``.npmrc`` versions) whose content holds credentials;
    all of them when they cannot be read."""
    if not blobs:
        return set()
    shown = {path.decode("utf-8", "surrogateescape") for path in blobs.values()}
    try:
        output = _git(workspace, environment, ["cat-file", "--batch"], b"\n".join(blobs) + b"\n")
    except _ListingFailed:
        return shown
    found: set[str] = set()
    position = 0
    while position < len(output):
        header_end = output.find(b"\n", position)
        header = output[position:header_end].split()
        if header_end < 0 or len(header) != 3 or not header[2].isdigit():
            return shown
        size = int(header[2])
        body = output[header_end + 1 : header_end + 1 + size]
        if holds_credentials(body.decode("utf-8", "replace")) and header[0] in blobs:
            found.add(blobs[header[0]].decode("utf-8", "surrogateescape"))
        position = header_end + 1 + size + 1
    return found
