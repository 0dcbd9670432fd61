"""Commands on the remote host whose whole process tree can always be killed.

Each command is started by a small POSIX-shell wrapper on an SSH exec channel. The wrapper
exports a marker variable unique to the run (``TETHER_RUN=<random>``), changes to the working
directory, and ``exec``s ``setsid -w bash -c ...`` with stdin from ``/dev/null`` (as on this
machine), so the command leads a new session and process group of its own. ``SHLVL=2`` keeps
each ``exec``'d bash from taking itself for the shell sshd started, which would source
``~/.bashrc`` again (bash does so for a first-level shell when ``SSH_CLIENT`` is set).

That bash first prints its PID (the group's) on the channel's stderr; the command's own stderr
is then joined to its stdout *on the remote host*, so both arrive merged in the order the command
wrote them.

Killing (timeout, abort, cancellation, early stop) runs a second command on the same connection:
it SIGKILLs the process group, then sweeps ``/proc`` for every process whose environment still
holds the marker — children that called ``setsid`` or double-forked away from the group, daemons
re-parented to init — and SIGKILLs them, until none is left. A descendant that rewrote its own
environment to drop the marker would escape; nothing else does. The sweep needs Linux's ``/proc``
on the remote host, ``setsid`` from util-linux and ``bash`` (``sh`` when there is none).

As on this machine, a command's daemons are left alone when the command exits normally, and
reading stops a short drain period after the exit rather than waiting for an end-of-file that a
daemon holding the output may never let the server send.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import secrets
import shlex
import signal as signals
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from tether.ai import AbortSignal, first_to_finish

from ._connection import RemoteConnectionError, SSHConnection

if TYPE_CHECKING:
    import asyncssh

__all__ = ["RemoteRun", "run_remote"]

_DRAIN_SECONDS = 0.15
_KILL_WAIT_SECONDS = 8.0
_NO_CWD = b"tether:no-cwd"
_SWEEP_ROUNDS = 100
_NO_EXIT_STATUS = -1
"""What ``exited`` holds when the channel ended without an exit status (the connection broke)."""

Outcome = Literal["exited", "timed_out", "aborted", "stopped"]


@dataclass(frozen=True, slots=True)
class RemoteRun:
    outcome: Outcome
    exit_code: int | None
    """``None`` unless the command exited by itself (then ``128 + N`` for a signal ``N``)."""
    stderr: bytes
    """The command's stderr when it was kept apart from stdout (``merge_stderr=False``)."""


def _wrapper(
    command: str, cwd: str, marker: str, env: Mapping[str, str] | None, merge: bool
) -> str:
    inner = 'printf "%s\\n" "$$" >&2; exec "$0" -c "$1"' + (" 2>&1" if merge else "")
    launch = f'exec setsid -w "$shell" -c {shlex.quote(inner)} "$shell"'
    if env is not None:
        assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
        launch = launch.replace("setsid", f"env -i {assignments} TETHER_RUN={marker} setsid", 1)
    return (
        f"TETHER_RUN={marker}; SHLVL=2; export TETHER_RUN SHLVL; "
        "shell=bash; command -v bash >/dev/null || shell=/bin/sh; "
        f"cd -- {shlex.quote(cwd)} 2>/dev/null || {{ echo {_NO_CWD.decode()} >&2; exit 1; }}; "
        f"{launch} {shlex.quote(command)} </dev/null"
    )


def _kill_script(marker: str, group: int | None) -> str:
    group_kill = f"kill -KILL -- -{group} 2>/dev/null; " if group else ""
    return (
        group_kill + f"i=0; while [ $i -lt {_SWEEP_ROUNDS} ]; do "
        f"pids=$(grep -lsxz TETHER_RUN={marker} /proc/[0-9]*/environ | cut -d/ -f3); "
        '[ -z "$pids" ] && break; kill -KILL $pids 2>/dev/null; i=$((i+1)); sleep 0.01; done'
    )


