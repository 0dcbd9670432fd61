"""Background tasks in the session file: each task's start and end, and tasks lost to a crash.

:func:`record_tasks` writes a ``custom`` entry ``task_start`` (id, command, pid, the call that
started it, how its start was approved, the log path) when a task starts and ``task_end``
(status, exit code, runtime, log path) when it ends. A process that died with tasks running
wrote no ``task_end`` for them; :func:`settle_lost_tasks`, run when the session is continued,
gives each a ``task_end`` with status ``lost`` and lists it in the new process's
:class:`~tether.tools.TaskManager` as ``lost`` — never as running (its tree died with that
process: each task's reaper kills it when its parent dies).
"""

from __future__ import annotations

import calendar
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from tether.gate import Gate
from tether.tools import TaskEvent, TaskManager, TaskStatus

from ._entries import CustomEntry
from ._errors import SessionError

if TYPE_CHECKING:
    from ._session import Session

__all__ = ["TASK_END", "TASK_START", "record_tasks", "settle_lost_tasks"]

TASK_START = "task_start"
TASK_END = "task_end"


def record_tasks(session: Session, tasks: TaskManager, gate: Gate | None) -> Callable[[], None]:
    """Subscribe ``session`` to ``tasks``' starts and ends; returns the unsubscribe function."""

    def on_event(event: TaskEvent) -> None:
        task = event.task
        if event.type == "task_start":
            data: dict[str, Any] = {
                "task_id": task.id,
                "command": task.command,
                "pid": task.pid,
                "tool_call_id": task.tool_call_id,
                "approval": _approval(gate, task.tool_call_id),
                "sandboxed": task.sandboxed,
                "runtime_limit_s": task.runtime_limit,
                "log_path": task.log_path,
            }
        elif event.type == "task_end":
            data = {
                "task_id": task.id,
                "status": task.status,
                "exit_code": task.exit_code,
                "runtime_s": round(task.runtime(), 3),
                "output_bytes": task.output_bytes,
                "log_path": task.log_path,
            }
        else:
            return
        # a failed write is kept in session.write_error; the run stops before its next tool
        with contextlib.suppress(SessionError):
            session.append(CustomEntry(custom_type=event.type, data=data))

    return tasks.subscribe(on_event)


def settle_lost_tasks(session: Session, tasks: TaskManager) -> list[str]:
    """List the tasks earlier processes of this session started in ``tasks`` (ended, with the
    status recorded; those left running as ``lost``, recorded so now); returns the lost ids."""
    started: dict[str, dict[str, Any]] = {}
    ended: dict[str, dict[str, Any]] = {}
    for entry in session.entries:
        if not isinstance(entry, CustomEntry) or not isinstance(entry.data, dict):
            continue
        task_id = str(entry.data.get("task_id", ""))
        if entry.custom_type == TASK_START:
            started[task_id] = {**entry.data, "timestamp": entry.timestamp}
        elif entry.custom_type == TASK_END:
            ended[task_id] = entry.data
    lost = []
    for task_id, data in started.items():
        end = ended.get(task_id)
        status = str(end.get("status", "lost")) if end is not None else "lost"
        code = end.get("exit_code") if end is not None else None
        tasks.add_ended(
            task_id,
            str(data.get("command", "")),
            str(data.get("log_path", "")),
            started_at=_seconds(data.get("timestamp")),
            status=cast(TaskStatus, status) if status in _ENDED else "lost",
            exit_code=code if isinstance(code, int) else None,
        )
        if end is not None:
            continue
        session.append(
            CustomEntry(
                custom_type=TASK_END,
                data={
                    "task_id": task_id,
                    "status": "lost",
                    "exit_code": None,
                    "log_path": data.get("log_path"),
                    "note": "tether stopped while it ran; its process tree died with tether",
                },
            )
        )
        lost.append(task_id)
    return lost


_ENDED = frozenset({"exited", "killed", "timed_out", "lost"})


def _approval(gate: Gate | None, tool_call_id: str | None) -> str | None:
    if gate is None or tool_call_id is None:
        return None
    for record in reversed(gate.records):
        if record.tool_call_id == tool_call_id:
            return f"{record.outcome} by {record.decided_by}: {record.reason}"
    return None


def _seconds(timestamp: object) -> float:
    if not isinstance(timestamp, str) or not timestamp:
        return time.time()
    try:
        parsed = time.strptime(timestamp.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return time.time()
    return float(calendar.timegm(parsed))
