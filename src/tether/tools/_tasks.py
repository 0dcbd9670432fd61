"""Background tasks: shell commands that outlive the call that started them, never tether.

A :class:`TaskManager` belongs to one session. :meth:`TaskManager.start` runs a command through
the same :class:`~tether.tools.operations.BashOperations` a foreground call uses — so every
process guarantee of those operations holds: on this machine each task runs under its own
reaper (a child subreaper with ``PR_SET_PDEATHSIG``), which kills the task's whole tree, daemons
that double-forked included, when it is cancelled, when its runtime limit fires, and when tether
dies for any reason (``kill -9`` too). A remote backend's ``exec`` gives its own guarantees.

What the manager adds: ids (``1``, ``2``, … per session), a status (``running | exited | killed
| timed_out | lost``), the output in a capped log file (:class:`~._task_log.TaskLog`), readers
that wait for new output or for a line matching a pattern, the limits (running tasks per session,
runtime per task) and :class:`TaskEvent` s for whoever shows or records tasks (the modes, the
terminal, the session).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tether.ai import AbortController, AbortSignal, TetherError

from ._task_log import DEFAULT_LOG_HEAD_BYTES, DEFAULT_LOG_TAIL_BYTES, LogSlice, TaskLog
from .operations._protocols import BashOperations, ExecResult

__all__ = [
    "CancelOutcome",
    "Task",
    "TaskEvent",
    "TaskLimitError",
    "TaskLimits",
    "TaskManager",
    "TaskStatus",
]

_logger = logging.getLogger(__name__)

TaskStatus = Literal["running", "exited", "killed", "timed_out", "lost"]
CancelOutcome = Literal["cancelled", "already_done", "unknown_task"]

_OUTPUT_EVENT_INTERVAL = 0.1
_OUTPUT_EVENT_BYTES = 4096
_LINE_MATCH_LIMIT = 64 * 1024
"""Bytes of one line a pattern is matched against (a longer line is matched by its start)."""
_SCAN_CHUNK_BYTES = 1024 * 1024


class TaskLimitError(TetherError):
    """A task was refused by a limit (too many running, runtime above the ceiling)."""


@dataclass(frozen=True, slots=True)
class TaskLimits:
    """Enforced by tether, whatever the model asks."""

    max_running: int = 8
    default_runtime: float = 3600.0
    """Seconds a task may run when the call names no ``timeout``."""
    max_runtime: float = 3600.0
    """The ceiling a call's ``timeout`` may ask for."""
    log_head_bytes: int = DEFAULT_LOG_HEAD_BYTES
    log_tail_bytes: int = DEFAULT_LOG_TAIL_BYTES

    def __post_init__(self) -> None:
        if self.max_running < 1:
            raise ValueError(f"max_running must be at least 1, got {self.max_running}")
        if not 0 < self.default_runtime <= self.max_runtime:
            raise ValueError(
                f"need 0 < default_runtime <= max_runtime, got {self.default_runtime} and "
                f"{self.max_runtime}"
            )


@dataclass(slots=True, eq=False)
class Task:
    """One background command; read its fields, change it only through the manager."""

    id: str
    command: str
    log_path: str
    tool_call_id: str | None = None
    pid: int | None = None
    status: TaskStatus = "running"
    exit_code: int | None = None
    started_at: float = field(default_factory=time.time)
    """Wall-clock seconds (``time.time``)."""
    ended_at: float | None = None
    runtime_limit: float | None = None
    sandboxed: bool = False
    read_offset: int = 0
    """Where the model's last ``task_output`` stopped reading."""
    error: str | None = None
    seen_end: bool = False
    """The model already learnt how it ended (its own cancel, a ``task_output`` after the end),
    so it is not announced again."""
    log: TaskLog | None = field(default=None, repr=False)
    _controller: AbortController = field(default_factory=AbortController, repr=False)
    _changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _runner: asyncio.Task[None] | None = field(default=None, repr=False)
    _cancelled: bool = field(default=False, repr=False)
    _started: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def output_bytes(self) -> int:
        return self.log.total if self.log is not None else 0

    @property
    def cancelled(self) -> bool:
        """Ended by :meth:`TaskManager.cancel` or :meth:`TaskManager.shutdown`."""
        return self._cancelled

    def runtime(self, now: float | None = None) -> float:
        """Seconds it ran (so far, while running)."""
        end = self.ended_at if self.ended_at is not None else (now or time.time())
        return max(0.0, end - self.started_at)

    def tail_text(self, max_bytes: int = 2048) -> str:
        """The end of its output (for lists and announcements), invalid UTF-8 replaced."""
        if self.log is None:
            return ""
        data = self.log.read(max(0, self.log.total - max_bytes), self.log.total).data
        return data.decode("utf-8", errors="replace")

    def read(self, start: int, end: int) -> LogSlice:
        return self.log.read(start, end) if self.log is not None else LogSlice(b"", 0)


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """``task_start`` once running, ``task_output`` (throttled) while it prints, ``task_end``."""

    type: Literal["task_start", "task_output", "task_end"]
    task: Task
    text: str = ""
    """``task_output`` only: new output since the previous event (its end if there was more)."""
    offset: int = 0
    """``task_output`` only: the stream offset where ``text`` begins."""


