"""``BubblewrapSandbox``: run a command where it can change only the workspace.

What it guards against and what it does not: ``docs/governance.md``, "The sandbox".

:meth:`BubblewrapSandbox.wrap` turns a command line into a ``bwrap`` command line.
:class:`~tether.tools.operations.LocalExecOperations` runs that under its reaper, so the reaper
stays outside the sandbox and kills the tree the same way as without one.

Inside, the command sees:

- the whole filesystem read-only (``--ro-bind / /``), with the workspace and any
  ``extra_writable`` directories bound writable;
- in the workspace, the protected paths read-only and its secrets read as empty
  (:mod:`._sandbox_workspace`, scanned at every command): ``.git/`` as a whole (unless the sandbox
  was made :meth:`~BubblewrapSandbox.allowing_git_writes`, for a command a person approved) and
  the files that make programs run code later (``.envrc``, ``.vscode/``, ...), where an absent
  one at the workspace root is held by an empty read-only directory so it cannot be created;
- a private, empty, writable ``/tmp`` of at most ``tmp_size`` bytes (:data:`DEFAULT_TMP_SIZE`)
  and ``/run`` — the latter hides the sockets of host daemons
  (docker, containerd, dbus, ssh-agent), which a read-only mount would not: connecting to a socket
  is not a write. When the network is allowed, ``/run/systemd/resolve`` is bound back read-only
  so DNS through systemd-resolved keeps working;
- secrets hidden: each existing path of ``hidden_paths`` (by default :data:`DEFAULT_HIDDEN_PATHS`)
  is covered by an empty read-only directory, or by ``/dev/null`` for a file, so it reads as
  empty (bound with ``--dev-bind``: ``--ro-bind`` mounts ``nodev``, and reading the device would
  then fail, which breaks tools such as npm that must read their rc file). Paths are looked up
  at every :meth:`wrap`, so a secret created later is hidden too; a symlink hides its target
  as well;
- in the copy :meth:`~BubblewrapSandbox.read_only_jail` makes, for commands the shell policy
  proved read-only: nothing writable at all (workspace, ``/tmp``, ``/run`` and ``/dev`` too) and
  never a network;
- its own PID, IPC and UTS namespaces, a new session (no terminal to inject keystrokes into), no
  network unless ``allow_network``, no capabilities even when tether runs as root (``bwrap`` as
  root would otherwise keep them all, and ``mount -o remount,rw /`` would undo the read-only
  root), and ``HOME`` set to ``home``;
- no secrets in its environment (:meth:`BubblewrapSandbox.environment`, which the runner
  must start ``bwrap`` with): every variable whose name matches one of ``hidden_env`` (by
  default :data:`DEFAULT_HIDDEN_ENV`: API keys, tokens, passwords, ...) or whose value holds
  credentials (``postgres://user:pw@host/db``, a recognisable token) is withheld; the rest is
  kept.

``--die-with-parent`` and the PID namespace together mean that when the command exits, is killed,
or tether dies, every process inside dies with it: background processes never outlive the
command in the sandbox.
"""

from __future__ import annotations

import fnmatch
import functools
import glob
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tether.gate import redact_secrets

from ._sandbox_workspace import PLACEHOLDERS, WorkspaceScan, quarantine_planted, scan_workspace

__all__ = [
    "DEFAULT_HIDDEN_ENV",
    "DEFAULT_HIDDEN_PATHS",
    "DEFAULT_TMP_SIZE",
    "BubblewrapSandbox",
    "SandboxCommand",
]

_logger = logging.getLogger(__name__)

DEFAULT_HIDDEN_PATHS: tuple[str, ...] = (
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.gnupg",
    "~/.password-store",
    "~/.config/gh",
    "~/.config/gcloud",
    "~/.config/git/credentials",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pgpass",
    "~/.pypirc",
    "~/.npmrc",
    "~/.vault-token",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/ssh/ssh_host_*_key",
)
"""Secrets hidden by default. ``~`` is the sandbox's ``home``; glob wildcards are expanded."""

