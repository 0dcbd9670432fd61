"""``tether`` with no task: the interactive session a person works with.

This module is the session loop only: it builds the run layer every mode uses
(:func:`~._runtime.build_runtime`), hands the screen what to show (:class:`~._terminal_output.
Transcript`, the status line) and turns what the person does into calls on the agent — a
prompt, ``steer`` or ``follow_up`` while it works, ``abort``, or a ``/`` command. The screen is
``prompt_toolkit`` (:mod:`._terminal_input`), or plain lines on a dumb terminal
(:mod:`._interactive_plain`); neither holds agent logic.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from tether import __version__
from tether.gate import MODES
from tether.runtime import EMBEDDED_MODEL_NOTE, RunSettings, Runtime, build_runtime
from tether.tools import TaskEvent, describe_task

from ._errors import CommandError
from ._run_attachment import AttachedRun
from ._slash_commands import COMMANDS, UNTRUSTED_SKILLS_NOTE, SlashCommands
from ._terminal_approver import ApprovalSurface, InlineApprover
from ._terminal_output import Transcript
from ._terminal_status import count_tokens, sandbox_state, status_line
from ._terminal_style import Styler

__all__ = ["run_interactive"]


class Screen(ApprovalSurface, Protocol):
    def width(self) -> int: ...
    def write(self, lines: list[str]) -> None: ...
    def invalidate(self) -> None: ...
    def put_back(self, text: str) -> None: ...
    async def run(self) -> None: ...
    def exit(self) -> None: ...


async def run_interactive(settings: RunSettings) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CommandError(
            "the interactive terminal needs a terminal on stdin and stdout; run a task with "
            "tether -p 'task', or drive tether with --mode rpc"
        )
    plain = os.environ.get("TERM", "") in ("", "dumb")
    session = InteractiveSession(settings, plain=plain)
    return await session.run()


class InteractiveSession:
    """One person's session: a runtime (replaced by ``/new``, ``/resume``, ``/fork``), the
    screen, and the run in progress, if any."""

    def __init__(self, settings: RunSettings, *, plain: bool) -> None:
        self.settings = settings
        self.plain = plain
        self.styler = Styler(plain=plain, width=self._width)
        self.transcript = Transcript(self.styler, {}, self._write)
        self.screen: Screen = self._screen()
        self.approver = InlineApprover(self.screen, self.transcript)
        self.runtime: Runtime = build_runtime(settings, self.approver)
        self._detach = self._attach(self.runtime)
        self.commands = SlashCommands(self)
        self.run_task: asyncio.Task[None] | None = None
        self.abort_activity: Callable[[], None] | None = None
        """Stops the activity outside a turn (``/compact``, ``/runs RUN``), while there is one."""
        self.activity_name = "/compact"
        self.attached: AttachedRun | None = None
        """The durable run the terminal is attached to (``/runs RUN``): on the status line."""
        self.transcript.on_change = self.screen.invalidate
        self.transcript.describe_wait = self._waiting_text

    # -- the loop --------------------------------------------------------------------------------

    async def run(self) -> int:
        self._banner()
        warm = asyncio.ensure_future(asyncio.to_thread(self._warm_up))
        notices = _LogNotices(self.transcript, asyncio.get_running_loop())
        offer = asyncio.ensure_future(self._offer_trust())
        try:
            await self.screen.run()
        finally:
            notices.close()
            warm.cancel()
            offer.cancel()
            if self.run_task is not None and not self.run_task.done():
                self.runtime.agent.abort()
                self.approver.abort()
                await asyncio.gather(self.run_task, return_exceptions=True)
            await self.runtime.stop_tasks()
            self._detach()
            self.runtime.close()
        return 0

    def _warm_up(self) -> None:
        """Load what the first answer needs (the model's wire protocol and its SDK, the
        Markdown renderer) while the person types, not after Enter."""
        _load_provider(self.runtime.model.api)
        self.styler.markdown("*warm* `up`\n\n```python\nx = 1\n```")

    def submit(self, text: str, kind: str) -> None:
        """What the person sent: a command, a prompt, or a message queued for the run."""
        agent = self.runtime.agent
        if text.startswith("//"):
            text = text[1:]  # a message that begins with "/"
        elif text.startswith("/"):
            self.commands.run(text)
            return
        if self.transcript.activity is not None:
            self.screen.put_back(text)
            self.transcript.note(
                f"That waits until {self.activity_name} is done (Esc stops it).", "yellow"
            )
            return
        if self.is_running():
            if kind == "follow_up":
                agent.follow_up(text)
                self.transcript.queued.append(("follow-up", text))
            else:
                agent.steer(text)
                self.transcript.queued.append(("steering", text))
            self.screen.invalidate()
            return
        self.start(text)

    def start(self, text: str) -> None:
        self.transcript.user(text)
        self.run_task = asyncio.ensure_future(self._run(text))

    async def _run(self, text: str) -> None:
        self.approver.resume()
        try:
            await self.runtime.prompt(text)
        except Exception as exc:  # the run layer failed: say so, keep the session
            self.transcript.note(f"!! {type(exc).__name__}: {exc}", "bold red")
        finally:
            unsaved = self.runtime.session.write_error if self.runtime.session else None
            if unsaved is not None:
                self.transcript.note(
                    f"!! stopped: the session could not be written: {unsaved}. Nothing more is"
                    " recorded; /new starts a session elsewhere once there is room.",
                    "bold red",
                )
            self.transcript.running = False
            self.screen.invalidate()
        self._after_run()

    def _after_run(self) -> None:
        left = [text for _, text in self.transcript.queued]
        self.transcript.queued.clear()
        self.runtime.agent.clear_queues()
        if self.plain:
            self.transcript.write([self.status(10_000)])
        if not left:
            return
        if self.runtime.agent.state.error is not None or self._aborted():
            self.screen.put_back("\n".join(left))
            self.transcript.note("The queued messages are back in the input.", "yellow")
        else:
            self.start("\n\n".join(left))

    def _aborted(self) -> bool:
        from tether.ai import AssistantMessage

        messages = self.runtime.agent.state.messages
        last = messages[-1] if messages else None
        return isinstance(last, AssistantMessage) and last.stop_reason == "aborted"

    def interrupt(self) -> bool:
        """Abort the running turn (bash trees die; every call still gets its result), or the
        activity outside a turn (``/compact``)."""
        if self.run_task is not None and not self.run_task.done():
            self.approver.abort()
            self.runtime.agent.abort()
        elif self.abort_activity is not None:
            self.abort_activity()
        else:
            return False
        self.transcript.aborting = True
        if self.plain:  # no live area: say it at once
            self.transcript.note("Aborting…", "yellow")
        self.screen.invalidate()
        return True

    def is_running(self) -> bool:
        turn = self.run_task is not None and not self.run_task.done()
        return turn or self.transcript.activity is not None

    def _waiting_text(self) -> str:
        """What a turn waits for before its first token: the model reading the prompt."""
        runtime = self.runtime
        tokens = runtime.compactor.context_tokens(list(runtime.agent.state.messages))
        return f"{runtime.model.id} is reading the prompt (≈{count_tokens(tokens)} tokens)"

    def quit(self) -> None:
        self.interrupt()
        self.screen.exit()

    # -- what the screen shows -------------------------------------------------------------------

    def _width(self) -> int:
        return self.screen.width()

    def _write(self, lines: list[str]) -> None:
        self.screen.write(lines)

    def status(self, width: int) -> str:
        return status_line(self.runtime, self.styler, width, attached=self.attached)

    def replace_runtime(self, settings: RunSettings) -> Runtime:
        """Build a new runtime (``/new``, ``/resume``, ``/fork``); the old one is closed only
        once the new one is ready, so a failure keeps the session as it was."""
        runtime = build_runtime(settings, self.approver)
        self._detach()
        self.runtime.close()
        self.settings, self.runtime = settings, runtime
        self._detach = self._attach(runtime)
        return runtime

    def settings_for(self, **changes: Any) -> RunSettings:
        cleared = replace(self.settings, continue_session=False, resume=None, session_path=None)
        return replace(cleared, **changes)

    def _attach(self, runtime: Runtime) -> Any:
        self.transcript.definitions = runtime.definitions
        detach_agent = runtime.agent.subscribe(self.transcript)
        detach_tasks = runtime.tasks.subscribe(self._task_changed)

        def detach() -> None:
            detach_agent()
            detach_tasks()

        return detach

    def _task_changed(self, event: TaskEvent) -> None:
        """The status line counts running tasks; a task's end is noted in the transcript."""
        if event.type == "task_end":
            task = event.task
            self.transcript.note(f"Background task {task.id} {describe_task(task)}.", "dim")
        if event.type != "task_output":
            self.screen.invalidate()

    def _banner(self) -> None:
        runtime = self.runtime
        styler = self.styler
        session = runtime.session
        where = session.id[:8] if session is not None else "not recorded"
        self.transcript.write(
            [
                styler.join([("tether ", "bold"), (__version__, "dim")]),
                styler.line(
                    f"{runtime.model.ref} · gate {runtime.gate.mode} · "
                    f"{sandbox_state(runtime)} · session {where}",
                    "dim",
                ),
                styler.line(_home_relative(runtime.settings.cwd), "dim"),
                styler.line(
                    "Enter sends · Alt-Enter newline · Esc aborts · /help · Ctrl-D quits", "dim"
                ),
            ]
        )
        if runtime.model.api == "local":
            self.transcript.note(EMBEDDED_MODEL_NOTE[0].upper() + EMBEDDED_MODEL_NOTE[1:], "yellow")
        if runtime.resumed:
            self.commands.replay()

    async def _offer_trust(self) -> None:
        """Ask once, at the start, whether the workspace's own skills may load."""
        skills = self.runtime.skills
        untrusted = skills.activations.skills.untrusted if skills is not None else []
        if not untrusted:
            return
        names = ", ".join(skill.name for skill in untrusted)
        note = UNTRUSTED_SKILLS_NOTE.format(count=len(untrusted))
        self.transcript.note(f"{note} ({names})", "yellow")
        decision = await self.approver.surface.ask(
            [
                f"Trust this workspace's skills ({names})?",
                "  y or a: trust it (remembered; tether skills trust --revoke undoes it) · "
                "n or d: not now",
            ]
        )
        if decision in ("allow_once", "allow_session"):
            self.commands.run("/skills trust")
        else:
            self.transcript.note("Project skills stay unloaded; /skills trust loads them.", "dim")

    def _screen(self) -> Screen:
        if self.plain:
            from ._interactive_plain import PlainScreen

            return PlainScreen(self)
        from tether._home import data_dir

        from ._terminal_input import ScreenHooks, TerminalScreen, WorkspaceCompleter

        hooks = ScreenHooks(
            submit=self.submit,
            interrupt=self.interrupt,
            is_running=self.is_running,
            live_lines=self.transcript.live_lines,
            status_line=self.status,
            expand=self.transcript.expand_last,
            tick=self.transcript.tick,
        )
        completer = WorkspaceCompleter(
            os.path.abspath(self.settings.cwd),
            COMMANDS,
            {"model": _model_refs, "thinking": _thinking_levels, "gate": _gate_modes},
        )
        return TerminalScreen(hooks, completer, os.path.join(data_dir(), "prompt_history"))