class _Session:
    """The exec channel's callbacks: stdout to the consumer, the PID line and stderr kept.

    It has every method asyncssh calls on an ``SSHClientSession`` (it is not a subclass, so that
    asyncssh is imported only on first connect); the flow-control ones have nothing to do.
    """

    def __init__(self, on_stdout: Callable[[bytes], bool | None]) -> None:
        self._on_stdout = on_stdout
        self._loop = asyncio.get_running_loop()
        self.exited: asyncio.Future[int] = self._loop.create_future()
        self.closed: asyncio.Future[None] = self._loop.create_future()
        self.stopped = asyncio.Event()
        self.started = asyncio.Event()
        self.group: int | None = None
        self.no_cwd = False
        self.error: Exception | None = None
        self.lost: Exception | None = None
        self._stderr = bytearray()
        self.stderr = bytearray()

    def connection_made(self, channel: asyncssh.SSHClientChannel[bytes]) -> None:
        pass

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if datatype is not None:
            self._take_stderr(data)
            return
        if self.error is not None or self.stopped.is_set():
            return
        try:
            if self._on_stdout(data) is False:
                self.stopped.set()
        except Exception as error:
            self.error = error

    def _take_stderr(self, data: bytes) -> None:
        if self.started.is_set():
            self.stderr += data[: max(0, 16384 - len(self.stderr))]
            return
        self._stderr += data
        line, newline, rest = bytes(self._stderr).partition(b"\n")
        if not newline:
            return
        if line == _NO_CWD:
            self.no_cwd = True
        elif line.isdigit():
            self.group = int(line)
        self.started.set()
        self.stderr += rest

    def eof_received(self) -> bool:
        return False

    def exit_status_received(self, status: int) -> None:
        if not self.exited.done():
            self.exited.set_result(status)

    def exit_signal_received(self, signal: str, core_dumped: bool, msg: str, lang: str) -> None:
        number = getattr(signals, f"SIG{signal}", signals.SIGKILL)
        if not self.exited.done():
            self.exited.set_result(128 + int(number))

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            self.lost = exc
        if not self.closed.done():
            self.closed.set_result(None)
        if not self.exited.done():
            self.exited.set_result(_NO_EXIT_STATUS)

    def pause_writing(self) -> None:
        pass

    def resume_writing(self) -> None:
        pass

    def session_started(self) -> None:
        pass


async def run_remote(
    connection: SSHConnection,
    command: str,
    *,
    cwd: str,
    on_stdout: Callable[[bytes], bool | None],
    merge_stderr: bool,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    env: Mapping[str, str] | None = None,
) -> RemoteRun:
    """Run ``command`` with ``bash -c`` in ``cwd`` on the host; stdout chunks to ``on_stdout``.

    ``on_stdout`` returning ``False`` stops the run (the tree is killed, outcome ``"stopped"``);
    an exception it raises is re-raised once the command has finished. A missing ``cwd`` raises
    ``FileNotFoundError`` naming it; a lost connection :class:`RemoteConnectionError`.
    """
    marker = secrets.token_hex(12)
    ssh = await connection.connection()
    loop_session: list[_Session] = []

    def factory() -> _Session:
        session = _Session(on_stdout)
        loop_session.append(session)
        return session

    with connection.translating_errors():
        channel, _ = await ssh.create_session(
            factory,  # type: ignore[arg-type]
            _wrapper(command, cwd, marker, env, merge_stderr),
            encoding=None,
        )
    session = loop_session[0]
    channel.write_eof()
    outcome: Outcome = "exited"
    killed = False
    try:
        outcome = await _wait(session, timeout, signal)
        if outcome != "exited":
            await _kill(connection, marker, session)
            killed = True
        await asyncio.wait({session.closed}, timeout=_DRAIN_SECONDS)
    finally:
        if not killed and not session.exited.done():  # cancelled on the way: never leave the tree
            task = asyncio.ensure_future(_kill(connection, marker, session))
            with contextlib.suppress(BaseException):
                await asyncio.shield(task)
        channel.close()
    return _result(connection, session, outcome, cwd)


def _result(connection: SSHConnection, session: _Session, outcome: Outcome, cwd: str) -> RemoteRun:
    """The run as it ended, or the error that ended it: a lost connection (the channel closed
    without an exit status), a missing ``cwd``, what ``on_stdout`` raised."""
    if outcome == "exited" and session.exited.result() == _NO_EXIT_STATUS:
        connection.drop()
        reason = getattr(session.lost, "reason", None) or session.lost or "the channel closed"
        raise RemoteConnectionError(
            f"The SSH connection to {connection.address} was lost while a command ran on it: "
            f"{reason}"
        )
    if session.no_cwd:
        raise FileNotFoundError(errno.ENOENT, "Working directory does not exist", cwd)
    if session.error is not None:
        raise session.error
    exit_code = session.exited.result() if outcome == "exited" else None
    return RemoteRun(outcome, exit_code, bytes(session.stderr))


async def _wait(session: _Session, timeout: float | None, signal: AbortSignal | None) -> Outcome:
    waits = {"exited": session.exited, "stopped": session.stopped.wait()}
    return cast(Outcome, await first_to_finish(waits, timeout=timeout, signal=signal))


async def _kill(connection: SSHConnection, marker: str, session: _Session) -> None:
    """Kill the run's group and every process carrying its marker; wait for the channel to end."""
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(session.started.wait(), _DRAIN_SECONDS)
    ssh = await connection.connection()
    with connection.translating_errors():
        await ssh.run(_kill_script(marker, session.group), check=False)
    await asyncio.wait({session.exited}, timeout=_KILL_WAIT_SECONDS)
