"""``LocalExecOperations``: shell commands on this machine, with process trees that always die.

Each command runs as ``bash -c COMMAND`` (``/bin/sh`` when there is no bash) under a small owner
process, :mod:`._reaper`, started in a new session. The reaper is a child subreaper, so every
descendant of the command — daemons that called ``setsid`` and double-forked included — stays
its descendant; asking it to stop (``SIGTERM``) kills the whole tree. Its module docstring says
why that is the reliable choice and what it guarantees.

With a :class:`~._sandbox.BubblewrapSandbox` the reaper runs ``bwrap ... -- bash -c COMMAND``:
the reaper stays *outside* the sandbox. It then needs no change and no access to anything inside;
what it kills is ``bwrap`` and everything below it, which it sees as host processes. Inside, the
sandbox's PID namespace adds a second guarantee: the namespace's init dies with ``bwrap``
(``--die-with-parent``) and the kernel kills every process left in the namespace. (A reaper
inside would see only namespace PIDs, could not check its real parent, and could be reached
only through ``bwrap``, which does not forward signals.) In the sandbox the command's background
processes end when the command does — the namespace goes with it.

Output: one pipe carries both stdout and stderr (merged in arrival order) and is read from the
event loop as data arrives, so memory stays bounded by what ``on_output`` keeps. A daemon may
inherit the pipe and hold it open after the command exits, so reading stops a short drain period
after the command exits instead of waiting for an end-of-file that may never come. Such daemons
are left alone on a normal exit; only timeout and abort kill the tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
import shutil
import signal as signals
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import BinaryIO, Literal, cast

from tether.ai import AbortSignal, first_to_finish

from ._protocols import ExecResult, OutputFile
from ._sandbox import BubblewrapSandbox
from ._sandbox_workspace import MOUNT_LIMIT, SCAN_ENTRY_LIMIT

__all__ = ["LocalExecOperations", "reaped_argv"]

_REAPER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_reaper.py")
_READ_CHUNK_BYTES = 64 * 1024
_DRAIN_SECONDS = 0.15
"""How long to keep reading after the command exited (or its tree was killed) before giving up
on an end-of-file that a daemon holding the pipe may never send."""
_REAPER_GRACE_SECONDS = 8.0
"""How long the reaper gets to kill the tree (it gives up itself after 5 s) before the fallback."""

_Outcome = Literal["exited", "timed_out", "aborted"]


def reaped_argv(argv: Sequence[str], *, whole_tree: bool = False) -> list[str]:
    """``argv`` run under the reaper (:mod:`._reaper`), for a process started with
    ``start_new_session=True`` whose whole tree must die with it: a ``SIGTERM`` to it, or the
    death of the thread that started it, kills every descendant (``setsid`` ones included). The
    command keeps the reaper's stdin, stdout, stderr, working directory and environment."""
    tree = ["--whole-tree"] if whole_tree else []  # also what it leaves running when it exits
    return [sys.executable, "-I", _REAPER_SCRIPT, *tree, str(os.getpid()), *argv]


class LocalExecOperations:
    """``exec``: run a shell command in its own session; timeout and abort kill its whole tree.
    ``create_output_file``: a temp file for output too large to show.

    With ``sandbox``, every command runs inside it (see the module docstring); ``sandbox`` is
    kept as an attribute so a tool can tell that its commands are sandboxed.
    """

    def __init__(self, *, sandbox: BubblewrapSandbox | None = None) -> None:
        self.sandbox = sandbox

    def create_output_file(self, prefix: str) -> OutputFile:
        """A new file ``PREFIX*.log`` in this machine's temp directory (outside any sandbox)."""
        descriptor, path = tempfile.mkstemp(prefix=prefix, suffix=".log")
        return _LocalOutputFile(path, os.fdopen(descriptor, "wb"))

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        on_output: Callable[[bytes], None],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
        env: Mapping[str, str] | None = None,
        on_start: Callable[[int], None] | None = None,
        kill_leftovers: bool = False,
    ) -> ExecResult:
        """Run ``command`` and stream its merged output to ``on_output`` chunk by chunk.

        ``on_start(pid)`` is called once the command's owner process (the root of its tree)
        runs; ``kill_leftovers`` kills what the command left running when it exits (both for
        background tasks, :mod:`tether.tools._tasks`). ``env`` replaces the environment
        (``None`` inherits this process's). A missing ``cwd`` raises ``FileNotFoundError``
        whose ``filename`` is ``cwd``, before anything is started.
        An exception raised by ``on_output`` is re-raised once the command has finished.
        """
        if not os.path.isdir(cwd):
            raise FileNotFoundError(errno.ENOENT, "Working directory does not exist", cwd)
        if signal is not None and signal.aborted:
            return ExecResult(None, aborted=True)
        argv = [shutil.which("bash") or "/bin/sh", "-c", command]
        environment = dict(env) if env is not None else None
        task = _TaskOptions(on_start, kill_leftovers)
        if self.sandbox is None:
            return await self._run(argv, cwd, environment, on_output, timeout, signal, task)
        environment = self.sandbox.environment(os.environ if env is None else env)
        with self.sandbox.command(argv, cwd=cwd) as sandboxed:
            result = await self._run(
                sandboxed.argv, cwd, environment, on_output, timeout, signal, task
            )
        notices = []
        if sandboxed.quarantined:
            notices.append(_quarantine_notice(self.sandbox.workspace, sandboxed.quarantined))
        if not sandboxed.scan.complete:
            notices.append(
                f"The sandbox checked only part of the workspace (at most {SCAN_ENTRY_LIMIT} "
                f"entries and {MOUNT_LIMIT} protected files and secrets): those beyond were "
                "not protected or masked for this command."
            )
        return dataclasses.replace(result, notice="\n".join(notices)) if notices else result

    async def _run(
        self,
        argv: list[str],
        cwd: str,
        environment: dict[str, str] | None,
        on_output: Callable[[bytes], None],
        timeout: float | None,
        signal: AbortSignal | None,
        task: _TaskOptions,
    ) -> ExecResult:
        read_fd, write_fd = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                *reaped_argv(argv, whole_tree=task.kill_leftovers),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=environment,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        reader = _PipeReader(read_fd, on_output)
        try:
            if task.on_start is not None:
                task.on_start(process.pid)
            outcome = await _wait_for_exit(process, timeout, signal)
            if outcome != "exited":
                await _kill_tree(process)
            await reader.wait_for_eof(_DRAIN_SECONDS)
        finally:
            reader.close()
            if process.returncode is None:  # cancelled or failed on the way: never leave the tree
                _ask_reaper_to_kill(process)
        if reader.error is not None:
            raise reader.error
        if outcome == "exited":
            return ExecResult(process.returncode)
        return ExecResult(None, timed_out=outcome == "timed_out", aborted=outcome == "aborted")


