"""Path policy: may the agent read or write this path?

Every decision is made on the file the system will actually touch: ``~`` expanded, relative paths
joined to the workspace, ``..`` and symlinks resolved with ``realpath`` (which resolves the existing
prefix, so paths that do not exist yet are judged too). Containment is by path components:
``/work/project_evil`` is not inside ``/work/project``.

- Secrets (private keys, ``.env`` files, credential stores, ``/etc/shadow``, ``/proc/*/environ``)
  are denied for reading and writing, whether named directly or reached through a symlink.
- Reads inside the workspace are allowed; outside they need approval.
- Writes outside the workspace are denied, and so are writes inside it to files that run code or
  steer the agent later: shell start-up files, git hooks and git config, the agent's own
  configuration and any ``extra_protected`` path. The rest of what the bash sandbox keeps
  read-only (:mod:`._protected_paths`: all of ``.git/``, ``.envrc``, ``.vscode/``, ...) needs
  approval.

A path is judged under every reading a caller might give it (verbatim, and the way the file tools
read it: stripped, without a leading ``@``, ``~user`` expanded) and the strictest verdict wins.
Fail-closed: a NUL byte, an unknown access kind or a path that cannot be resolved is denied.
The policy cannot stop a file from changing between the check and the access.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal, TypeAlias

from tether.gate._protected_paths import protected_workspace_rule
from tether.gate._verdict import Verdict, strictest

__all__ = ["SECRET_SEARCH_GLOBS", "PathAccess", "PathPolicy"]

PathAccess: TypeAlias = Literal["read", "write"]

_PRIVATE_KEY_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}
)
_PRIVATE_KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx")
_SSH_NON_SECRETS = frozenset(
    {"config", "known_hosts", "known_hosts.old", "authorized_keys", "authorized_keys2"}
)
_ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template", "dist"})
_CREDENTIAL_FILES: tuple[tuple[str, ...], ...] = (
    (".aws", "credentials"),
    (".aws", "config"),
    (".netrc",),
    (".pgpass",),
    (".git-credentials",),
    (".docker", "config.json"),
    (".kube", "config"),
    (".config", "gh", "hosts.yml"),
    (".pypirc",),
)
_HOME_CREDENTIAL_FILES = (".npmrc",)
"""Only a secret in the home directory: projects commonly commit an ``.npmrc`` with settings."""
_CREDENTIAL_DIRS = frozenset({".gnupg", ".password-store"})
_SSH_DIR = ".ssh"
_SYSTEM_SECRETS = frozenset(
    {"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"}
)
_SYSTEM_SECRET_DIRS = ("/etc/sudoers.d",)
_PROC_SECRETS = frozenset({"environ", "mem"})
_SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
    }
)
_GIT_CONFIG_FILES = frozenset({"config", "config.worktree"})


def _secret_search_globs() -> tuple[str, ...]:
    names = [*sorted(_PRIVATE_KEY_NAMES), *(f"*{suffix}" for suffix in _PRIVATE_KEY_SUFFIXES)]
    names += [".env", ".env.*", _SSH_DIR, *sorted(_CREDENTIAL_DIRS)]
    for parts in _CREDENTIAL_FILES:
        names.append(parts[0] if len(parts) == 1 else "**/" + "/".join(parts))
    return tuple(names)


SECRET_SEARCH_GLOBS: tuple[str, ...] = _secret_search_globs()
"""What a search of a directory (grep) must never read, from this policy's own lists of
secrets: globs in ripgrep's syntax, to be matched case-insensitively, where one without a slash
names a file or a directory at any depth. Wider than the policy where a glob cannot be as
precise (``.env.*`` takes ``.env.example`` along, ``.ssh`` its ``known_hosts``); a search of one
file named explicitly is the policy's call."""


