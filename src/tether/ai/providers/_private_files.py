"""Files only their owner may read: how tether writes what it keeps.

Sessions, exports, logs, pins and the MCP token hold what a person typed and what tools printed,
secrets included. So every file tether writes is 0600 and every directory it makes 0700, whatever
the umask, and never anything wider even for a moment: a file is created by ``os.open`` with mode
0600 and then ``fchmod``-ed (the umask can only remove bits; an existing file is tightened too), a
directory by ``os.mkdir`` with mode 0700 and then ``chmod``-ed. The data directory
(:func:`data_dir`) and every directory inside it are tightened to 0700 when tether writes there,
so an older, wider layout becomes private on first use; an existing directory outside it (a
person's project holding a ``--session`` file) is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Literal, TextIO

from ._dirs import data_dir

__all__ = ["open_private", "private_dir", "write_private"]

StrPath = str | os.PathLike[str]

_FLAGS = {"a": os.O_APPEND, "w": os.O_TRUNC, "x": os.O_EXCL}


def private_dir(path: StrPath) -> Path:
    """``path`` as a directory, its missing parts created 0700; when it is the data directory or
    inside it, it and its ancestors up to the data directory are made 0700 as well."""
    target = Path(os.path.abspath(path))
    missing: list[Path] = []
    existing = target
    while not existing.is_dir():
        missing.append(existing)
        existing = existing.parent
    data = Path(os.path.abspath(data_dir()))
    for directory in (existing, *existing.parents):
        if directory == data or data in directory.parents:
            _tighten(directory, 0o700)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            if not directory.is_dir():
                raise
        os.chmod(directory, 0o700)
    return target


def open_private(path: StrPath, mode: Literal["a", "w", "x"] = "w") -> TextIO:
    """``path`` opened for writing UTF-8 text — ``a`` appends, ``w`` truncates, ``x`` only
    creates — as a 0600 file (created so, or tightened); its directory made by
    :func:`private_dir`."""
    private_dir(os.path.dirname(os.path.abspath(path)))
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | _FLAGS[mode]
    descriptor = os.open(path, flags, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        return open(descriptor, "a" if mode == "a" else "w", encoding="utf-8")
    except BaseException:
        os.close(descriptor)
        raise


def write_private(path: StrPath, text: str) -> None:
    """Replace ``path`` by a 0600 file holding ``text``, atomically: a reader sees the old
    content or the new, never a part."""
    target = Path(os.path.abspath(path))
    directory = private_dir(target.parent)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{target.name}-")
    try:
        with open(descriptor, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _tighten(path: Path, mode: int) -> None:
    if os.stat(path).st_mode & 0o777 != mode:
        os.chmod(path, mode)
