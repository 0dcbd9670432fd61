"""File operations on this machine. Blocking calls run in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat as stat_module
import tempfile

from ._protocols import DirEntry, FileKind, FileStat

__all__ = ["LocalFileOperations", "write_atomically"]


class LocalFileOperations:
    """Files through the OS: stat, ranged and whole reads, atomic writes, listings."""

    async def stat(self, path: str) -> FileStat | None:
        return await asyncio.to_thread(_stat, path)

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        return await asyncio.to_thread(_read_range, path, offset, length)

    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_all, path)

    async def write_file(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(write_atomically, path, data)

    async def real_path(self, path: str) -> str:
        return os.path.realpath(path)

    async def list_dir(self, path: str) -> list[DirEntry]:
        return await asyncio.to_thread(_list_dir, path)


def _kind(mode: int) -> FileKind:
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "directory"
    return "other"


def _stat(path: str) -> FileStat | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    return FileStat(_kind(info.st_mode), info.st_size)


def _read_range(path: str, offset: int, length: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(length)


def _read_all(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _list_dir(path: str) -> list[DirEntry]:
    entries = []
    with os.scandir(path) as scan:
        for entry in scan:
            try:
                kind = _kind(entry.stat().st_mode)
            except OSError:
                kind = "other"
            entries.append(DirEntry(entry.name, kind))
    return entries


def write_atomically(path: str, data: bytes) -> None:
    """Write to a temp file beside the target, flush it to disk, then rename over the target.

    A crash leaves either the old or the new content, never a mix. A symlink is followed (its
    target is replaced, the link kept); an existing file's permission bits are kept.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    os.makedirs(directory, exist_ok=True)
    try:
        mode: int | None = stat_module.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    descriptor, temp_path = tempfile.mkstemp(
        prefix=f".{os.path.basename(target)}.", suffix=".tether-tmp", dir=directory
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp_path, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp_path, 0o666 & ~umask)
        os.replace(temp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_path)
        raise
