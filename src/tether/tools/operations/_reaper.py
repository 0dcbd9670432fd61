"""The small process that owns one shell command, so the command's whole tree can be killed.

Run as ``python -I _reaper.py [--whole-tree] PARENT_PID SHELL -c COMMAND`` by
:class:`LocalExecOperations`
(by path, so it never imports tether and starts in milliseconds; ``psutil`` is imported only
when there is something to kill).

Why a process of its own, with ``PR_SET_CHILD_SUBREAPER``:
killing the command's process group misses every descendant that called ``setsid`` (or
``setpgid``), and ``children(recursive=True)`` on the shell misses every descendant whose parent
has exited — a double-forked daemon is re-parented to init and is nobody's descendant any more.
Polling the tree while the command runs does not close the hole either: a daemon that forks and
orphans itself between two polls is never seen. A child subreaper does close it: the kernel
re-parents every orphan of the command to this process instead of init, so at kill time the
complete tree is exactly this process's descendants, with no race. (Without ``prctl`` — not
Linux — the group kill and the descendant sweep still run; only re-parented daemons escape.)

What the caller may rely on:

- The command runs in a new process group, with this process's stdin/stdout/stderr, the
  environment this process was given (unchanged: Python's own startup may add ``LC_CTYPE`` to
  ``os.environ``, so the original block is read from ``/proc/self/environ``) and default
  dispositions for the signals Python ignores (``SIGPIPE``, ``SIGXFSZ``).
- When the command exits this process exits at once with its exit code (``128 + N`` when signal
  ``N`` killed it). Daemons the command left behind are not touched — unless ``--whole-tree``
  (background tasks): then they are killed like on ``SIGTERM`` before this process exits, so a
  task never leaves an orphan.
- ``SIGTERM``, ``SIGINT`` or ``SIGHUP`` — and the death of the parent, through
  ``PR_SET_PDEATHSIG`` — mean "kill the whole tree": it SIGKILLs the command's process group, then
  SIGKILLs every living descendant until none is left, reaps the zombies, and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Mapping
from types import FrameType

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_TERMINATING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_KILL_DEADLINE_SECONDS = 5.0
_SWEEP_PAUSE_SECONDS = 0.005


class _Terminate(Exception):
    """Raised by the signal handler: stop waiting and kill the tree."""


def _raise_terminate(signum: int, frame: FrameType | None) -> None:
    for terminating in _TERMINATING:  # one kill is enough; later requests must not interrupt it
        signal.signal(terminating, signal.SIG_IGN)
    raise _Terminate


def main(argv: list[str]) -> int:
    whole_tree = argv[1] == "--whole-tree"
    if whole_tree:
        argv = argv[1:]
    parent_pid = int(argv[1])
    command = argv[2:]
    for signum in _TERMINATING:
        signal.signal(signum, _raise_terminate)
    command_pid: int | None = None
    try:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent_pid:
            raise _Terminate  # the parent died before PR_SET_PDEATHSIG was in place
        signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINATING)
        try:
            command_pid = os.posix_spawnp(
                command[0],
                command,
                _original_environment(),
                setpgroup=0,
                setsigmask=(),
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, *_TERMINATING),
            )
        except OSError as error:
            print(f"tether: cannot run {command[0]}: {error}", file=sys.stderr)
            return 127
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINATING)
        code = _wait_for(command_pid)
        if whole_tree and _has_children():
            _kill_tree(None)
        return code
    except _Terminate:
        _kill_tree(command_pid)
        return 128 + signal.SIGKILL


def _wait_for(command_pid: int) -> int:
    """Reap children (orphans re-parented here included) until the command itself exits."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == command_pid:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code


def _kill_tree(command_pid: int | None) -> None:
    if command_pid is not None:
        with contextlib.suppress(OSError):
            os.killpg(command_pid, signal.SIGKILL)
    import psutil

    me = psutil.Process()
    deadline = time.monotonic() + _KILL_DEADLINE_SECONDS
    while True:
        killed = 0
        for process in me.children(recursive=True):
            try:
                if process.status() != psutil.STATUS_ZOMBIE:
                    process.kill()
                    killed += 1
            except psutil.Error:
                continue
        _reap_zombies()
        if killed == 0 or time.monotonic() > deadline:
            return
        time.sleep(_SWEEP_PAUSE_SECONDS)


def _has_children() -> bool:
    """Whether anything is left below this process (zombies are reaped on the way), checked
    without psutil so that a command that left nothing costs no import."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _original_environment() -> Mapping[bytes, bytes]:
    try:
        with open("/proc/self/environ", "rb") as handle:
            block = handle.read()
    except OSError:
        return os.environb
    environment: dict[bytes, bytes] = {}
    for entry in block.split(b"\0"):
        name, separator, value = entry.partition(b"=")
        if separator and name:
            environment[name] = value
    return environment


if __name__ == "__main__":
    sys.exit(main(sys.argv))
