"""Print and JSON modes: one task, no one to ask, the answer (or every event) on stdout.

Print mode writes the final assistant text to stdout, progress to stderr when stderr is a
terminal, and a summary line to stderr at the end; it exits 1 when the run ended in an error
and 3 (:data:`TRUNCATED`) when the last reply was cut off by the output token limit.
JSON mode writes the session header, then each agent event (and each background task's
``task_start`` / ``task_output`` / ``task_end``) as one JSON line. In both, a call that needs
approval is denied with a reason that says how to allow it (fail closed). Background tasks still
running when the run ends are stopped, whole trees, and listed in the summary.

Ctrl-C aborts the run through the agent (every call still gets its result, the session keeps
them) and ends the command with :data:`INTERRUPTED`, without waiting for a JSON reader to take
the lines still queued; a second Ctrl-C raises ``KeyboardInterrupt`` at once.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import TextIO

from tether.agent import AgentEvent
from tether.ai import AbortController, AssistantMessage, first_to_finish
from tether.runtime import EMBEDDED_MODEL_NOTE, RunSettings, Runtime, build_runtime
from tether.tools import TaskEvent

from ._event_json import dumps, event_to_json, task_event_to_json
from ._json_out import JsonLines
from ._progress import ProgressPrinter, RunStats

__all__ = [
    "HEADLESS_FORCED_HINT",
    "HEADLESS_HINT",
    "INTERRUPTED",
    "TRUNCATED",
    "run_print",
    "session_header",
]

TRUNCATED = 3
"""The exit status of a run whose last reply was cut off by the output token limit."""

INTERRUPTED = 130
"""The exit status of a run ended by Ctrl-C (SIGINT), as shells report it."""

HEADLESS_HINT = (
    "In print and json modes nobody can answer an approval: rerun with --gate yolo to run such "
    "calls unasked, or use rpc mode or the interactive terminal to answer them."
)

HEADLESS_FORCED_HINT = (
    "In print and json modes nobody can answer an approval, and this call asks a person in "
    "every gate mode, --gate yolo included: answer it in rpc mode or the interactive terminal. "
    "An MCP server's tools always ask unless its [mcp.servers.NAME] table in config.toml says "
    'trust = "read_only" and the server marks the tool readOnlyHint (docs/mcp.md).'
)


def session_header(runtime: Runtime) -> dict[str, object]:
    session = runtime.session
    return {
        "type": "session",
        "id": session.id if session is not None else None,
        "cwd": session.cwd if session is not None else runtime.settings.cwd,
        "path": session.path if session is not None else None,
        "model": runtime.model.ref,
        "gate": runtime.gate.mode,
        "resumed": runtime.resumed,
        **({"tools_run_on": str(runtime.remote)} if runtime.remote else {}),
        **({"hand": runtime.current_hand} if runtime.current_hand else {}),
    }


async def run_print(
    settings: RunSettings,
    task: str,
    *,
    json_lines: bool,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
) -> int:
    """Run ``task``; returns the exit status (0 success, 1 the run failed, 3 the answer was cut
    off by the output token limit, 130 interrupted by Ctrl-C)."""
    runtime = build_runtime(
        settings, None, no_approver_hint=HEADLESS_HINT, forced_hint=HEADLESS_FORCED_HINT
    )
    if runtime.model.api == "local":
        stderr.write(f"tether: {EMBEDDED_MODEL_NOTE}\n")
    stats = RunStats()
    runtime.agent.subscribe(stats.observe)
    lines = _show_progress(runtime, json_lines=json_lines, stdout=stdout, stderr=stderr)
    interrupt = _CtrlC(runtime)
    try:
        await runtime.prompt(task)
        stopped = await runtime.stop_tasks()
        if lines is not None:
            written = {"written": lines.drained()}
            await first_to_finish(written, timeout=None, signal=interrupt.signal)
    finally:
        interrupt.close()
        runtime.close()
    if lines is not None and lines.broken:
        raise BrokenPipeError("the reader of --mode json left")
    if interrupt.signal.aborted:
        stderr.write(f"tether: interrupted: {stats.summary()}\n")
        _write_session_line(runtime, stderr)
        return INTERRUPTED
    final = _last_assistant(runtime)
    unsaved = runtime.session.write_error if runtime.session is not None else None
    failed = unsaved is not None or final is None or final.failed
    truncated = not failed and final is not None and final.stop_reason == "length"
    if unsaved is not None:  # one clear line, also in json mode; never "session ... saved"
        stderr.write(f"tether: stopped: the session could not be written: {unsaved}\n")
    if not json_lines:
        if final is not None and final.text().strip():
            stdout.write(final.text().rstrip("\n") + "\n")
            stdout.flush()
        if failed and unsaved is None:
            reason = final.error_message if final is not None else "no answer"
            stderr.write(f"tether: the run failed: {reason}\n")
    if truncated:
        stderr.write(f"tether: {_truncation_note(runtime)}\n")
    if not json_lines:
        stderr.write(f"tether: {stats.summary()}\n")
        for stopped_task in stopped:
            stderr.write(
                f"tether: stopped background task {stopped_task.id} at the end of the run "
                f"(it ran {stopped_task.runtime():.1f} s): {stopped_task.command}\n"
            )
        if runtime.remote:
            stderr.write(f"tether: tools ran on {runtime.remote}\n")
        _write_session_line(runtime, stderr)
    return 1 if failed else TRUNCATED if truncated else 0


def _write_session_line(runtime: Runtime, stderr: TextIO) -> None:
    session = runtime.session
    if session is not None and session.write_error is None:
        stderr.write(f"tether: session {session.id[:8]} ({session.path})\n")


class _CtrlC:
    """Print mode's SIGINT while the run goes: the first aborts the agent and fires
    :attr:`signal`; the handler is then removed, so a second raises ``KeyboardInterrupt``.
    Where SIGINT was ignored when tether started (a background job), it stays ignored."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._controller = AbortController()
        self.signal = self._controller.signal
        self._loop: asyncio.AbstractEventLoop | None = None
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self._pressed)
        except (ValueError, RuntimeError):  # not the main thread: Ctrl-C is not ours to take
            return
        self._loop = loop

    def _pressed(self) -> None:
        self.close()
        self._controller.abort("interrupted (Ctrl-C)")
        self._runtime.agent.abort("interrupted (Ctrl-C)")

    def close(self) -> None:
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGINT)
            self._loop = None


