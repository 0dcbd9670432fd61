"""The model's side of background tasks: ``bash(background=true)`` and the task tools.

``task_output(task_id, since=None, wait_s=0, until=None)`` reads what is new since the caller's
last read (or from a stream offset), waiting up to ``wait_s`` seconds for new output or, with
``until``, for a line matching that regular expression; ``task_list()`` lists this session's tasks;
``task_cancel(task_id)`` kills one task's whole tree. None of them needs approval: they only
read or stop what this session itself started, and a session sees only its own tasks (an id
of another session's task is ``unknown_task``, exactly like an id that never existed).

Every result is capped like a ``bash`` result (the last 2000 lines / 50 KiB); a cut names the
task's log file and the offset to read on from.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

from tether.agent import CAPS_OWN_RESULT, AgentToolResult, ToolError
from tether.ai import AbortSignal, TextContent
from tether.gate import Governance, Review

from ._definition import ToolDefinition, ToolRun, run_as_execute
from ._tasks import Task, TaskLimitError, TaskManager
from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    truncate_tail,
)
from .operations._protocols import BashOperations

__all__ = [
    "TASK_TOOL_NAMES",
    "create_task_tools",
    "describe_task",
    "start_background_task",
    "task_end_announcement",
]

TASK_TOOL_NAMES = ("task_output", "task_list", "task_cancel")
FIRST_OUTPUT_SECONDS = 1.0
"""How long a background start waits for the first lines (less when the command ends first)."""
MAX_WAIT_SECONDS = 600.0
UNTIL_DEFAULT_WAIT_SECONDS = 30.0
"""``task_output`` with ``until`` and no ``wait_s`` waits this long for the line."""
_FIRST_LINES = 20
_FIRST_BYTES = 4096
_READ_MARGIN_BYTES = 4096


async def start_background_task(
    tasks: TaskManager,
    operations: BashOperations,
    command: str,
    *,
    cwd: str,
    timeout: float | None,
    tool_call_id: str,
    sandboxed: bool,
    signal: AbortSignal,
) -> AgentToolResult:
    """Start ``command`` as a task; the result has its id, pid and first lines of output."""
    try:
        task = await tasks.start(
            operations,
            command,
            cwd=cwd,
            timeout=timeout,
            tool_call_id=tool_call_id,
            sandboxed=sandboxed,
        )
    except TaskLimitError as error:
        raise ToolError(f"Background task not started: {error}.") from None
    await tasks.wait_for_output(task, 0, wait=FIRST_OUTPUT_SECONDS, until=_NEVER, signal=signal)
    data = task.read(0, task.output_bytes).data[: _FIRST_BYTES * 2]
    lines = data.split(b"\n")
    shown = b"\n".join(lines[:_FIRST_LINES])[:_FIRST_BYTES]
    task.read_offset = len(shown)
    text = shown.decode("utf-8", errors="replace").rstrip("\n")
    more = task.output_bytes > len(shown)
    pid = f"pid {task.pid}" if task.pid is not None else "no local pid"
    if task.running:
        head = (
            f"Started background task {task.id} ({pid}); it runs until it ends, "
            f'task_cancel(task_id="{task.id}") stops it, or its limit of '
            f"{task.runtime_limit:g} s kills it."
        )
    else:
        task.seen_end = True
        head = f"Background task {task.id} ({pid}) ended: {describe_task(task)}."
    parts = [head, f"First output:\n{text}" if text else "No output yet."]
    if more or task.running:
        parts.append(f'Read on with task_output(task_id="{task.id}").')
    return AgentToolResult([TextContent("\n\n".join(parts))], _details(task))


def create_task_tools(tasks: TaskManager) -> list[ToolDefinition]:
    """``task_output``, ``task_list`` and ``task_cancel`` over ``tasks``."""
    return [_task_output_tool(tasks), _task_list_tool(tasks), _task_cancel_tool(tasks)]


def describe_task(task: Task) -> str:
    """``running for 3 s`` / ``exited with code 1 after 42 s`` / ``killed after 2 s`` / …"""
    runtime = f"{task.runtime():.0f} s" if task.runtime() >= 10 else f"{task.runtime():.1f} s"
    if task.status == "running":
        return f"running for {runtime}"
    if task.status == "exited":
        return f"exited with code {task.exit_code} after {runtime}"
    if task.status == "timed_out":
        return f"killed by its runtime limit of {task.runtime_limit:g} s"
    if task.status == "killed":
        return f"killed (cancelled) after {runtime}"
    reason = f": {task.error}" if task.error else ""
    return f"lost: tether stopped while it ran (it is not running now){reason}"


def task_end_announcement(task: Task, max_bytes: int = 400) -> str:
    """What the model is told at its next turn about a task that ended meanwhile."""
    tail = task.tail_text(max_bytes).strip("\n")
    lines = tail.splitlines()[-5:]
    shown = "\n".join(lines) if lines else "(no output)"
    code = f" {task.exit_code}" if task.status == "exited" else ""
    status = "exited" if task.status == "exited" else task.status.replace("_", " ")
    return (
        f"[tether] Background task {task.id} ({_short(task.command)}) {status}{code} after "
        f"{task.runtime():.0f} s; last lines:\n{shown}"
    )


_NEVER = re.compile(r"(?!)")
"""A pattern no line matches: wait for the end (or the time) only."""


def _task_output_tool(tasks: TaskManager) -> ToolDefinition:
    async def execute(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        task = _known_task(tasks, params.get("task_id"))
        since = params.get("since")
        if since is not None and (
            not isinstance(since, int) or isinstance(since, bool) or since < 0
        ):
            raise ToolError(f"since must be a byte offset of 0 or more, got {since!r}.")
        start = task.read_offset if since is None else since
        until = _pattern(params.get("until"))
        wait = _wait_seconds(params.get("wait_s"), until is not None)
        matched = False
        if wait > 0 or until is not None:
            scan_from = start if since is not None or until is None else 0
            matched = await tasks.wait_for_output(
                task, scan_from, wait=wait, until=until, signal=signal
            )
        if not task.running:
            task.seen_end = True
        return _output_read(
            task, start, newest=since is None, until=until, matched=matched, wait=wait
        )

    return _definition(
        "task_output",
        "Task output",
        "Read a background task's new output (since your last read, or from byte offset "
        "`since`), with its status (running, exited, killed, timed_out, lost) and exit code. "
        "`wait_s` waits up to that many seconds for new output; `until` (a regular expression) "
        'returns as soon as an output line matches, e.g. "Listening on" (waiting '
        f"{UNTIL_DEFAULT_WAIT_SECONDS:g} s when no wait_s is given). Output is cut to the last "
        f"{DEFAULT_MAX_LINES} lines or {format_size(DEFAULT_MAX_BYTES)}; the full log is named.",
        {
            "task_id": {"type": "string", "description": "The id bash(background=true) gave."},
            "since": {
                "type": "integer",
                "minimum": 0,
                "description": "Byte offset to read from (default: where your last read ended).",
            },
            "wait_s": {
                "type": "number",
                "minimum": 0,
                "maximum": MAX_WAIT_SECONDS,
                "description": "Seconds to wait for new output (default 0: answer at once).",
            },
            "until": {
                "type": "string",
                "description": "A regular expression: wait until a line of the output (from "
                "since, or from the start) matches it.",
            },
        },
        ["task_id"],
        execute,
        "Read a background task's output and status",
    )


def _output_read(
    task: Task,
    start: int,
    *,
    newest: bool,
    until: re.Pattern[str] | None,
    matched: bool,
    wait: float,
) -> AgentToolResult:
    """``task_output``'s answer: the output from ``start`` on (capped, the ``newest`` kept when
    reading on from the last read), the status, whether ``until`` matched; the task's read
    offset moves to where this read ends."""
    text, notice, end = _capped_range(task, start, task.output_bytes, newest=newest)
    task.read_offset = end
    lines = [f"Task {task.id}: {describe_task(task)}."]
    if until is not None:
        lines.append(
            f"A line matched {until.pattern!r}."
            if matched
            else f"No line matched {until.pattern!r} (waited up to {wait:g} s)."
        )
    body = text if text else "(no new output)"
    footer = f"Output bytes {start}-{end}; the next read starts at {end}."
    content = "\n\n".join(part for part in (" ".join(lines), body, notice, footer) if part)
    details = {
        **_details(task),
        "since": start,
        "next_offset": end,
        "matched": matched,
        "truncated": notice is not None,
    }
    return AgentToolResult([TextContent(content)], details)


def _task_list_tool(tasks: TaskManager) -> ToolDefinition:
    async def execute(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        listed = tasks.tasks()
        if not listed:
            return AgentToolResult([TextContent("No background tasks in this session.")], {})
        now = time.time()
        rows = [
            f"{task.id}  {task.status:<9}  {task.runtime(now):>7.1f} s  "
            f"{format_size(task.output_bytes):>9}  {_short(task.command, 120)}"
            for task in listed
        ]
        header = "id  status     runtime    output     command"
        entries = [
            {
                "task_id": task.id,
                "command": task.command,
                "status": task.status,
                "exit_code": task.exit_code,
                "runtime_s": round(task.runtime(now), 3),
                "output_bytes": task.output_bytes,
            }
            for task in listed
        ]
        text = "\n".join([header, *rows])
        return AgentToolResult([TextContent(text)], {"tasks": entries})

    return _definition(
        "task_list",
        "Task list",
        "List this session's background tasks: id, status, runtime, output size, command.",
        {},
        [],
        execute,
        "List background tasks",
    )


def _task_cancel_tool(tasks: TaskManager) -> ToolDefinition:
    async def execute(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        task_id = params.get("task_id")
        if not isinstance(task_id, str) or not task_id.strip():
            raise ToolError("task_id must be a non-empty string.")
        task = tasks.get(task_id)
        if task is not None and task.running:
            task.seen_end = True  # the model hears the end here, not again at its next turn
        outcome = await tasks.cancel(task_id)
        if outcome == "unknown_task":
            text = f"unknown_task: this session has no background task {task_id!r}."
        elif task is not None and outcome == "already_done":
            text = f"already_done: task {task.id} {describe_task(task)}."
        else:
            assert task is not None
            text = f"cancelled: task {task.id} and every process it started were killed."
        return AgentToolResult(
            [TextContent(text)], {"outcome": outcome, **(_details(task) if task else {})}
        )

    return _definition(
        "task_cancel",
        "Task cancel",
        "Stop a background task: kill it and every process it started. Answers cancelled, "
        "already_done or unknown_task.",
        {"task_id": {"type": "string", "description": "The id bash(background=true) gave."}},
        ["task_id"],
        execute,
        "Stop a background task",
    )


def _definition(
    name: str,
    label: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    run: ToolRun,
    snippet: str,
) -> ToolDefinition:
    """A task tool: every parameter shown to the reviewer, no approval needed, its own caps."""
    reviewed = {key: {**spec, "x-review": Review.INCLUDE.value} for key, spec in properties.items()}
    return ToolDefinition(
        name=name,
        label=label,
        description=description,
        parameters={"type": "object", "properties": reviewed, "required": required},
        execute=run_as_execute(run),
        prompt_snippet=snippet,
        metadata={CAPS_OWN_RESULT: True},
        governance=Governance(),
    )


def _known_task(tasks: TaskManager, task_id: object) -> Task:
    if not isinstance(task_id, str) or not task_id.strip():
        raise ToolError("task_id must be a non-empty string.")
    task = tasks.get(task_id)
    if task is None:
        raise ToolError(
            f"unknown_task: this session has no background task {task_id!r} (task_list shows them)."
        )
    return task


def _pattern(until: object) -> re.Pattern[str] | None:
    if until is None or until == "":
        return None
    if not isinstance(until, str):
        raise ToolError(f"until must be a regular expression string, got {until!r}.")
    try:
        return re.compile(until)
    except re.error as error:
        raise ToolError(f"until is not a valid regular expression ({error}): {until!r}") from None


def _wait_seconds(wait_s: object, has_until: bool) -> float:
    if wait_s is None or wait_s == 0:
        return UNTIL_DEFAULT_WAIT_SECONDS if has_until else 0.0
    if (
        not isinstance(wait_s, int | float)
        or isinstance(wait_s, bool)
        or not math.isfinite(wait_s)
        or not 0 <= wait_s <= MAX_WAIT_SECONDS
    ):
        raise ToolError(
            f"wait_s must be between 0 and {MAX_WAIT_SECONDS:g} seconds, got {wait_s!r}."
        )
    return float(wait_s)


def _capped_range(task: Task, start: int, end: int, *, newest: bool) -> tuple[str, str | None, int]:
    """The output ``[start, end)`` cut like a bash result and read in bounded memory, a notice
    when cut, and where the next read starts. ``newest``: keep the end (the caller wants what
    is new); otherwise keep the beginning, so reading on with ``since`` pages through the log."""
    if end <= start:
        return "", None, max(start, end)
    window = DEFAULT_MAX_BYTES + _READ_MARGIN_BYTES
    read_from, read_to = (
        (max(start, end - window), end) if newest else (start, min(end, start + window))
    )
    piece = task.read(read_from, read_to)
    raw = piece.data
    if newest and read_from > start:
        newline = raw.find(b"\n")
        if 0 <= newline < len(raw) - 1:
            raw = raw[newline + 1 :]
    text = raw.decode("utf-8", errors="replace")
    notices = []
    if piece.dropped:
        notices.append(f"{format_size(piece.dropped)} of it were dropped from the capped log")
    if newest:
        cut = truncate_tail(text)
        if read_from > start or cut.truncated:
            skipped = (end - start) - piece.dropped - len(cut.content.encode("utf-8"))
            notices.append(
                f"showing the last {cut.output_lines} lines; {format_size(max(0, skipped))} "
                f"before them are in the log {task.log_path} (task_output with since={start} "
                "pages through them from the start)"
            )
        next_offset = end
    else:
        cut = truncate_head(text)
        shown = len(cut.content.encode("utf-8")) if cut.truncated or read_to < end else None
        next_offset = end if shown is None else read_from + piece.dropped + shown
        if shown is not None:
            notices.append(
                f"showing {cut.output_lines} lines; bytes {next_offset}-{end} follow "
                f"(task_output with since={next_offset}; full log {task.log_path})"
            )
    content = cut.content.rstrip("\n")
    return content, ("[" + "; ".join(notices) + "]" if notices else None), next_offset


def _details(task: Task) -> dict[str, Any]:
    return {
        "task_id": task.id,
        "pid": task.pid,
        "status": task.status,
        "exit_code": task.exit_code,
        "log_path": task.log_path,
        "output_bytes": task.output_bytes,
        "background": True,
    }


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