@dataclasses.dataclass(frozen=True, slots=True)
class _TaskOptions:
    on_start: Callable[[int], None] | None = None
    kill_leftovers: bool = False


class _LocalOutputFile:
    def __init__(self, path: str, handle: BinaryIO) -> None:
        self.path = path
        self._handle = handle

    def write(self, data: bytes) -> None:
        self._handle.write(data)

    def close(self) -> None:
        self._handle.close()


async def _wait_for_exit(
    process: asyncio.subprocess.Process, timeout: float | None, signal: AbortSignal | None
) -> _Outcome:
    outcome = await first_to_finish({"exited": process.wait()}, timeout=timeout, signal=signal)
    return cast(_Outcome, outcome)


def _ask_reaper_to_kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signals.SIGTERM)


async def _kill_tree(process: asyncio.subprocess.Process) -> None:
    """Have the reaper kill the tree and wait for it; sweep from here if it does not respond."""
    _ask_reaper_to_kill(process)
    try:
        await asyncio.wait_for(process.wait(), _REAPER_GRACE_SECONDS)
    except TimeoutError:
        _sweep(process)
        await process.wait()


def _sweep(process: asyncio.subprocess.Process) -> None:
    """Fallback for a reaper that does not respond: kill what is still below it, then it."""
    import psutil

    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    for descendant in descendants:
        with contextlib.suppress(psutil.Error):
            descendant.kill()
    with contextlib.suppress(ProcessLookupError):
        process.kill()


class _PipeReader:
    """Reads the output pipe from the event loop and hands on each chunk as it arrives.

    If ``on_output`` raises, the error is kept and the pipe is still drained (and discarded),
    so the command never blocks on a full pipe.
    """

    def __init__(self, fd: int, on_output: Callable[[bytes], None]) -> None:
        self._fd = fd
        self._on_output = on_output
        self._loop = asyncio.get_running_loop()
        self._eof: asyncio.Future[None] = self._loop.create_future()
        self.error: Exception | None = None
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._read)

    def _read(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_CHUNK_BYTES)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return
        if self.error is None:
            try:
                self._on_output(chunk)
            except Exception as error:
                self.error = error

    async def wait_for_eof(self, timeout: float) -> None:
        await asyncio.wait({self._eof}, timeout=timeout)

    def close(self) -> None:
        """Stop reading and close the pipe (a daemon may still hold its other end)."""
        if self._fd < 0:
            return
        self._loop.remove_reader(self._fd)
        os.close(self._fd)
        self._fd = -1
        if not self._eof.done():
            self._eof.set_result(None)


def _quarantine_notice(workspace: str, moved: list[tuple[str, str]]) -> str:
    """What the model is told about protected paths its sandboxed command created."""

    def shown(path: str) -> str:
        return os.path.relpath(path, workspace)

    listed = ", ".join(
        f"{shown(path)} → {shown(target)}" if target else f"{shown(path)} (removed)"
        for path, target in moved
    )
    return (
        "The command created protected paths, which make programs run code later outside the "
        f"sandbox; they were moved aside: {listed}. Creating such a file is for a person: ask "
        "them to do it outside the sandbox."
    )