class _LogNotices(logging.Handler):
    """Log records as one-line notices in the transcript while the screen runs: a warning
    written to stderr would break the screen, and a provider SDK's retry (logged at INFO) is
    something the person should see."""

    _RETRYING = ("openai", "anthropic")

    def __init__(self, transcript: Transcript, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.INFO)
        self.transcript = transcript
        self.loop = loop
        self._levels = {name: logging.getLogger(name).level for name in self._RETRYING}
        for name in self._RETRYING:
            logging.getLogger(name).setLevel(logging.INFO)
        logging.getLogger().addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.levelno >= logging.WARNING:
            text, style = f"{record.levelname.lower()}: {message}", "yellow"
        elif message.startswith("Retrying request"):
            seconds = re.sub(r"(\d+\.\d+) seconds", lambda m: f"{float(m[1]):.1f} s", message)
            text, style = f"↻ the provider is retrying: {seconds}", "yellow"
        else:
            return
        self.loop.call_soon_threadsafe(self.transcript.note, text.split("\n", 1)[0], style)

    def close(self) -> None:
        logging.getLogger().removeHandler(self)
        for name, level in self._levels.items():
            logging.getLogger(name).setLevel(level)
        super().close()


def _load_provider(api: str) -> None:
    """Import the model's wire protocol (and its SDK) while the person types: the first request
    would otherwise wait for it."""
    import importlib

    from tether.ai.providers import API_MODULES

    module = API_MODULES.get(api)
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError:
            return  # the first request says what is missing


def _home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path


def _model_refs() -> list[str]:
    from tether.ai.providers import list_models

    return [m.ref for m in list_models()]


def _thinking_levels() -> list[str]:
    from ._parser import THINKING_LEVELS

    return list(THINKING_LEVELS)


def _gate_modes() -> list[str]:
    return list(MODES)