DEFAULT_HIDDEN_ENV: tuple[str, ...] = (
    "*_KEY",
    "*_KEY_*",
    "*APIKEY*",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*PASSPHRASE*",
    "*PASS",
    "*_PWD",
    "*_PAT",
    "*CREDENTIAL*",
    "*_AUTH",
    "*_AUTH_*",
    "*COOKIE*",
    "*_DSN",
    "*PRIVATE*",
    "*WEBHOOK*",
    "*CONNECTION_STRING*",
    "BW_SESSION",
    "OP_SESSION_*",
    "SSH_AUTH_SOCK",
)
"""Names of environment variables withheld from the sandbox (case-insensitive ``fnmatch``
globs). API keys reach a sandboxed command's output, and so the model, as easily as a file
would. ``SSH_AUTH_SOCK``: an ssh agent would sign for the command (its socket is out of reach
anyway). Besides these names, any value holding a URL with credentials or a token that
:func:`~tether.gate.redact_secrets` recognises is withheld — so is a proxy setting with a
password, which ``allow_network`` then works without."""

_URL_WITH_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]*://(?:[^/@\s:]*:[^@\s]+|[^/@\s:]{16,})@"
)
"""A URL with a password (``postgres://app:pw@db``) or a long user name that is a token
(``https://ghp_...@github.com``), anywhere in the value."""
DEFAULT_TMP_SIZE = 512 * 1024 * 1024
"""Bytes the sandbox's private ``/tmp`` may hold (a tmpfs lives in memory; without a cap each
command could take half the RAM)."""

_ESSENTIAL_ENV = frozenset({"HOME", "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM"})
_PROBE_TIMEOUT_SECONDS = 10.0
_ISOLATION = (
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--new-session",
    "--cap-drop",
    "ALL",
)
_RESOLVER_DIRECTORY = "/run/systemd/resolve"


