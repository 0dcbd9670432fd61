"""Paths that matter to the deny rules: secrets by name, persistence targets, disks and network
devices, and what destroying the system or the home directory means.

Functions of one resolved (or relative, globbed) path: :mod:`._rules` asks them for the
arguments of one command, :mod:`._files` for every visible read and write.
"""

from __future__ import annotations

import posixpath
import re
from fnmatch import fnmatchcase
from functools import lru_cache

from ._call import has_glob

__all__ = [
    "HARMLESS_DEVICES",
    "destroys_system_or_home",
    "is_disk_device",
    "is_network_device",
    "might_be_secret",
    "path_components",
    "persistence_target",
    "secret_directory",
    "secret_kind",
    "word_set",
]


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SYSTEM_DIRS = word_set(
    "bin boot dev etc home lib lib32 lib64 libx32 media mnt opt proc root run sbin snap srv sys "
    "usr var nix Users System Library Applications Volumes private"
)


def path_components(path: str) -> list[str]:
    return [part for part in path.split("/") if part and part != "."]


def _matches(component: str, pattern: str, examples: tuple[str, ...] = ()) -> bool:
    """Literal ``component`` against a rule pattern, or a glob ``component`` that could match."""
    if not has_glob(component):
        return fnmatchcase(component, pattern)
    names = [n for n in examples or (pattern,) if component[:1] == "." or n[:1] != "."]
    return any(fnmatchcase(name, component) for name in names)


_KEY_NAMES = ("id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_ecdsa_sk", "id_ed25519_sk")
_ENV_SAFE_SUFFIXES = frozenset({"example", "sample", "template", "dist", "defaults", "schema"})
_SECRET_TAILS = {
    ".aws/credentials": "cloud credentials", ".netrc": "a netrc password file",
    ".docker/config.json": "docker registry credentials", ".kube/config": "a kubeconfig",
    ".git-credentials": "git credentials", ".pgpass": "a postgres password file",
    ".vault-token": "a vault token", ".config/gh/hosts.yml": "the GitHub CLI token",
    ".gnupg/private-keys-v1.d/*": "a GnuPG private key",
}  # fmt: skip
_SHADOW_FILES = ("shadow", "gshadow", "shadow-", "gshadow-", "master.passwd")
_SECRET_HINT = re.compile(
    r"id_|\.env|shadow|passwd|environ|credentials|netrc|config|pgpass|vault|hosts\.yml|"
    r"\.gnupg|\.ssh|\.aws|\.kube|\.docker"
)


def might_be_secret(text: str) -> bool:
    """Cheap pre-test: ``False`` means no path spelled ``text`` is a secret or secret directory,
    wherever it is resolved."""
    return has_glob(text) or bool(_SECRET_HINT.search(text)) or text in (".", "..", "~", "~/")


@lru_cache(maxsize=4096)
def secret_kind(path: str) -> str | None:
    """What secret ``path`` (resolved or relative, globs allowed) names, if any."""
    parts = path_components(path) if might_be_secret(path) else []
    if not parts:
        return None
    last = parts[-1]
    in_ssh = len(parts) > 1 and _matches(parts[-2], ".ssh")
    key = (in_ssh and _matches(last, "id_*", _KEY_NAMES)) or last in _KEY_NAMES
    if key and not last.endswith(".pub"):
        return "an SSH private key"
    if _matches(last, ".env", (".env", ".env.local")) or (
        last.startswith(".env.") and last[5:].lower() not in _ENV_SAFE_SUFFIXES
    ):
        return "a .env secrets file"
    absolute = path.startswith("/")
    if absolute and parts[:1] == ["etc"] and any(_matches(last, n) for n in _SHADOW_FILES):
        return "the password hash database"
    if absolute and parts[0] == "proc" and _matches(last, "environ"):
        return "a process environment (holds secrets)"
    for tail, label in _SECRET_TAILS.items():
        pattern = tail.split("/")
        if len(parts) >= len(pattern) and all(map(_matches, parts[-len(pattern) :], pattern)):
            return label
    return None


