"""Hard links to secrets: a second name for ``~/.ssh/id_rsa`` inside the workspace reads as the
key, and no path rule sees it. Not every file with other names is one: uv and pnpm hard-link
whole package trees from their caches. So a file counts as a secret's other name when its inode
is one of the home's secret files' (its key, cloud, GnuPG and other credential files), listed
afresh every few seconds.
"""

from __future__ import annotations

import os
import stat
import threading
import time

__all__ = ["is_link_to_a_secret", "secrets_have_other_names"]

_SECRET_DIRECTORIES = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud",
                       ".config/gh", ".password-store")  # fmt: skip
_SECRET_FILES = (".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".env",
                 ".vault-token", ".my.cnf")  # fmt: skip
_MAX_ENTRIES = 10_000
_NOT_SECRETS = frozenset({"cache", "http-cache", "logs"})
"""Directories of caches and logs below the secret ones (``~/.kube/cache``, gcloud's logs),
which hold thousands of files and no credential: left out of the listing, so they do not make
it too long (and every search of git's work tree check for links)."""
_FRESH_SECONDS = 5.0
_cache: dict[str, tuple[float, frozenset[tuple[int, int]], bool]] = {}
_lock = threading.Lock()


def is_link_to_a_secret(path: str | os.stat_result, home: str) -> bool:
    """Whether ``path`` (or its status, already read) is a regular file with more than one
    name, one of them a secret file of ``home``."""
    try:
        status = os.stat(path) if isinstance(path, str) else path
    except OSError:
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_nlink < 2:
        return False
    return (status.st_dev, status.st_ino) in _secret_inodes(home)


def secrets_have_other_names(home: str) -> bool:
    """Whether any secret file of ``home`` has more than one name: only then can a file
    elsewhere be one of them, and a search of many files (git's work tree) need look."""
    return _listing(home)[1]


def _secret_inodes(home: str) -> frozenset[tuple[int, int]]:
    return _listing(home)[0]


def _listing(home: str) -> tuple[frozenset[tuple[int, int]], bool]:
    now = time.monotonic()
    with _lock:
        cached = _cache.get(home)
        if cached is not None and now - cached[0] < _FRESH_SECONDS:
            return cached[1], cached[2]
    inodes: set[tuple[int, int]] = set()
    linked = _listed(home, inodes)
    with _lock:
        _cache[home] = (now, frozenset(inodes), linked)
    return frozenset(inodes), linked


def _listed(home: str, inodes: set[tuple[int, int]]) -> bool:
    """Add the inodes of ``home``'s secret files to ``inodes``; whether one has other names
    (or there were too many to list: then it may)."""
    linked = False
    for name in _SECRET_FILES:
        linked |= _add(os.path.join(home, name), inodes)
    seen = 0
    for directory in _SECRET_DIRECTORIES:
        for root, dirs, files in os.walk(os.path.join(home, directory)):
            dirs[:] = [d for d in dirs if d not in _NOT_SECRETS]
            seen += len(files)
            if seen > _MAX_ENTRIES:
                return True
            for name in files:
                linked |= _add(os.path.join(root, name), inodes)
    return linked


def _add(path: str, inodes: set[tuple[int, int]]) -> bool:
    try:
        status = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(status.st_mode):
        return False
    inodes.add((status.st_dev, status.st_ino))
    return status.st_nlink > 1
