"""``exec`` and ``create_output_file`` on the remote host (see :mod:`._process` for the tree kill).

The output file is created on the remote host, so the ``read`` tool over the same operations can
open the path a bash result names. The protocol's file is synchronous (the bash tool writes to
it from its output callback) while SFTP is not: the file queues what it is given and one task
writes it in order. Every file operation of :class:`~._operations.SSHOperations` first waits for
those writes, so a later read sees the whole file.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import secrets
from collections.abc import Callable, Mapping

from tether.ai import AbortSignal
from tether.tools.operations import ExecResult, OutputFile

from ._connection import SSHConnection
from ._files import sftp_errors
from ._process import run_remote

__all__ = ["RemoteExec"]

_REMOTE_TEMP_DIRECTORY = "/tmp"


class RemoteExec:
    """Shell commands on the remote host, and spill files there."""

    def __init__(self, connection: SSHConnection) -> None:
        self._ssh = connection
        self._pending_writes: set[asyncio.Task[None]] = set()

    def create_output_file(self, prefix: str) -> OutputFile:
        """A new file ``/tmp/PREFIX*.log`` on the remote host."""
        name = f"{prefix}{secrets.token_hex(6)}.log"
        output = _RemoteOutputFile(self._ssh, posixpath.join(_REMOTE_TEMP_DIRECTORY, name))
        self._pending_writes.add(output.task)
        output.task.add_done_callback(self._pending_writes.discard)
        return output

    async def settle_output_files(self) -> None:
        """Wait until every output file handed out so far is written (failures were reported)."""
        if self._pending_writes:
            await asyncio.wait(set(self._pending_writes))

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        on_output: Callable[[bytes], None],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``command`` under ``bash -c`` in ``cwd`` on the host, output merged there.

        ``env`` replaces the remote login environment (``None`` keeps it). A missing ``cwd``
        raises ``FileNotFoundError`` naming it, before the command starts.
        """
        if signal is not None and signal.aborted:
            return ExecResult(None, aborted=True)
        run = await run_remote(
            self._ssh,
            command,
            cwd=cwd,
            on_stdout=on_output,
            merge_stderr=True,
            timeout=timeout,
            signal=signal,
            env=env,
        )
        if run.outcome == "exited":
            return ExecResult(run.exit_code)
        return ExecResult(
            None, timed_out=run.outcome == "timed_out", aborted=run.outcome == "aborted"
        )


class _RemoteOutputFile:
    """Writes queued from synchronous calls and stored over SFTP, in order, by one task."""

    def __init__(self, connection: SSHConnection, path: str) -> None:
        self._ssh = connection
        self._path = path
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._failure: OSError | None = None
        self._closed = False
        self.task = asyncio.get_running_loop().create_task(self._store())

    @property
    def path(self) -> str:
        return self._path

    def write(self, data: bytes) -> None:
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise OSError(f"{self._path} is closed")
        self._queue.put_nowait(bytes(data))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(None)

    async def _store(self) -> None:
        try:
            sftp = await self._ssh.sftp()
            with sftp_errors(self._ssh, self._path):
                async with sftp.open(self._path, "xb", encoding=None) as handle:
                    while (chunk := await self._queue.get()) is not None:
                        await handle.write(chunk)
        except OSError as error:
            self._failure = error
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self._queue.get_nowait()
