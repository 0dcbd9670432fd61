"""RPC mode: JSON lines both ways, so an editor or another program can drive tether.

In (stdin), one command per line: ``prompt``, ``steer``, ``follow_up`` (each with ``text``),
``abort``, ``approval`` (``request_id``, ``decision``), ``task_cancel`` (``task_id``),
``get_state``, and for durable runs ``run_pending`` (``run``) and ``run_approval`` (``run``,
``call``, ``decision``, ``digest``; see :mod:`._rpc_runs`). Out (stdout): the session
header, every agent event, each background task's ``task_start`` / ``task_output`` /
``task_end``, an ``approval_request`` whenever the gate
needs a person, and a ``response`` to each command (``success``, and ``error`` saying what was
wrong). A line that is not a valid command gets an error response; nothing on stdin can crash
the loop. At the end of input the current run finishes, with approvals still pending denied,
and background tasks still running are stopped.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import threading
from typing import Any, TextIO, get_args

from tether.agent import AgentEvent
from tether.ai import decode_json_line
from tether.gate import ApprovalRequest, Decision
from tether.runtime import RunSettings, build_runtime

from ._event_json import dumps, event_to_json, task_event_to_json
from ._print_mode import session_header
from ._rpc_runs import RUN_COMMANDS, finish_run_commands, handle_run_command

__all__ = ["RpcApprover", "run_rpc"]

DECISIONS = get_args(Decision)


class _Output:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, data: dict[str, Any]) -> None:
        self.stream.write(dumps(data) + "\n")
        self.stream.flush()


class RpcApprover:
    """Asks the program on the other end: an ``approval_request`` out, an ``approval`` in."""

    def __init__(self, output: _Output) -> None:
        self.output = output
        self.pending: dict[str, asyncio.Future[Decision]] = {}
        self.closed = False
        """Set at the end of input: nobody is left to answer, later requests are denied."""
        self._ids = itertools.count(1)

    async def confirm(self, request: ApprovalRequest) -> Decision:
        if self.closed:
            return "deny_once"
        request_id = f"approval-{next(self._ids)}"
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.output.write(
            {
                "type": "approval_request",
                "request_id": request_id,
                "tool_name": request.tool_name,
                "args": dict(request.args),
                "reason": request.reason,
                "digest": request.digest,
                "tool_call_id": request.tool_call_id,
            }
        )
        try:
            return await future
        finally:
            self.pending.pop(request_id, None)

    def answer(self, request_id: str, decision: Decision) -> bool:
        future = self.pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    def deny_all(self) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_result("deny_once")


async def run_rpc(
    settings: RunSettings, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout
) -> int:
    output = _Output(stdout)
    approver = RpcApprover(output)
    runtime = build_runtime(settings, approver)
    output.write(session_header(runtime))

    def write_event(event: AgentEvent) -> None:
        output.write(event_to_json(event))

    runtime.agent.subscribe(write_event)
    runtime.tasks.subscribe(lambda event: output.write(task_event_to_json(event)))
    lines = _read_lines(stdin)
    running: asyncio.Task[Any] | None = None
    try:
        while True:
            line = await lines.get()
            if line is None:
                break
            if not line.strip():
                continue
            running = _handle(line, runtime, approver, output, running)
        approver.closed = True
        approver.deny_all()
        if running is not None:
            await asyncio.gather(running, return_exceptions=True)
        await finish_run_commands()
        await runtime.stop_tasks()
    finally:
        runtime.close()
    return 0


def _handle(
    line: str,
    runtime: Any,
    approver: RpcApprover,
    output: _Output,
    running: asyncio.Task[Any] | None,
) -> asyncio.Task[Any] | None:
    """Answer one command line; returns the prompt's run in progress (a new one when this
    line started one)."""
    command = _command(line, output)
    if command is None:
        return running
    kind = command["type"]
    busy = running is not None and not running.done()
    if kind in ("prompt", "steer", "follow_up"):
        started = _take_text(kind, command.get("text"), runtime, output, busy=busy)
        return started if started is not None else running
    if kind == "abort":
        runtime.agent.abort()
        approver.deny_all()
        output.write(_success(kind))
    elif kind == "approval":
        request_id, decision = command.get("request_id"), command.get("decision")
        if not isinstance(decision, str) or decision not in DECISIONS:
            output.write(_failure(kind, f'"decision" must be one of {", ".join(DECISIONS)}'))
        elif not isinstance(request_id, str) or not approver.answer(request_id, decision):  # type: ignore[arg-type]
            output.write(_failure(kind, f"no pending approval request {request_id!r}"))
        else:
            output.write(_success(kind))
    elif kind == "task_cancel":
        task_id = command.get("task_id")
        if not isinstance(task_id, str) or not task_id:
            output.write(_failure(kind, '"task_id" must be a non-empty string'))
        else:
            _cancel_task(runtime, output, task_id)
    elif kind == "get_state":
        output.write(_success(kind, state=_state(runtime, approver, busy)))
    elif kind in RUN_COMMANDS:
        handle_run_command(kind, command, output.write)
    else:
        known = (
            "prompt, steer, follow_up, abort, approval, task_cancel, get_state, "
            "run_pending, run_approval"
        )
        output.write(_failure(kind, f"unknown command {kind!r}; known: {known}"))
    return running


def _command(line: str, output: _Output) -> dict[str, Any] | None:
    """The command object of ``line``; ``None``, with the failure written, when it is none."""
    try:
        command, replaced = decode_json_line(line)
    except ValueError as exc:
        output.write(_failure(None, f"not JSON: {exc}"))
        return None
    if replaced:
        output.write(
            {
                "type": "notice",
                "text": f"{replaced} character(s) of the command were not valid Unicode and are"
                " replaced by U+FFFD",
            }
        )
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        output.write(_failure(None, 'a command is a JSON object with a "type"'))
        return None
    return command


def _take_text(
    kind: str, text: object, runtime: Any, output: _Output, *, busy: bool
) -> asyncio.Task[Any] | None:
    """``prompt``, ``steer`` or ``follow_up`` with ``text``; a prompt's run when one starts."""
    if not isinstance(text, str) or not text:
        output.write(_failure(kind, '"text" must be a non-empty string'))
        return None
    if kind == "prompt":
        if busy:
            output.write(_failure(kind, "a run is in progress: send steer or follow_up"))
            return None
        output.write(_success(kind))
        return asyncio.ensure_future(_prompt(runtime, output, text))
    agent = runtime.agent
    (agent.steer if kind == "steer" else agent.follow_up)(text)
    output.write(_success(kind))
    return None


