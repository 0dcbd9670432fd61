"""What the sandbox does to the writable workspace: protected paths read-only, secrets masked.

:func:`scan_workspace` walks the workspace once per command, bounded: it skips trees that hold
dependencies or caches (:data:`SKIPPED_DIRECTORIES`), never follows a symlinked directory, and
stops after :data:`SCAN_ENTRY_LIMIT` entries or :data:`MOUNT_LIMIT` paths found (the result
says so; what lies past the limit is neither protected nor masked, and the bash tool tells the
model). It finds

- every existing protected path (:func:`tether.gate.protected_workspace_rule`: ``.git/``,
  ``.vscode/``, ``.envrc``, ...), to be bound read-only;
- every workspace secret by the one list (:func:`tether.gate.secret_path_rule`: ``.env`` but
  not ``.env.example``, private keys but not certificates, credential stores), a symlink the
  path policy denies as a secret, and an ``.npmrc`` that holds a registry token, to be read as
  empty;
- the protected names absent from the workspace root, which get a *placeholder*: an empty
  directory, bound read-only, so the command cannot create them (an empty directory is invisible
  to ``git status`` and is not a valid ``HEAD``, ``.git`` or config). :class:`Placeholders`
  creates them before the command and removes them after the last command that uses them.

Below the root an absent protected name cannot be held in advance (a command may make any new
directory), so :func:`quarantine_planted` looks again when the command has ended: every
protected path that was not there before (``sub/.git``, ``sub/.envrc``, a ``HEAD`` that with
``objects/`` and ``refs/`` beside it makes ``sub`` a bare repository) is renamed in place to
``NAME`` + :data:`QUARANTINE_SUFFIX`, a name no program obeys. Nothing is deleted; the model is
told what was moved and that a person must create such files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from tether.gate import (
    CONDITIONAL_SECRET_NAMES,
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_ROOT_NAMES,
    PathPolicy,
    holds_credentials,
    protected_workspace_rule,
    secret_path_rule,
)

__all__ = [
    "MOUNT_LIMIT",
    "QUARANTINE_SUFFIX",
    "SCAN_ENTRY_LIMIT",
    "SKIPPED_DIRECTORIES",
    "Placeholders",
    "WorkspaceScan",
    "quarantine_planted",
    "scan_workspace",
]

SCAN_ENTRY_LIMIT = 20_000
"""Directory entries looked at per command before the scan stops."""
MOUNT_LIMIT = 2_000
"""Protected paths and secrets mounted over per command before the scan stops (each is a
``bwrap`` argument: thousands of them would overflow the command line and no command would
start)."""
SKIPPED_DIRECTORIES = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
     ".ruff_cache", ".pytest_cache", ".hg", ".svn", ".cache"}
)  # fmt: skip
"""Directory names not descended into (dependencies and caches; ``.git`` is protected whole)."""

ROOT_PLACEHOLDER_NAMES: tuple[str, ...] = (
    *PROTECTED_DIRECTORIES,
    *PROTECTED_FILES,
    *PROTECTED_ROOT_NAMES,
)


@dataclass
class WorkspaceScan:
    """What one scan found: absolute paths, in the order they were met."""

    read_only: list[str] = field(default_factory=list)
    """Where to mount read-only: each protected path, or the file a protected symlink names."""
    protected: list[str] = field(default_factory=list)
    """The protected paths themselves (a symlink as the link)."""
    secrets: list[str] = field(default_factory=list)
    absent_root_names: list[str] = field(default_factory=list)
    complete: bool = True
    """False when the scan stopped at :data:`SCAN_ENTRY_LIMIT` or :data:`MOUNT_LIMIT`."""


def scan_workspace(workspace: str, *, git_writable: bool = False) -> WorkspaceScan:
    """Scan ``workspace`` (an absolute, resolved directory). With ``git_writable`` the ``.git``
    directories (and a ``HEAD`` at the root) are left out of what must be read-only."""
    scan = WorkspaceScan()
    policy = PathPolicy(workspace)
    entries = 0
    for name in ROOT_PLACEHOLDER_NAMES:
        if git_writable and name in (".git", "HEAD"):
            continue
        if not os.path.lexists(os.path.join(workspace, name)):
            scan.absent_root_names.append(name)
    pending = [""]
    while pending:
        relative_dir = pending.pop()
        try:
            with os.scandir(os.path.join(workspace, relative_dir)) as listing:
                children = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        if relative_dir and _is_bare_repository(children):
            head = os.path.join(workspace, relative_dir, "HEAD")
            if not git_writable:
                scan.protected.append(head)
                scan.read_only += _mount_target(head)
        for entry in children:
            entries += 1
            if entries > SCAN_ENTRY_LIMIT or len(scan.read_only) + len(scan.secrets) >= MOUNT_LIMIT:
                scan.complete = False
                return scan
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            is_dir = entry.is_dir(follow_symlinks=False)
            if _is_secret(policy, relative, entry):
                scan.secrets += _mount_target(entry.path)
                continue
            rule = protected_workspace_rule(relative)
            if rule is not None and not (git_writable and _is_git_path(relative)):
                scan.protected.append(entry.path)
                scan.read_only += _mount_target(entry.path)
                scan.read_only += _git_dir_of_gitfile(workspace, entry.path)
                continue
            if is_dir and entry.name not in SKIPPED_DIRECTORIES:
                pending.append(relative)
    return scan


QUARANTINE_SUFFIX = ".tether-quarantined"
"""Appended to the name of a protected path a sandboxed command created."""


def quarantine_planted(
    workspace: str, before: WorkspaceScan, held: list[str], *, git_writable: bool = False
) -> list[tuple[str, str]]:
    """Rename each protected path in ``workspace`` that ``before`` did not find and that is not
    one of the ``held`` placeholders: ``(path, new path)`` for each, or ``(path, "")`` when
    it could not be renamed and was removed instead (fail-closed: it must not stay)."""
    known = {*before.protected, *held}
    after = scan_workspace(workspace, git_writable=git_writable)
    moved: list[tuple[str, str]] = []
    for path in after.protected:
        if path in known or not os.path.lexists(path):
            continue
        target = path + QUARANTINE_SUFFIX
        number = 1
        while os.path.lexists(target):
            number += 1
            target = f"{path}{QUARANTINE_SUFFIX}-{number}"
        try:
            os.rename(path, target)
        except OSError:
            _remove(path)
            target = ""
        moved.append((path, target))
    return moved


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _is_bare_repository(children: list[os.DirEntry[str]]) -> bool:
    """A directory git would take for a bare repository: ``HEAD`` beside ``objects/`` and
    ``refs/`` (``git status`` there obeys the ``config`` beside them)."""
    names = {entry.name: entry for entry in children}
    head, objects, refs = names.get("HEAD"), names.get("objects"), names.get("refs")
    return (
        head is not None
        and objects is not None
        and refs is not None
        and objects.is_dir()
        and refs.is_dir()
    )


def _mount_target(path: str) -> list[str]:
    """Where to mount over ``path``: itself, or for a symlink the file it points at (a mount
    follows the link anyway); nothing for a dangling link, which has nothing to read or
    protect — and whose missing target would otherwise stop ``bwrap`` from starting at all."""
    if not os.path.islink(path):
        return [path]
    target = os.path.realpath(path)
    return [target] if os.path.exists(target) else []


def _is_secret(policy: PathPolicy, relative: str, entry: os.DirEntry[str]) -> bool:
    """A secret by :func:`tether.gate.secret_path_rule` (the path policy's list), a symlink the
    path policy denies as one (it leads to a secret), or an ``.npmrc`` holding a token."""
    if secret_path_rule(relative) is not None:
        return True
    if entry.is_symlink() and _denied_as_secret(policy, entry.path):
        return True
    return entry.name in CONDITIONAL_SECRET_NAMES and _holds_credentials(entry.path)


def _denied_as_secret(policy: PathPolicy, path: str) -> bool:
    verdict = policy.check(path, "read")
    return verdict.decision == "deny" and any(r.startswith("secret") for r in verdict.reasons)


def _holds_credentials(path: str) -> bool:
    """A project's ``.npmrc`` is often committed for its settings (the path policy lets it be
    read); one that holds a registry token or password is masked like any secret."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return holds_credentials(file.read(65536))
    except OSError:
        return False