_SECRET_DIRS = frozenset({".ssh", ".aws", ".gnupg", ".kube", ".docker"})


def secret_directory(path: str, home: str) -> bool:
    """``path`` is the home directory, a directory that holds it (``/``, ``/home``), or a
    directory of secrets (for commands that copy or search trees)."""
    parts = path_components(path)
    holds_home = path.startswith("/") and (home + "/").startswith(path.rstrip("/") + "/")
    return path == home or holds_home or (bool(parts) and parts[-1] in _SECRET_DIRS)


_RC_FILES = word_set(
    ".bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv .zlogin "
    ".zlogout .kshrc .cshrc .tcshrc .mkshrc"
)
_SYSTEM_PERSISTENCE = {
    "/etc/profile": "a login script", "/etc/bash.bashrc": "a shell startup file",
    "/etc/zsh": "a shell startup file", "/etc/environment": "the system environment",
    "/etc/ld.so.preload": "the loader preload list", "/etc/sudoers": "the sudoers policy",
    "/etc/passwd": "the user database", "/etc/shadow": "the password database",
    "/etc/cron": "the cron schedule", "/etc/crontab": "the cron schedule",
    "/proc/sysrq-trigger": "the kernel's SysRq trigger", "/proc/sys": "kernel settings",
    "/var/spool/cron": "the cron schedule", "/etc/systemd": "systemd units",
    "/lib/systemd": "systemd units", "/usr/lib/systemd": "systemd units",
    "/etc/init.d": "init scripts", "/etc/rc.local": "init scripts",
    "/Library/LaunchDaemons": "launchd jobs",
}  # fmt: skip
_SEQUENCES = {
    ".git/hooks": "a git hook", ".config/systemd": "systemd user units",
    ".config/autostart": "autostart entries", ".config/fish": "a shell startup file",
    "Library/LaunchAgents": "launchd jobs", ".ssh": "the SSH configuration",
}  # fmt: skip


@lru_cache(maxsize=4096)
def persistence_target(path: str) -> str | None:
    """What writing to ``path`` would plant (startup files, hooks, schedules), if anything."""
    parts = path_components(path)
    if not parts:
        return None
    if any(_matches(parts[-1], name) for name in _RC_FILES):
        return "a shell startup file"
    if parts[-2:] == [".git", "config"]:
        return "the repository's git config"
    if path.startswith("/"):
        for prefix, label in _SYSTEM_PERSISTENCE.items():
            if path == prefix or (path.startswith(prefix) and path[len(prefix)] in "/.-"):
                return label
    joined = "/" + "/".join(parts)
    for sequence, label in _SEQUENCES.items():
        if f"/{sequence}/" in joined + ("/" if "/" in sequence else ""):
            return label
    return None


_DISK = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|md|dm-|loop|mapper/|mem$|kmem$|port$)")
HARMLESS_DEVICES = re.compile(r"^/dev/(null|zero|full|std(out|err|in)|tty|fd/\d+|u?random)$")


def is_disk_device(path: str) -> bool:
    return bool(_DISK.match(path))


def is_network_device(text: str) -> bool:
    return "/dev/tcp/" in text or "/dev/udp/" in text


def destroys_system_or_home(path: str, home: str) -> bool:
    """Whether a recursive change at ``path`` (resolved, globs allowed) hits / or a home."""
    while posixpath.basename(path) in ("*", ".*", "*.*", "?*", "**", "[!.]*"):
        path = posixpath.dirname(path) or "/"
    if path in ("/", home, posixpath.dirname(home)):
        return True
    parts = path_components(path)
    if len(parts) == 1:
        return has_glob(parts[0]) or parts[0] in _SYSTEM_DIRS
    return len(parts) == 2 and parts[0] in ("usr", "home", "Users")