_cancelling: set[asyncio.Task[None]] = set()


def _cancel_task(runtime: Any, output: _Output, task_id: str) -> None:
    """Kill the task's tree, then answer with the outcome (``cancelled``, ``already_done``,
    ``unknown_task``); other commands are read meanwhile."""

    async def cancel() -> None:
        outcome = await runtime.tasks.cancel(task_id)
        output.write(_success("task_cancel", task_id=task_id, outcome=outcome))

    pending = asyncio.ensure_future(cancel())
    _cancelling.add(pending)
    pending.add_done_callback(_cancelling.discard)


async def _prompt(runtime: Any, output: _Output, text: str) -> None:
    """Run one prompt; a session that could not be written is told as an ``error`` event."""
    await runtime.prompt(text)
    session = runtime.session
    if session is not None and session.write_error is not None:
        output.write(
            {
                "type": "error",
                "error": f"stopped: the session could not be written: {session.write_error}",
            }
        )


def _state(runtime: Any, approver: RpcApprover, busy: bool) -> dict[str, Any]:
    session = runtime.session
    return {
        "is_running": busy,
        "message_count": len(runtime.agent.state.messages),
        "model": runtime.model.ref,
        "thinking": runtime.thinking_label,
        "gate": runtime.gate.mode,
        "session_id": session.id if session is not None else None,
        "session_path": session.path if session is not None else None,
        "pending_approvals": sorted(approver.pending),
        "hand": runtime.current_hand,
        "running_tasks": [task.id for task in runtime.tasks.tasks() if task.running],
    }


def _success(command: str, **data: Any) -> dict[str, Any]:
    return {"type": "response", "command": command, "success": True, **data}


def _failure(command: str | None, error: str) -> dict[str, Any]:
    return {"type": "response", "command": command, "success": False, "error": error}


def _read_lines(stdin: TextIO) -> asyncio.Queue[str | None]:
    """Lines of ``stdin`` read by a thread (stdin may be a pipe, a file or a terminal)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        # bytes, decoded line by line: input that is not UTF-8 is a notice, never the end
        source: Any = getattr(stdin, "buffer", stdin)
        try:
            for raw in source:
                line = (
                    raw.decode("utf-8", errors="surrogateescape") if isinstance(raw, bytes) else raw
                )
                loop.call_soon_threadsafe(queue.put_nowait, line)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="tether-rpc-stdin", daemon=True).start()
    return queue