class BubblewrapSandbox:
    """How to run a command under ``bwrap`` with only ``workspace`` writable.

    Directories are resolved (symlinks included) when the sandbox is made. ``home`` defaults to
    this user's home directory; ``hidden_paths`` replaces :data:`DEFAULT_HIDDEN_PATHS` and
    ``hidden_env`` replaces :data:`DEFAULT_HIDDEN_ENV`. ``tmp_size`` caps ``/tmp`` in bytes
    (``None``: no cap).
    """

    def __init__(
        self,
        workspace: str,
        *,
        allow_network: bool = False,
        hidden_paths: Sequence[str] | None = None,
        extra_writable: Sequence[str] = (),
        home: str | None = None,
        hidden_env: Sequence[str] | None = None,
        tmp_size: int | None = DEFAULT_TMP_SIZE,
    ) -> None:
        self.workspace = os.path.realpath(workspace)
        self.allow_network = allow_network
        self.hidden_paths = tuple(DEFAULT_HIDDEN_PATHS if hidden_paths is None else hidden_paths)
        self.extra_writable = tuple(os.path.realpath(path) for path in extra_writable)
        self.home = os.path.abspath(home if home is not None else os.path.expanduser("~"))
        self.hidden_env = tuple(DEFAULT_HIDDEN_ENV if hidden_env is None else hidden_env)
        self.tmp_size = tmp_size
        self.git_writable = False
        """Whether ``.git`` stays writable: only in the copy :meth:`allowing_git_writes` makes."""
        self.read_only = False
        """Whether nothing at all is writable: only in the copy :meth:`read_only_jail` makes."""

    def allowing_git_writes(self) -> BubblewrapSandbox:
        """A copy whose commands may write ``.git`` (a ``HEAD`` at the root too): for a git
        command that writes the repository, once a person approved it. Everything else stays
        protected and masked."""
        copy = BubblewrapSandbox.__new__(BubblewrapSandbox)
        copy.__dict__.update(self.__dict__)
        copy.git_writable = True
        return copy

    def read_only_jail(self) -> BubblewrapSandbox:
        """A copy in which nothing is writable — the workspace, ``/tmp``, ``/run``, ``/dev``
        included — and there is no network whatever ``allow_network`` says: for a command the
        shell policy proved read-only (an ``allow``), so one that would write after all simply
        fails. Secrets stay hidden and masked, secret variables withheld, as in every sandbox."""
        copy = BubblewrapSandbox.__new__(BubblewrapSandbox)
        copy.__dict__.update(self.__dict__)
        copy.git_writable = False
        copy.read_only = True
        return copy

    @staticmethod
    def available() -> bool:
        """Whether ``bwrap`` is installed and can make a sandbox on this machine.

        Found on ``PATH`` *and* a sandbox with every namespace :meth:`wrap` asks for actually
        started once (a kernel without user namespaces, or a container that forbids them, fails
        there). The answer is worked out once per process.
        """
        return _probe_bubblewrap()

    @contextmanager
    def command(self, argv: Sequence[str], *, cwd: str | None = None) -> Iterator[SandboxCommand]:
        """The ``bwrap`` command line that runs ``argv`` in this sandbox, in ``cwd``, valid while
        the ``with`` block runs (the placeholders for absent protected names exist for it).

        ``cwd`` (default: the workspace; a relative one is taken from this process's working
        directory) must exist inside the sandbox: the workspace, an
        ``extra_writable`` directory, or a directory the read-only root shows.
        """
        scan = scan_workspace(self.workspace, git_writable=self.git_writable)
        wanted = (
            []
            if self.read_only
            else [os.path.join(self.workspace, n) for n in scan.absent_root_names]
        )
        with PLACEHOLDERS.holding(wanted) as placeholders:
            sandboxed = SandboxCommand(self._command_line(argv, cwd, scan, placeholders), scan)
            try:
                yield sandboxed
            finally:  # the command has ended, or failed to start: what it planted must go
                sandboxed.quarantined.extend(
                    quarantine_planted(
                        self.workspace, scan, placeholders, git_writable=self.git_writable
                    )
                )

    def wrap(self, argv: Sequence[str], *, cwd: str | None = None) -> list[str]:
        """The command line of :meth:`command` without the placeholders: absent protected names
        at the workspace root can then be created. Prefer :meth:`command`."""
        scan = scan_workspace(self.workspace, git_writable=self.git_writable)
        return self._command_line(argv, cwd, scan, [])

    def _command_line(
        self,
        argv: Sequence[str],
        cwd: str | None,
        scan: WorkspaceScan | None,
        placeholders: Sequence[str],
    ) -> list[str]:
        network = self.allow_network and not self.read_only
        arguments = [shutil.which("bwrap") or "bwrap", *_ISOLATION]
        if not network:
            arguments.append("--unshare-net")
        arguments += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        private = ["/tmp", "/run"]
        if os.path.isdir("/var/run") and not os.path.islink("/var/run"):
            private.append("/var/run")
        for mount in private:
            if self.tmp_size is not None and mount == "/tmp":
                arguments += ["--size", str(self.tmp_size)]
            arguments += ["--tmpfs", mount]
        if network:
            arguments += ["--ro-bind-try", _RESOLVER_DIRECTORY, _RESOLVER_DIRECTORY]
        for directory in _programs_under_private_mounts():
            arguments += ["--ro-bind", directory, directory]
        bind = "--ro-bind" if self.read_only else "--bind"
        for directory in (self.workspace, *self.extra_writable):
            arguments += [bind, directory, directory]
        if scan is not None:
            for path in () if self.read_only else (*scan.read_only, *placeholders):
                arguments += ["--ro-bind", path, path]
            for path in scan.secrets:
                if os.path.isdir(path):
                    arguments += ["--tmpfs", path, "--remount-ro", path]
                else:
                    arguments += ["--dev-bind", "/dev/null", path]
        for path in self._existing_hidden_paths():
            if os.path.isdir(path):
                arguments += ["--tmpfs", path, "--remount-ro", path]
            else:
                arguments += ["--dev-bind", "/dev/null", path]
        if self.read_only:  # last: bwrap makes the mount points above in these first
            arguments += [item for mount in ("/dev", *private) for item in ("--remount-ro", mount)]
        arguments += ["--setenv", "HOME", self.home]
        arguments += ["--chdir", os.path.abspath(cwd) if cwd is not None else self.workspace]
        arguments += ["--", *argv]
        return arguments

    def environment(self, environment: Mapping[str, str]) -> dict[str, str]:
        """``environment`` without its secrets: what a sandboxed command must be started with.

        Not a bwrap ``--unsetenv``: that unsets a variable only in the command, while bwrap
        itself, PID 1 of the sandbox, keeps the whole environment readable in
        ``/proc/1/environ``. The secrets must never reach bwrap at all.
        """
        hidden = set(self.secret_env_names(environment))
        return {name: value for name, value in environment.items() if name not in hidden}

    def secret_env_names(self, environment: Mapping[str, str]) -> list[str]:
        """The names in ``environment`` that the sandbox withholds, sorted. ``HOME``, ``PATH``
        and the locale are never withheld, whatever ``hidden_env`` says."""
        patterns = [pattern.upper() for pattern in self.hidden_env]
        return sorted(
            name
            for name, value in environment.items()
            if name not in _ESSENTIAL_ENV
            and (
                any(fnmatch.fnmatchcase(name.upper(), pattern) for pattern in patterns)
                or _URL_WITH_CREDENTIALS.search(value) is not None
                or redact_secrets(value) != value
            )
        )

    def _existing_hidden_paths(self) -> list[str]:
        """Every hidden path that exists now, and the target of each one that is a symlink."""
        found: list[str] = []
        for hidden in self.hidden_paths:
            pattern = self.home + hidden[1:] if hidden == "~" or hidden.startswith("~/") else hidden
            for path in sorted(glob.glob(pattern)):
                for candidate in (os.path.abspath(path), os.path.realpath(path)):
                    if candidate not in found and os.path.exists(candidate):
                        found.append(candidate)
        return found