def _show_progress(
    runtime: Runtime, *, json_lines: bool, stdout: TextIO, stderr: TextIO
) -> JsonLines | None:
    """What the run shows while it goes: every event as a JSON line after the session header
    (written by :class:`JsonLines`, returned), or, on a terminal, the progress lines on
    ``stderr``."""
    if json_lines:
        lines = JsonLines(stdout)
        lines.write(dumps(session_header(runtime)) + "\n")

        def write_event(event: AgentEvent) -> None:
            lines.write(dumps(event_to_json(event)) + "\n")

        def write_task_event(event: TaskEvent) -> None:
            lines.write(dumps(task_event_to_json(event)) + "\n")

        runtime.agent.subscribe(write_event)
        runtime.tasks.subscribe(write_task_event)
        return lines
    if stderr.isatty():
        runtime.agent.subscribe(ProgressPrinter(runtime.definitions, stderr))
    return None


def _truncation_note(runtime: Runtime) -> str:
    model = runtime.model
    return (
        f"the answer is truncated: the reply reached the output token limit ({model.max_tokens:,}"
        f" tokens for {model.ref}; max_tokens in models.toml) before it ended"
    )


def _last_assistant(runtime: Runtime) -> AssistantMessage | None:
    for message in reversed(runtime.agent.state.messages):
        if isinstance(message, AssistantMessage):
            return message
    return None
