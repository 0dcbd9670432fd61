"""File operations on the remote host, over the connection's SFTP session.

Reads are ranged (an SFTP read names an offset and a length, so the first lines of a huge file
cost only those bytes); writes go to a temp file beside the target and are renamed over it with
``posix-rename@openssh.com``, so the target is never half-written. SFTP status codes become the
exceptions the tools expect: ``FileNotFoundError``, ``PermissionError``, else ``OSError``.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import secrets
import stat as stat_module
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tether.tools.operations import DirEntry, FileKind, FileStat

from ._connection import SSHConnection

if TYPE_CHECKING:
    import asyncssh

__all__ = ["RemoteFiles", "sftp_errors"]

_MAX_LINKS = 40
"""Symlinks followed in one resolution before it fails as a loop (Linux's limit)."""


@contextlib.contextmanager
def sftp_errors(connection: SSHConnection, path: str) -> Iterator[None]:
    """SFTP errors as OS errors about ``path``; a lost connection as a connection error."""
    import asyncssh

    with connection.translating_errors():
        try:
            yield
        except asyncssh.SFTPConnectionLost as error:
            raise asyncssh.ConnectionLost(error.reason) from None
        except asyncssh.SFTPNoSuchFile:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path) from None
        except asyncssh.SFTPPermissionDenied:
            raise PermissionError(errno.EACCES, "Permission denied", path) from None
        except asyncssh.SFTPError as error:
            raise OSError(errno.EIO, f"{error.reason} (on {connection.address})", path) from None


class RemoteFiles:
    """stat, ranged and whole reads, atomic writes, real paths and listings over SFTP."""

    def __init__(self, connection: SSHConnection) -> None:
        self._ssh = connection

    async def stat(self, path: str) -> FileStat | None:
        sftp = await self._ssh.sftp()
        try:
            with sftp_errors(self._ssh, path):
                attrs = await sftp.stat(path)
        except FileNotFoundError:
            return None
        return FileStat(_kind(attrs), attrs.size or 0)

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        return await self._read(path, offset, length)

    async def read_file(self, path: str) -> bytes:
        return await self._read(path, 0, -1)

    async def _read(self, path: str, offset: int, length: int) -> bytes:
        """SFTP version 3 reports reading a directory as a bare failure: the stat tells."""
        sftp = await self._ssh.sftp()
        try:
            with sftp_errors(self._ssh, path):
                async with sftp.open(path, "rb", encoding=None) as handle:
                    data: bytes = await handle.read(length, offset)
        except OSError as error:
            if type(error) is OSError and await self._is_directory(path):
                raise IsADirectoryError(errno.EISDIR, "Is a directory", path) from None
            raise
        return data

    async def _is_directory(self, path: str) -> bool:
        info = await self.stat(path)
        return info is not None and info.kind == "directory"

    async def _refuse_unwritable(self, target: str) -> None:
        """The errors a local write gives where SFTP would give a bare failure: the target is a
        directory, or the nearest existing ancestor is not one."""
        info = await self.stat(target)
        if info is not None and info.kind == "directory":
            raise IsADirectoryError(errno.EISDIR, "Is a directory", target)
        ancestor = posixpath.dirname(target)
        while ancestor != posixpath.dirname(ancestor):
            info = await self.stat(ancestor)
            if info is not None:
                if info.kind != "directory":
                    raise NotADirectoryError(errno.ENOTDIR, "Not a directory", ancestor)
                return
            ancestor = posixpath.dirname(ancestor)

    async def real_path(self, path: str) -> str:
        """Symlinks resolved by the server; a missing tail is kept as given, like ``realpath``,
        and a symlink to a missing file is followed to where that file would be."""
        sftp = await self._ssh.sftp()
        missing: list[str] = []
        current = posixpath.normpath(path)
        links = 0
        while True:
            try:
                with sftp_errors(self._ssh, current):
                    resolved = await sftp.realpath(current)
                    await sftp.lstat(resolved)
                break
            except (FileNotFoundError, PermissionError):
                target = await self._dangling_target(current)
                if target is not None:
                    links += 1
                    if links > _MAX_LINKS:
                        raise OSError(
                            errno.ELOOP, "Too many levels of symbolic links", path
                        ) from None
                    current = target
                    continue
                parent = posixpath.dirname(current)
                if parent == current:
                    resolved = current
                    break
                missing.append(posixpath.basename(current))
                current = parent
        return posixpath.join(str(resolved), *reversed(missing))

    async def _dangling_target(self, path: str) -> str | None:
        """Where the symlink ``path`` points, from its resolved directory; ``None`` if ``path``
        is no symlink."""
        sftp = await self._ssh.sftp()
        try:
            with sftp_errors(self._ssh, path):
                if not stat_module.S_ISLNK((await sftp.lstat(path)).permissions or 0):
                    return None
                link = str(await sftp.readlink(path))
                directory = str(await sftp.realpath(posixpath.dirname(path) or "/"))
        except (FileNotFoundError, PermissionError):
            return None
        return posixpath.normpath(posixpath.join(directory, link))

    async def write_file(self, path: str, data: bytes) -> None:
        """Temp file in the target's directory, flushed, then renamed over the target.

        A symlink is followed (its target replaced, the link kept); an existing file keeps its
        permission bits, a new one gets the server's default (0666 less its umask).
        """
        import asyncssh

        sftp = await self._ssh.sftp()
        target = await self.real_path(path)
        await self._refuse_unwritable(target)
        directory = posixpath.dirname(target) or "/"
        with sftp_errors(self._ssh, directory):
            await sftp.makedirs(directory, exist_ok=True)
        mode: int | None = None
        with contextlib.suppress(FileNotFoundError), sftp_errors(self._ssh, target):
            attrs = await sftp.stat(target)
            mode = stat_module.S_IMODE(attrs.permissions or 0)
        name = f".{posixpath.basename(target)}.{secrets.token_hex(4)}.tether-tmp"
        temp_path = posixpath.join(directory, name)
        try:
            with sftp_errors(self._ssh, target):
                async with sftp.open(temp_path, "xb", encoding=None) as handle:
                    await handle.write(data)
                    with contextlib.suppress(asyncssh.SFTPOpUnsupported):
                        await handle.fsync()
                if mode is not None:
                    await sftp.chmod(temp_path, mode)
                await sftp.posix_rename(temp_path, target)
        except BaseException:
            with contextlib.suppress(Exception):
                await sftp.remove(temp_path)
            raise

    async def list_dir(self, path: str) -> list[DirEntry]:
        sftp = await self._ssh.sftp()
        entries = []
        with sftp_errors(self._ssh, path):
            names = await sftp.readdir(path)
        for name in names:
            filename = str(name.filename)
            if filename in (".", ".."):
                continue
            kind = _kind(name.attrs)
            if stat_module.S_ISLNK(name.attrs.permissions or 0):
                try:
                    with sftp_errors(self._ssh, path):
                        kind = _kind(await sftp.stat(posixpath.join(path, filename)))
                except OSError:
                    kind = "other"
            entries.append(DirEntry(filename, kind))
        return entries


def _kind(attrs: asyncssh.SFTPAttrs) -> FileKind:
    mode = attrs.permissions
    if mode is None:
        return "other"
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "directory"
    return "other"