@dataclass(frozen=True)
class SandboxCommand:
    """A command line for ``bwrap`` and what the workspace scan behind it found."""

    argv: list[str]
    scan: WorkspaceScan
    quarantined: list[tuple[str, str]] = field(default_factory=list)
    """Filled when the ``with`` block ends: protected paths the command created, each with the
    name it was moved to (``""``: removed), by :func:`._sandbox_workspace.quarantine_planted`."""


@functools.cache
def _probe_bubblewrap() -> bool:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = BubblewrapSandbox("/", hidden_paths=())._command_line(["true"], None, None, [])
    try:
        completed = subprocess.run(
            probe,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        _logger.debug("bubblewrap probe could not run: %s", error)
        return False
    if completed.returncode != 0:
        _logger.debug(
            "bubblewrap probe failed (exit %d): %s",
            completed.returncode,
            completed.stderr.decode(errors="replace").strip(),
        )
        return False
    return True


_PRIVATE_MOUNTS = ("/tmp", "/run", "/var/run")


def _programs_under_private_mounts() -> list[str]:
    """Interpreter and ``PATH`` directories that the private ``/tmp`` or ``/run`` would hide.

    A virtual environment or a tool installed under ``/tmp`` must stay runnable (read-only)
    inside the sandbox, or the sandbox would break the very commands it guards.
    """
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix]
    candidates += os.environ.get("PATH", "").split(os.pathsep)
    found: dict[str, None] = {}
    for candidate in candidates:
        if not candidate or not os.path.isdir(candidate):
            continue
        real = os.path.realpath(candidate)
        if any(real == mount or real.startswith(mount + "/") for mount in _PRIVATE_MOUNTS):
            found.setdefault(real, None)
    return list(found)