TaskListener = Callable[[TaskEvent], None]


class TaskManager:
    """A session's background tasks (see the module docstring)."""

    def __init__(self, *, limits: TaskLimits | None = None, log_dir: str | None = None) -> None:
        self.limits = limits or TaskLimits()
        self._log_dir = log_dir
        self._tasks: dict[str, Task] = {}
        self._next_id = 1
        self._listeners: list[TaskListener] = []

    def subscribe(self, listener: TaskListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def tasks(self) -> list[Task]:
        return list(self._tasks.values())

    def get(self, task_id: str) -> Task | None:
        return self._tasks.get(str(task_id).strip().lstrip("#"))

    @property
    def running_count(self) -> int:
        return sum(1 for task in self._tasks.values() if task.running)

    def add_ended(
        self,
        task_id: str,
        command: str,
        log_path: str,
        *,
        started_at: float,
        status: TaskStatus,
        exit_code: int | None = None,
    ) -> Task:
        """A task an earlier process of this session started (on resume): ended, or ``lost``
        when that process died while it ran. It is listed, never running."""
        if status == "running":
            raise ValueError("a task of an earlier process is never running")
        task = Task(task_id, command, log_path, status=status, started_at=started_at)
        task.exit_code = exit_code
        task.ended_at = started_at
        task.seen_end = True
        self._tasks[task_id] = task
        if task_id.isdigit():
            self._next_id = max(self._next_id, int(task_id) + 1)
        return task

    def runtime_for(self, timeout: float | None) -> float:
        """The runtime limit of a task whose call asked for ``timeout`` seconds."""
        if timeout is None:
            return self.limits.default_runtime
        if timeout > self.limits.max_runtime:
            raise TaskLimitError(
                f"timeout {timeout:g} s is above the background tasks' ceiling of "
                f"{self.limits.max_runtime:g} s; ask for at most that"
            )
        return timeout

    async def start(
        self,
        operations: BashOperations,
        command: str,
        *,
        cwd: str,
        timeout: float | None = None,
        tool_call_id: str | None = None,
        sandboxed: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> Task:
        """Start ``command``; returns once it is running (its pid known) or already over.

        Raises :class:`TaskLimitError` when a limit refuses it, ``FileNotFoundError`` when
        ``cwd`` does not exist (nothing is started).
        """
        runtime = self.runtime_for(timeout)
        if self.running_count >= self.limits.max_running:
            raise TaskLimitError(
                f"{self.running_count} background tasks are running, the most this session "
                "allows; wait for one to end or cancel one with task_cancel"
            )
        if not os.path.isdir(cwd):
            raise FileNotFoundError(2, "Working directory does not exist", cwd)
        task_id = str(self._next_id)
        self._next_id += 1
        path = os.path.join(self._directory(), f"task-{task_id}.log")
        task = Task(task_id, command, path, tool_call_id=tool_call_id, sandboxed=sandboxed)
        task.runtime_limit = runtime
        task.log = TaskLog(
            path, head_bytes=self.limits.log_head_bytes, tail_bytes=self.limits.log_tail_bytes
        )
        self._tasks[task_id] = task
        events = _OutputEvents(task, self._emit)

        def on_output(chunk: bytes) -> None:
            assert task.log is not None
            task.log.feed(chunk)
            task._changed.set()
            events.arrived()

        def on_start(pid: int) -> None:
            task.pid = pid
            task._started.set()

        task._runner = asyncio.ensure_future(
            self._run(operations, task, on_output, on_start, runtime, cwd, env, events)
        )
        await task._started.wait()
        self._emit(TaskEvent("task_start", task))
        return task

    async def wait_for_output(
        self,
        task: Task,
        offset: int,
        *,
        wait: float,
        until: re.Pattern[str] | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        """Wait up to ``wait`` seconds for output past ``offset`` (or, with ``until``, for a
        line from ``offset`` on that matches), or for the task to end, or for ``signal``.
        Returns whether a line matched (always ``False`` without ``until``)."""
        deadline = time.monotonic() + wait
        scanner = _LineScanner(until, offset) if until is not None else None
        while True:
            if scanner is not None and scanner.scan(task):
                return True
            if scanner is None and task.output_bytes > offset:
                return False
            remaining = deadline - time.monotonic()
            if not task.running or remaining <= 0 or (signal is not None and signal.aborted):
                return False
            task._changed.clear()
            waiters: set[asyncio.Future[Any]] = {asyncio.ensure_future(task._changed.wait())}
            if signal is not None:
                waiters.add(asyncio.ensure_future(signal.wait()))
            try:
                await asyncio.wait(waiters, timeout=remaining, return_when="FIRST_COMPLETED")
            finally:
                for waiter in waiters:
                    waiter.cancel()

    async def cancel(self, task_id: str) -> CancelOutcome:
        """Kill the task's whole tree and wait until it is gone."""
        task = self.get(task_id)
        if task is None:
            return "unknown_task"
        if not task.running:
            return "already_done"
        await self._stop(task)
        return "cancelled"

    async def shutdown(self) -> list[Task]:
        """Stop every running task (the session or the process ends); returns those stopped."""
        running = [task for task in self._tasks.values() if task.running]
        for task in running:
            task.seen_end = True
        await asyncio.gather(*(self._stop(task) for task in running), return_exceptions=True)
        return running

    def kill_all(self) -> None:
        """Start killing every running task now, without waiting (a process about to end)."""
        for task in self._tasks.values():
            if task.running:
                task._cancelled = True
                task.seen_end = True
                task._controller.abort("cancelled")

    async def _stop(self, task: Task) -> None:
        task._cancelled = True
        task._controller.abort("cancelled")
        if task._runner is not None:
            await asyncio.shield(task._runner)

    async def _run(
        self,
        operations: BashOperations,
        task: Task,
        on_output: Callable[[bytes], None],
        on_start: Callable[[int], None],
        runtime: float,
        cwd: str,
        env: Mapping[str, str] | None,
        events: _OutputEvents,
    ) -> None:
        options: dict[str, Any] = {}
        if _reports_pid(operations):
            options.update(on_start=on_start, kill_leftovers=True)
        else:
            task._started.set()
        try:
            result = await operations.exec(
                task.command,
                cwd=cwd,
                on_output=on_output,
                timeout=runtime,
                signal=task._controller.signal,
                env=env,
                **options,
            )
        except Exception as error:  # a task's failure is its status, never the session's
            _logger.warning("background task %s failed", task.id, exc_info=True)
            result = None
            task.error = f"{type(error).__name__}: {error}"
        finally:
            task._started.set()
        _finish(task, result)
        events.flush()
        if task.log is not None:
            task.log.close()
        task._changed.set()
        self._emit(TaskEvent("task_end", task))

    def _emit(self, event: TaskEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                _logger.exception("a task listener failed on %s", event.type)

    def _directory(self) -> str:
        if self._log_dir is None:
            self._log_dir = tempfile.mkdtemp(prefix="tether-tasks-")  # 0700
        else:
            os.makedirs(self._log_dir, mode=0o700, exist_ok=True)
        return self._log_dir


def _finish(task: Task, result: ExecResult | None) -> None:
    task.ended_at = time.time()
    if result is None:
        task.status = "lost"
    elif result.timed_out:
        task.status = "timed_out"
    elif result.aborted:
        task.status = "killed"
    else:
        task.status = "exited"
        task.exit_code = result.exit_code


def _reports_pid(operations: BashOperations) -> bool:
    """Whether ``exec`` takes ``on_start(pid)`` and ``kill_leftovers`` (as
    :class:`~tether.tools.operations.LocalExecOperations` does)."""
    try:
        parameters = inspect.signature(operations.exec).parameters
        return "on_start" in parameters and "kill_leftovers" in parameters
    except (TypeError, ValueError):
        return False


class _LineScanner:
    """Finds the first line from ``offset`` on that matches, reading each new byte once."""

    def __init__(self, pattern: re.Pattern[str], offset: int) -> None:
        self._pattern = pattern
        self._position = offset
        self._partial = b""

    def scan(self, task: Task) -> bool:
        end = task.output_bytes
        if end <= self._position:
            return self._matches_partial(task)
        while self._position < end:
            chunk_end = min(end, self._position + _SCAN_CHUNK_BYTES)
            data = self._partial + task.read(self._position, chunk_end).data
            self._position = chunk_end
            lines = data.split(b"\n")
            self._partial = lines.pop()[:_LINE_MATCH_LIMIT]
            if any(self._matches(line) for line in lines):
                return True
        return self._matches_partial(task)

    def _matches_partial(self, task: Task) -> bool:
        """A line still being written counts once it matches (a prompt without a newline)."""
        return bool(self._partial) and self._matches(self._partial)

    def _matches(self, line: bytes) -> bool:
        text = line[:_LINE_MATCH_LIMIT].decode("utf-8", errors="replace").rstrip("\r")
        return self._pattern.search(text) is not None


class _OutputEvents:
    """``task_output`` events at most every 100 ms while a task prints, each with what is new."""

    def __init__(self, task: Task, emit: Callable[[TaskEvent], None]) -> None:
        self._task = task
        self._emit = emit
        self._sent = 0
        self._timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()

    def arrived(self) -> None:
        if self._timer is None:
            self._timer = self._loop.call_later(_OUTPUT_EVENT_INTERVAL, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        end = self._task.output_bytes
        if end <= self._sent:
            return
        start = max(self._sent, end - _OUTPUT_EVENT_BYTES)
        with contextlib.suppress(OSError):
            text = self._task.read(start, end).data.decode("utf-8", errors="replace")
            self._emit(TaskEvent("task_output", self._task, text, start))
        self._sent = end
