"""The ``bash`` tool: run a shell command in the working directory and report its output.

stdout and stderr arrive merged, in order. While output arrives, the model's view of it (the
tail) is reported through ``on_update`` at most every 100 ms, and once more at the end for
anything not yet reported. The model sees the last 2000 lines / 50 KiB; beyond that the full
output is spilled to a temp file whose path the result names (:mod:`._output_spill`), so memory
stays bounded however much a command prints.

A non-zero exit, a timeout and an abort are errors that keep the output so far and end with what
happened (``Command exited with code N`` / ``Command timed out after S seconds`` /
``Command aborted``). Everything about processes — the session, killing whole trees, daemons
that hold the pipe — belongs to the :class:`~tether.tools.operations.BashOperations` in use.

Sandbox (``docs/governance.md``, "The sandbox"): by default commands run in a bubblewrap sandbox
(:class:`~tether.tools.operations._sandbox.BubblewrapSandbox`) with only the working directory
writable, when this machine can make one. Whether a tool's commands are sandboxed is fixed when
the tool is made and stated in ``metadata["sandboxed"]`` — governance lets commands that would
only need approval run unasked in a sandbox — and in every result's ``details["sandboxed"]``.

Read-only jail: a command the shell policy allowed (proved read-only) reaches the tool with
:data:`~._bash_governance.PROVED_READ_ONLY` set by the gate, in every mode; it then runs in
:meth:`BubblewrapSandbox.read_only_jail` — nothing writable, no network — whether or not the
other commands are sandboxed, whenever bubblewrap is available here (``metadata["read_only_jail"]``,
``details["read_only_jail"]``). Without bubblewrap, or on another host, the proof alone decides.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tether.agent import AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, TextContent
from tether.gate import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_ROOT_NAMES,
    Review,
    protected_workspace_rule,
)

from ._bash_governance import PROVED_READ_ONLY, bash_governance
from ._builtin import BuiltinTool
from ._definition import ToolContext, ToolDefinition
from ._git_commands import git_write_reason
from ._output_spill import OutputView, SpillingOutput
from ._paths import resolve_path
from ._rendering import short
from ._task_tools import start_background_task
from ._tasks import TaskManager
from ._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size
from .operations._local_exec import LocalExecOperations
from .operations._protocols import BashOperations, ExecResult, OutputFile
from .operations._sandbox import BubblewrapSandbox

__all__ = ["PROGRESS_INTERVAL_SECONDS", "TOOL", "create_bash_tool"]

_logger = logging.getLogger(__name__)

PROGRESS_INTERVAL_SECONDS = 0.1


def create_bash_tool(
    cwd: str,
    *,
    operations: BashOperations | None = None,
    sandbox: bool | None = None,
    default_timeout: float | None = None,
    tasks: TaskManager | None = None,
) -> ToolDefinition:
    """The ``bash`` tool, running commands in ``cwd``.

    ``sandbox``: ``None`` runs commands in a bubblewrap sandbox whose workspace is ``cwd`` when
    :meth:`BubblewrapSandbox.available`, and otherwise unsandboxed, logging a warning once per
    process; ``True`` requires the sandbox and raises ``ValueError`` when it is not available;
    ``False`` never sandboxes. Given ``operations`` run commands their own way: the tool counts
    as sandboxed exactly when their ``sandbox`` attribute is a :class:`BubblewrapSandbox`
    (as :class:`LocalExecOperations` made with one has), and ``sandbox=True`` / ``False``
    must agree with that or ``ValueError`` is raised.
    ``default_timeout`` (seconds) applies when the model gives no ``timeout``.
    With ``tasks`` the tool takes ``background``: the command becomes a task of that manager
    (:mod:`._task_tools`), its ``timeout`` the task's runtime limit.
    """
    return TOOL.create(
        cwd, operations=operations, sandbox=sandbox, default_timeout=default_timeout, tasks=tasks
    )


def _define(
    cwd: str,
    operations: BashOperations,
    *,
    sandbox: bool | None = None,
    default_timeout: float | None = None,
    tasks: TaskManager | None = None,
) -> ToolDefinition:
    if default_timeout is not None and not _is_valid_timeout(default_timeout):
        raise ValueError(
            f"default_timeout must be a finite number of seconds above 0, got {default_timeout!r}"
        )
    working_directory = resolve_path(".", cwd)
    ops = _checked_operations(operations, sandbox)
    in_use = getattr(ops, "sandbox", None)
    active_sandbox = in_use if isinstance(in_use, BubblewrapSandbox) else None
    sandboxed = active_sandbox is not None
    jail = _read_only_jail(ops, active_sandbox, working_directory)
    bash = _Bash(cwd, working_directory, ops, jail, sandboxed, default_timeout, tasks)
    return ToolDefinition(
        name="bash",
        label="Bash",
        description=(
            "Run a bash command in the working directory; stdout and stderr are returned "
            f"merged. Output is cut to the last {DEFAULT_MAX_LINES} lines or "
            f"{format_size(DEFAULT_MAX_BYTES)}, whichever is hit first; when cut, the full "
            "output is saved to a temp file whose path is given. A non-zero exit code, a "
            "timeout or an abort is reported as an error with the output so far."
            + _sandbox_description(active_sandbox)
            + (_JAIL_DESCRIPTION if jail is not None else "")
        ),
        parameters=_parameters(default_timeout, background=tasks is not None),
        execute=bash.execute,
        prompt_snippet="Run shell commands in the working directory (tests, builds, git, scripts)",
        prompt_guidelines=[
            "Commands run without a terminal or input: pass flags such as --yes and avoid "
            "pagers, editors and prompts.",
            _long_running_guideline(active_sandbox, background=tasks is not None),
        ],
        metadata={"sandboxed": sandboxed, "read_only_jail": jail is not None},
    )


@dataclass(frozen=True, slots=True)
class _Bash:
    """One bash tool as made: where its commands run, in what, and with which defaults."""

    cwd: str
    working_directory: str
    ops: BashOperations
    jail: BubblewrapSandbox | None
    sandboxed: bool
    default_timeout: float | None
    tasks: TaskManager | None

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ToolContext,
    ) -> AgentToolResult:
        command: str = params["command"]
        timeout: float | None = params.get("timeout")
        if timeout is None:
            timeout = self.default_timeout
        elif not _is_valid_timeout(timeout):
            raise ToolError(f"timeout must be a finite number of seconds above 0, got {timeout!r}.")
        jailed = self.jail is not None and params.get(PROVED_READ_ONLY) is True
        runner = (
            LocalExecOperations(sandbox=self.jail) if jailed else _runner_for(self.ops, command)
        )
        if params.get("background") is True:
            if self.tasks is None:
                raise ToolError("This bash tool cannot run commands in the background.")
            return await start_background_task(
                self.tasks,
                runner,  # an allowed background command runs in the read-only jail too
                command,
                cwd=self.working_directory,
                timeout=params.get("timeout"),
                tool_call_id=tool_call_id,
                sandboxed=self.sandboxed,
                signal=signal,
            )
        try:
            view, result = await _run_in_foreground(
                runner, command, self.ops, self.working_directory, timeout, signal, on_update
            )
        except FileNotFoundError as error:
            if error.filename != self.working_directory:
                raise
            raise ToolError(f"Working directory does not exist: {self.cwd}") from None
        return _final_result(view, result, timeout, sandboxed=self.sandboxed, jailed=jailed)


async def _run_in_foreground(
    runner: BashOperations,
    command: str,
    ops: BashOperations,
    working_directory: str,
    timeout: float | None,
    signal: AbortSignal,
    on_update: UpdateCallback | None,
) -> tuple[OutputView, ExecResult]:
    """Run ``command`` to its end through ``runner`` in ``working_directory``, its output
    spilling to a file made by ``ops`` when too large and reported through ``on_update`` as it
    arrives."""
    output = SpillingOutput(_output_file_maker(ops))
    progress = _ThrottledProgress(on_update, lambda: _partial_result(output.view()))

    def on_output(chunk: bytes) -> None:
        output.feed(chunk)
        progress.output_arrived()

    try:
        try:
            result = await runner.exec(
                command,
                cwd=working_directory,
                on_output=on_output,
                timeout=timeout,
                signal=signal,
            )
        finally:
            progress.stop()
        progress.flush()
    finally:
        output.close()
    return output.view(), result  # after close: a spill file that failed to save is not named


def _parameters(default_timeout: float | None, *, background: bool) -> dict[str, Any]:
    timeout_default = (
        f"Default: {default_timeout:g} second{'' if default_timeout == 1 else 's'}."
        if default_timeout is not None
        else "Default: no timeout."
    )
    return {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "description": "The command to run with bash -c, in the working directory.",
            },
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "Seconds after which the command and every process it "
                f"started are killed. {timeout_default}",
            },
            **(_BACKGROUND_PARAMETER if background else {}),
        },
        "required": ["command"],
    }


def _read_only_jail(
    ops: BashOperations, sandbox: BubblewrapSandbox | None, workspace: str
) -> BubblewrapSandbox | None:
    """Where commands the shell policy allowed run: a read-only copy of the sandbox, or one made
    for the workspace when commands are otherwise unsandboxed on this machine and bubblewrap is
    available; ``None`` for other operations (a remote host) or without bubblewrap."""
    if not isinstance(ops, LocalExecOperations):
        return None
    if sandbox is not None:
        return sandbox.read_only_jail()
    if BubblewrapSandbox.available():
        return BubblewrapSandbox(workspace).read_only_jail()
    return None


_BACKGROUND_PARAMETER = {
    "background": {
        "type": "boolean",
        "description": "Run as a background task (a server, a watcher, a long build): the call "
        "returns at once with a task id, the pid and the first output; read on with "
        "task_output, stop it with task_cancel. timeout is then its runtime limit. A command "
        "that is not read-only needs a person's approval to start in the background.",
    }
}


def _long_running_guideline(sandbox: BubblewrapSandbox | None, *, background: bool) -> str:
    if background:
        isolated = sandbox is not None and not sandbox.allow_network
        return (
            "Give commands that may run long a timeout; start servers, watchers and long builds "
            "with background=true, wait for them with task_output(until=...), and cancel them "
            "with task_cancel when done."
            + (
                " Each sandboxed command has its own network: a server started in the "
                "background is reachable only from within its own command."
                if isolated
                else ""
            )
        )
    if sandbox is None:
        return (
            "Give commands that may run long a timeout; start servers in the background with "
            "their output redirected to a file so the call returns."
        )
    return (
        "Give commands that may run long a timeout. Background processes end when the command "
        "returns, so start a server and use it in the same command."
    )


def _runner_for(ops: BashOperations, command: str) -> BashOperations:
    """``ops``, or for a git command that writes the repository (which its governance sent to
    a person) the same sandbox with ``.git`` writable."""
    sandbox = getattr(ops, "sandbox", None)
    if not isinstance(ops, LocalExecOperations) or not isinstance(sandbox, BubblewrapSandbox):
        return ops
    if git_write_reason(command) is None:
        return ops
    return LocalExecOperations(sandbox=sandbox.allowing_git_writes())


def _output_file_maker(ops: BashOperations) -> Callable[[str], OutputFile]:
    """``ops.create_output_file``, looked up only when output overflows: operations written
    without it still run commands, and only the spill file is reported as missing."""

    def create_output_file(prefix: str) -> OutputFile:
        if not hasattr(ops, "create_output_file"):
            raise OSError(f"{type(ops).__name__} cannot save a command's output")
        return ops.create_output_file(prefix)

    return create_output_file


def _checked_operations(operations: BashOperations, sandbox: bool | None) -> BashOperations:
    """The operations the tool runs commands with, after checking ``sandbox`` against them."""
    has_sandbox = isinstance(getattr(operations, "sandbox", None), BubblewrapSandbox)
    if sandbox is True and not has_sandbox:
        raise ValueError(
            "sandbox=True, but the given operations do not run commands in a "
            "BubblewrapSandbox; pass LocalExecOperations(sandbox=BubblewrapSandbox(cwd))."
        )
    if sandbox is False and has_sandbox:
        raise ValueError("sandbox=False, but the given operations run commands in a sandbox.")
    return operations


def _local_operations(cwd: str, options: Mapping[str, Any]) -> BashOperations:
    """This machine's runner: in a bubblewrap sandbox of ``cwd`` unless ``sandbox`` is
    ``False`` or bubblewrap is not available (``sandbox=True`` then raises ``ValueError``)."""
    sandbox = options.get("sandbox")
    workspace = resolve_path(".", cwd)
    if sandbox is False:
        return LocalExecOperations()
    if BubblewrapSandbox.available():
        return LocalExecOperations(sandbox=BubblewrapSandbox(workspace))
    if sandbox is True:
        raise ValueError(
            "sandbox=True, but bubblewrap is not available: install bwrap (Debian: apt-get "
            "install bubblewrap) on a kernel that allows user namespaces, or pass sandbox=None "
            "(sandbox when available) or sandbox=False."
        )
    _warn_unsandboxed_once()
    return LocalExecOperations()


@functools.cache
def _warn_unsandboxed_once() -> None:
    _logger.warning("bubblewrap not available: commands run unsandboxed and need approval")


_JAIL_DESCRIPTION = (
    " A command the shell policy proves read-only runs without asking, in a read-only jail: "
    "offline, and nothing can be written there, not even /tmp."
)


def _sandbox_description(sandbox: BubblewrapSandbox | None) -> str:
    if sandbox is None:
        return ""
    network = "" if sandbox.allow_network else " There is no network."
    return (
        " Commands run in a sandbox: only the working directory and a private /tmp are "
        "writable; in it .git/ and files that make programs run code later (.envrc, .vscode/, "
        "...) are read-only, and secret files (.env, private keys, credentials) read as empty, "
        f"as do some in the home directory.{network} A git command that writes the repository "
        "is asked to a person first; a command that needs a secret is for the person to run "
        "outside the sandbox."
    )


class _ThrottledProgress:
    """Sends the output so far to ``on_update`` at most once per interval while output arrives.

    Output that arrives within an interval of the last update is sent when the interval ends;
    :meth:`flush` sends whatever has not been reported yet. Runs on the event loop.
    """

    def __init__(
        self,
        on_update: UpdateCallback | None,
        render: Callable[[], AgentToolResult],
        interval: float = PROGRESS_INTERVAL_SECONDS,
    ) -> None:
        self._on_update = on_update
        self._render = render
        self._interval = interval
        self._loop = asyncio.get_running_loop()
        self._last_sent = -math.inf
        self._unreported = False
        self._timer: asyncio.TimerHandle | None = None

    def output_arrived(self) -> None:
        if self._on_update is None:
            return
        self._unreported = True
        if self._timer is not None:
            return
        wait = self._last_sent + self._interval - self._loop.time()
        if wait <= 0:
            self._send()
        else:
            self._timer = self._loop.call_later(wait, self._send)

    def flush(self) -> None:
        self.stop()
        self._send()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _send(self) -> None:
        self._timer = None
        if self._on_update is None or not self._unreported:
            return
        self._unreported = False
        self._last_sent = self._loop.time()
        self._on_update(self._render())


def _is_valid_timeout(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def _join(*parts: str | None) -> str:
    return "\n\n".join(part for part in parts if part)


def _partial_result(view: OutputView) -> AgentToolResult:
    return AgentToolResult(
        [TextContent(_join(view.text.removesuffix("\n"), view.notice))],
        details={"truncated": view.truncated, "full_output_path": view.full_output_path},
    )


def _final_result(
    view: OutputView, result: ExecResult, timeout: float | None, *, sandboxed: bool, jailed: bool
) -> AgentToolResult:
    text = view.text.removesuffix("\n")
    details = {
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "aborted": result.aborted,
        "truncated": view.truncated,
        "full_output_path": view.full_output_path,
        "sandboxed": sandboxed,
        "read_only_jail": jailed,
    }
    if result.aborted:
        raise ToolError(_join(text, view.notice, "Command aborted"), details=details)
    if result.timed_out:
        ending = f"Command timed out after {timeout:g} second{'' if timeout == 1 else 's'}"
        raise ToolError(_join(text, view.notice, ending), details=details)
    if result.exit_code != 0:
        ending = f"Command exited with code {result.exit_code}"
        hint = _jail_hint(text) if jailed else _protected_path_hint(text) if sandboxed else None
        raise ToolError(_join(text, view.notice, result.notice, hint, ending), details=details)
    return AgentToolResult(
        [TextContent(_join(text or "(no output)", view.notice, result.notice))], details
    )


_REFUSED_BY_SANDBOX = re.compile(r"Read-only file system|Device or resource busy|EROFS|EBUSY")
_PROTECTED_NAMES = re.compile(
    r"(?<![\w.-])(?:[\w./-]*/)?("
    + "|".join(
        re.escape(n) for n in (*PROTECTED_DIRECTORIES, *PROTECTED_FILES, *PROTECTED_ROOT_NAMES)
    )
    + r")(?![\w.-])"
)


def _jail_hint(text: str) -> str | None:
    if _REFUSED_BY_SANDBOX.search(text) is None:
        return None
    return (
        "This command was judged read-only and ran in the read-only jail, where nothing can be "
        "written; a command that writes is run only once a person (or the sandbox) allows it."
    )


def _protected_path_hint(text: str) -> str | None:
    """What to tell the model when a sandboxed command failed on a protected path: the sandbox
    refused a write (read-only, busy mount point), or a placeholder for an absent protected file
    (an empty read-only directory) was opened as a file."""
    named = sorted({match.group(1) for match in _PROTECTED_NAMES.finditer(text)})
    refused = _REFUSED_BY_SANDBOX.search(text) is not None or "Is a directory" in text
    if not named or not refused:
        return None
    reasons = [protected_workspace_rule(name) or name for name in named]
    return (
        f"The sandbox keeps protected paths read-only: {'; '.join(reasons)}. A git command "
        "that writes the repository (commit, add, checkout, ...) is asked to a person and, once "
        "approved, runs with .git writable; any other change to a protected path is for the "
        "person to make: ask them to do it outside the sandbox."
    )


def _render_call(args: Mapping[str, Any]) -> str:
    shown = f"$ {short(args.get('command'))}"
    timeout = args.get("timeout")
    has_timeout = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    return shown + (f"  (timeout {timeout:g} s)" if has_timeout else "")


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    if details.get("aborted"):
        shown = "aborted"
    elif details.get("timed_out"):
        shown = "timed out"
    else:
        shown = f"exit {details['exit_code']}"
    if details.get("full_output_path"):
        shown += f", full output in {details['full_output_path']}"
    return shown


TOOL = BuiltinTool(
    name="bash",
    define=_define,
    exposure={
        "command": Review.INCLUDE,
        "timeout": Review.INCLUDE,
        "background": Review.INCLUDE,
    },
    governance=bash_governance,
    render_call=_render_call,
    render_result=_render_result,
    renders_errors=True,
    open_world=True,
    default=True,
    run_options=frozenset({"sandbox", "tasks"}),
    local_operations=_local_operations,
)
"""``bash``: its definition, review exposure, governance and renderers."""
