"""``SSHOperations``: every tool's operations on another host, over one SSH connection."""

from __future__ import annotations

import os
from collections.abc import Sequence

from tether.ai import AbortSignal
from tether.tools.operations import (
    DirEntry,
    FileStat,
    FindOutcome,
    GrepOutcome,
    GrepQuery,
)

from ._connection import DEFAULT_KNOWN_HOSTS, SSHConnection
from ._exec import RemoteExec
from ._files import RemoteFiles
from ._search import RemoteSearch

__all__ = ["SSHOperations"]


class SSHOperations(RemoteExec):
    """The read, write, edit, ls, bash, grep and find operations, run on ``host``.

    Files go over SFTP, commands and searches over exec channels of the same connection (asyncssh,
    opened on first use, opened again on the call after one is lost). The host key must be
    trusted by ``known_hosts``; ``client_keys`` are private-key paths (``None``: asyncssh's
    defaults and the SSH agent). ``cwd`` is the remote working directory the caller means to use
    (``None``: the login directory, see :meth:`home`); it is kept for the caller, since tools pass
    absolute paths and their own ``cwd``. Commands and their output files are ``RemoteExec``'s,
    as ``LocalOperations`` takes its own from ``LocalExecOperations``; a file operation first
    waits for the output files handed out so far (``settle_output_files``).
    """

    def __init__(
        self,
        host: str,
        *,
        user: str | None = None,
        port: int = 22,
        cwd: str | None = None,
        known_hosts: str | os.PathLike[str] = DEFAULT_KNOWN_HOSTS,
        client_keys: Sequence[str | os.PathLike[str]] | None = None,
    ) -> None:
        self.connection = SSHConnection(
            host, user=user, port=port, known_hosts=known_hosts, client_keys=client_keys
        )
        super().__init__(self.connection)
        self.cwd = cwd
        self._files = RemoteFiles(self.connection)
        self._search = RemoteSearch(self.connection, self._files)

    @property
    def address(self) -> str:
        """Where the tools run, as ``user@host:port``."""
        return self.connection.address

    async def home(self) -> str:
        """The login directory on the host (where a relative SFTP path starts)."""
        sftp = await self.connection.sftp()
        return str(await sftp.realpath("."))

    async def stat(self, path: str) -> FileStat | None:
        await self.settle_output_files()
        return await self._files.stat(path)

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        await self.settle_output_files()
        return await self._files.read_range(path, offset, length)

    async def read_file(self, path: str) -> bytes:
        await self.settle_output_files()
        return await self._files.read_file(path)

    async def write_file(self, path: str, data: bytes) -> None:
        await self._files.write_file(path, data)

    async def real_path(self, path: str) -> str:
        return await self._files.real_path(path)

    async def list_dir(self, path: str) -> list[DirEntry]:
        await self.settle_output_files()
        return await self._files.list_dir(path)

    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        await self.settle_output_files()
        return await self._search.grep(query, signal=signal)

    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        await self.settle_output_files()
        return await self._search.find(pattern, path, limit, signal=signal)

    def close_now(self) -> None:
        """Close the connection at once, from synchronous code; unfinished output-file writes
        are abandoned."""
        self.connection.drop()

    async def close(self) -> None:
        """Finish pending output files and close the connection."""
        await self.settle_output_files()
        await self.connection.close()