def _is_git_path(relative: str) -> bool:
    first = relative.split("/", 1)[0]
    return ".git" in relative.split("/") or (first == "HEAD" and "/" not in relative)


def _git_dir_of_gitfile(workspace: str, path: str) -> list[str]:
    """The directory a ``.git`` *file* (worktree, submodule) points at, when it is inside the
    workspace: git obeys its config and hooks just the same."""
    if os.path.basename(path) != ".git" or not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            first = file.readline(4096)
    except OSError:
        return []
    if not first.startswith("gitdir:"):
        return []
    target = os.path.realpath(os.path.join(os.path.dirname(path), first[7:].strip()))
    inside = os.path.commonpath((target, workspace)) == workspace
    return [target] if inside and os.path.isdir(target) else []


class Placeholders:
    """Empty directories that stand in for absent protected names while commands run.

    Counted per path across the commands of this process, so a command that ends does not
    remove the placeholder another one still relies on (removing a mount point in another
    mount namespace would detach the mount there). Removed only while still empty.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[str, int] = {}

    @contextlib.contextmanager
    def holding(self, paths: list[str]) -> Iterator[list[str]]:
        """Create each absent path as an empty directory for the duration; yields those that
        are placeholders now (a path that appeared meanwhile is left alone and not yielded)."""
        held: list[str] = []
        with self._lock:
            for path in paths:
                if self._users.get(path, 0) == 0:
                    try:
                        os.mkdir(path, 0o555)
                    except OSError:
                        continue
                self._users[path] = self._users.get(path, 0) + 1
                held.append(path)
        try:
            yield held
        finally:
            with self._lock:
                for path in held:
                    self._users[path] -= 1
                    if self._users[path] == 0:
                        del self._users[path]
                        with contextlib.suppress(OSError):
                            os.rmdir(path)


PLACEHOLDERS = Placeholders()
"""The process's placeholders (one registry, whichever sandbox object asks)."""