class PathPolicy:
    """Decides reads and writes of paths for one workspace.

    ``home`` defaults to the current user's home directory. ``agent_config_dirs`` replaces the
    default ``[<workspace>/.tether, ~/.tether]``; ``extra_protected`` adds paths (files or whole
    directories, relative to the workspace or absolute) that may never be written.
    """

    def __init__(
        self,
        workspace: str,
        *,
        home: str | None = None,
        extra_protected: Sequence[str] = (),
        agent_config_dirs: Sequence[str] = (),
    ) -> None:
        self._workspace = posixpath.normpath(posixpath.abspath(workspace))
        self._workspace_real = os.path.realpath(self._workspace)
        self._home = posixpath.normpath(
            posixpath.abspath(home if home is not None else os.path.expanduser("~"))
        )
        self._home_real = os.path.realpath(self._home)
        config_dirs = agent_config_dirs or (posixpath.join(self._workspace, ".tether"), "~/.tether")
        self._agent_config = tuple(self._absolute(d) for d in config_dirs)
        self._extra_protected = tuple(self._absolute(p) for p in extra_protected)

    @property
    def workspace(self) -> str:
        """The workspace as resolved once at construction (symlinks followed)."""
        return self._workspace_real

    def check(self, path: str, access: PathAccess) -> Verdict:
        """``allow``, ``approve`` or ``deny`` for one access, with reasons naming path and rule."""
        if access not in ("read", "write"):
            return Verdict.deny(f"unknown access kind {access!r} for {_printable(path)}")
        if "\x00" in path:
            return Verdict.deny(f"path contains a NUL byte: {path!r}")
        return strictest(self._check_absolute(p, access) for p in self._readings(path))

    def display_path(self, path: str) -> str:
        """``path`` as a person should see it: relative inside the workspace, ``~/…`` under the
        home directory, otherwise absolute. Lexical only: symlinks are not followed."""
        absolute = self._absolute(path)
        for root in (self._workspace, self._workspace_real):
            if _is_within(absolute, root):
                return posixpath.relpath(absolute, root)
        for root in (self._home, self._home_real):
            if root != "/" and _is_within(absolute, root):
                relative = posixpath.relpath(absolute, root)
                return "~" if relative == "." else f"~/{relative}"
        return absolute

    def _absolute(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            path = self._home + path[1:]
        return posixpath.normpath(posixpath.join(self._workspace, path))

    def _readings(self, path: str) -> list[str]:
        tool_form = path.strip()
        if tool_form.startswith("@"):
            tool_form = tool_form[1:]
        readings: list[str] = []
        for form in (path, tool_form):
            if form.startswith("~") and not (form == "~" or form.startswith("~/")):
                expanded = os.path.expanduser(form)
                if expanded != form:
                    readings.append(posixpath.normpath(expanded))
            readings.append(self._absolute(form))
        return list(dict.fromkeys(readings))

    def _check_absolute(self, lexical: str, access: PathAccess) -> Verdict:
        try:
            resolved = os.path.realpath(lexical)
        except (OSError, ValueError) as error:
            return Verdict.deny(f"cannot resolve {_printable(lexical)}: {error}")
        shown = self._describe(lexical, resolved)
        forms = (lexical,) if resolved == lexical else (lexical, resolved)
        for form in forms:
            rule = self._secret_rule(form)
            if rule is not None:
                return Verdict.deny(f"secret: {rule} — {shown}")
        inside = _is_within(resolved, self._workspace_real)
        if access == "read":
            if inside:
                return Verdict.allow(f"read inside the workspace — {shown}")
            return Verdict.approve(f"read outside the workspace — {shown}")
        if not inside:
            return Verdict.deny(f"write outside the workspace — {shown}")
        for form in forms:
            rule = self._protected_rule(form)
            if rule is not None:
                return Verdict.deny(f"protected: {rule} — {shown}")
        rule = self._control_file_rule(forms)
        if rule is not None:
            return Verdict.approve(f"protected: {rule} — {shown}")
        return Verdict.allow(f"write inside the workspace — {shown}")

    def _control_file_rule(self, forms: Sequence[str]) -> str | None:
        """The sandbox's protected paths (:mod:`._protected_paths`): changed only when asked."""
        for form in forms:
            for root in (self._workspace, self.workspace):
                if _is_within(form, root) and form != root:
                    rule = protected_workspace_rule(posixpath.relpath(form, root))
                    if rule is not None:
                        return rule
        return None

    def _describe(self, lexical: str, resolved: str) -> str:
        asked = _printable(self.display_path(lexical))
        target = _printable(self.display_path(resolved))
        return asked if asked == target else f"{asked} → {target}"

    def _secret_rule(self, path: str) -> str | None:
        parts = tuple(part.casefold() for part in PurePosixPath(path).parts)
        name = parts[-1]
        parent = parts[-2] if len(parts) > 1 else ""
        if name in _PRIVATE_KEY_NAMES or name.endswith(_PRIVATE_KEY_SUFFIXES):
            return "private key"
        if parent == _SSH_DIR and not name.endswith(".pub") and name not in _SSH_NON_SECRETS:
            return "ssh key material"
        if name == ".env" or (
            name.startswith(".env.") and name.rsplit(".", 1)[1] not in _ENV_TEMPLATE_SUFFIXES
        ):
            return "environment file"
        if any(parts[-len(suffix) :] == suffix for suffix in _CREDENTIAL_FILES):
            return "credential store"
        if _CREDENTIAL_DIRS.intersection(parts):
            return "credential store"
        if name in _HOME_CREDENTIAL_FILES and self._is_home(path):
            return "credential store"
        folded = path.casefold()
        if folded in _SYSTEM_SECRETS or any(_is_within(folded, d) for d in _SYSTEM_SECRET_DIRS):
            return "system credential file"
        if len(parts) > 2 and parts[1] == "proc" and name in _PROC_SECRETS:
            return "process memory or environment"
        return None

    def _is_home(self, path: str) -> bool:
        return posixpath.dirname(path) in (self._home, self._home_real)

    def _protected_rule(self, path: str) -> str | None:
        parts = tuple(part.casefold() for part in PurePosixPath(path).parts)
        name = parts[-1]
        if name in _SHELL_STARTUP_FILES or parts[-3:] == (".config", "fish", "config.fish"):
            return "shell start-up file"
        if any(parts[i : i + 2] == (".git", "hooks") for i in range(len(parts) - 1)):
            return "git hooks"
        if len(parts) > 1 and parts[-2] == ".git" and name in _GIT_CONFIG_FILES:
            return "git config"
        if name == ".git":
            return "git directory link"
        if self._within_any(path, self._agent_config):
            return "agent configuration"
        if self._within_any(path, self._extra_protected):
            return "protected path"
        return None

    @staticmethod
    def _within_any(path: str, roots: Sequence[str]) -> bool:
        return any(_is_within(path, r) or _is_within(path, os.path.realpath(r)) for r in roots)


def _is_within(path: str, root: str) -> bool:
    """Component-wise containment of two normalised absolute paths (``root`` itself included)."""
    return posixpath.commonpath((path, root)) == root


def _printable(path: str) -> str:
    return path if path.isprintable() else repr(path)
