"""The interactive terminal's ``/`` commands: each one a call on the run layer.

``/model``, ``/thinking`` and ``/gate`` change the running session (the choice is recorded in
the session file); ``/new``, ``/resume`` and ``/fork`` replace the session; ``/compact``
summarises the older part of the context now; ``/export`` writes the session as HTML;
``/skills`` lists the skills (``/skills trust`` loads the workspace's own) and ``/skill:NAME``
loads one into the conversation.
``/tasks`` lists the background tasks and ``/tasks kill ID`` stops one (its whole tree).
``/runs`` lists the durable runs (engine, database, the calls waiting for a person) and
``/runs RUN`` attaches the terminal to one (:mod:`._run_attachment`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, Final, Protocol

from tether.ai import AbortController, AssistantMessage, TextContent, UserMessage
from tether.gate import MODE_DESCRIPTIONS
from tether.runtime import RunSettings, RunSetupError, Runtime, as_reasoning_level
from tether.tools import describe_task

from ._errors import CommandError
from ._run_attachment import AttachedRun, RunAttachment
from ._terminal_approver import InlineApprover
from ._terminal_output import Transcript
from ._terminal_status import count_tokens
from ._terminal_style import Styler

__all__ = ["COMMANDS", "UNTRUSTED_SKILLS_NOTE", "SlashCommands"]

COMMANDS: Final = {
    "model": "Switch model: /model provider/id (without one: list models).",
    "thinking": "Thinking level: /thinking off|minimal|low|medium|high.",
    "gate": "Gate mode: /gate strict|normal|review|yolo (without one: what each does).",
    "tools": "The active tools and how each is governed.",
    "session": "This session: id, file, messages, tokens, cost.",
    "resume": "List this directory's sessions; /resume N or ID resumes one.",
    "fork": "Continue in a new session holding this one's history.",
    "compact": "Summarise the older part of the context now.",
    "export": "Write this session as one HTML page: /export [FILE].",
    "skills": "The skills here and their state; /skills trust loads this workspace's own.",
    "skill": "Load a skill into the conversation: /skill:NAME [what to do with it].",
    "tasks": "Background tasks with their last lines; /tasks kill ID stops one.",
    "runs": "Durable runs and who waits; /runs RUN attaches: follow it, answer its approvals.",
    "new": "Start a new, empty session.",
    "help": "These commands and the keys.",
    "quit": "Leave tether (also Ctrl-D, or Ctrl-C twice).",
}
_WHILE_RUNNING: Final = frozenset({"help", "quit", "session", "tools", "gate", "tasks"})
_TASK_LAST_LINES: Final = 3
_LISTED_RUNS: Final = 20
_REPLAYED_MESSAGES: Final = 6
UNTRUSTED_SKILLS_NOTE: Final = (
    "{count} project skill(s) are not loaded: a repository's skills can tell the model to run "
    "anything. Read them (tether skills show NAME), then /skills trust loads them."
)


class CommandHost(Protocol):
    runtime: Runtime
    transcript: Transcript
    styler: Styler
    abort_activity: Callable[[], None] | None
    activity_name: str
    attached: AttachedRun | None
    approver: InlineApprover
    screen: Any

    def is_running(self) -> bool: ...
    def quit(self) -> None: ...
    def replace_runtime(self, settings: RunSettings) -> Runtime: ...
    def start(self, text: str) -> None: ...
    def settings_for(self, **changes: Any) -> RunSettings: ...


class SlashCommands:
    def __init__(self, host: CommandHost) -> None:
        self.host = host
        self._listed: list[str] = []
        self._jobs: set[asyncio.Task[None]] = set()

    def run(self, line: str) -> None:
        name, _, argument = line[1:].strip().partition(" ")
        argument = argument.strip()
        if name.startswith("skill:"):  # /skill:NAME [task]
            name, argument = "skill", f"{name[len('skill:') :]} {argument}".strip()
        handler: Callable[[str], None] | None = getattr(self, f"_{name}", None)
        if name not in COMMANDS or handler is None:
            self._say(f"Unknown command /{name}; /help lists them.", "red")
            return
        if self.host.is_running() and name not in _WHILE_RUNNING:
            self._say(f"/{name} waits until the agent is done (Esc aborts it).", "yellow")
            return
        try:
            handler(argument)
        except (CommandError, RunSetupError) as exc:
            self._say(str(exc), "red")

    # -- the commands ----------------------------------------------------------------------------

    def _help(self, argument: str) -> None:
        lines = [f"/{name:<9} {text}" for name, text in COMMANDS.items()]
        lines += [
            "Keys: Enter sends · Alt-Enter or Shift-Enter or Ctrl-J newline · while working, "
            "Enter queues steering and Alt-Enter a follow-up · Esc or Ctrl-C aborts · Ctrl-O "
            "expands the last collapsed output · @ completes files · Ctrl-D quits · a "
            "message that begins with / is sent as //…"
        ]
        self._show(lines)

    def _quit(self, argument: str) -> None:
        self.host.quit()

    def _model(self, argument: str) -> None:
        from tether.ai.providers import list_models
        from tether.runtime import choose_model

        runtime = self.host.runtime
        current = runtime.model.ref
        if not argument:
            refs = [m.ref for m in list_models()]
            lines = [f"{'●' if ref == current else ' '} {ref}" for ref in refs]
            self._show(lines)
            self._say("Switch with /model provider/id.")
            return
        model = choose_model(argument)
        runtime.set_model(model)
        self._say(f"Model: {current} → {model.ref}", "green")

    def _thinking(self, argument: str) -> None:
        from ._parser import THINKING_LEVELS

        if argument not in THINKING_LEVELS:
            level = self.host.runtime.thinking_label
            raise CommandError(f"Thinking is {level}; choose one of {', '.join(THINKING_LEVELS)}.")
        self.host.runtime.set_thinking(as_reasoning_level(argument))
        self._say(f"Thinking: {argument}", "green")

    def _gate(self, argument: str) -> None:
        gate = self.host.runtime.gate
        if argument not in MODE_DESCRIPTIONS:
            lines = [
                f"{'●' if m == gate.mode else ' '} {m:<7} {t}" for m, t in MODE_DESCRIPTIONS.items()
            ]
            self._show(lines)
            self._say("Switch with /gate MODE; policy denials stay denied in every mode.")
            return
        before, gate.mode = gate.mode, argument  # type: ignore[assignment]
        self._say(f"Gate: {before} → {argument}", "bold red" if argument == "yolo" else "green")

    def _tools(self, argument: str) -> None:
        runtime = self.host.runtime
        lines = []
        for tool in runtime.agent.state.tools:
            definition = runtime.definitions.get(tool.name)
            governance = getattr(definition, "governance", None)
            notes = []
            if tool.metadata.get("sandboxed") is not None:
                notes.append("sandboxed" if tool.metadata["sandboxed"] else "not sandboxed")
            if getattr(governance, "default_confirm", False):
                notes.append("always asks")
            if governance is None:
                notes.append("no governance declared")
            lines.append(
                f"{tool.name:<6} {tool.label}" + (f" ({', '.join(notes)})" if notes else "")
            )
        lines.append(f"gate {runtime.gate.mode}: {MODE_DESCRIPTIONS[runtime.gate.mode]}")
        self._show(lines)

    def _session(self, argument: str) -> None:
        runtime = self.host.runtime
        session = runtime.session
        if session is None:
            self._say("This session is not recorded (--no-session).")
            return
        messages = runtime.agent.state.messages
        thinking = runtime.thinking_label
        lines = [
            f"id       {session.id}",
            f"file     {session.path}",
            f"name     {session.name or '-'}",
            f"messages {len(messages)}",
            f"model    {runtime.model.ref}, thinking {thinking}",
        ]
        self._show(lines)

    def _resume(self, argument: str) -> None:
        from tether.session import SessionStore

        runtime = self.host.runtime
        store = SessionStore(runtime.settings.sessions_dir)
        if not argument:
            infos = store.list(runtime.settings.cwd)
            current = runtime.session.id if runtime.session is not None else None
            self._listed = [info.id for info in infos]
            if not infos:
                self._say("No sessions in this directory yet.")
                return
            lines = []
            for number, info in enumerate(infos[:20], 1):
                mark = "●" if info.id == current else " "
                first = " ".join(info.first_message.split())[:50] or "(empty)"
                label = info.name or first
                lines.append(
                    f"{mark} {number:>2}  {info.id[:8]}  {info.message_count:>3} msgs  {label}"
                )
            self._show(lines)
            self._say("Resume with /resume N (or an id prefix).")
            return
        chosen = argument
        if argument.isdigit() and 0 < int(argument) <= len(self._listed):
            chosen = self._listed[int(argument) - 1]
        resumed = self.host.replace_runtime(self.host.settings_for(resume=chosen))
        if resumed.session is not None:
            self._say(f"Resumed session {resumed.session.id[:8]}.", "green")
        self.replay()

    def _fork(self, argument: str) -> None:
        session = self.host.runtime.session
        if session is None:
            raise CommandError("There is no session file to fork (--no-session).")
        forked = session.fork()
        forked.close()
        runtime = self.host.replace_runtime(self.host.settings_for(session_path=forked.path))
        assert runtime.session is not None
        self._say(f"Forked {session.id[:8]} into {runtime.session.id[:8]}.", "green")

    def _new(self, argument: str) -> None:
        runtime = self.host.replace_runtime(self.host.settings_for())
        where = runtime.session.id[:8] if runtime.session is not None else "not recorded"
        self._say(f"New session {where}.", "green")

    def _compact(self, argument: str) -> None:
        host, runtime = self.host, self.host.runtime
        before = runtime.compactor.context_tokens(list(runtime.agent.state.messages))
        controller = AbortController()
        written = [""]

        def progress(text: str) -> None:
            written[0] = text

        def describe() -> str:
            so_far = len(written[0]) // 4
            progress = f"summary ≈{count_tokens(so_far)} tokens so far" if so_far else "waiting"
            return f"compacting ≈{count_tokens(before)} tokens with {runtime.model.id} · {progress}"

        async def compact() -> None:
            try:
                outcome = await runtime.compact(controller.signal, progress)
            finally:
                host.abort_activity = None
                host.transcript.end_activity()
            if outcome.aborted:
                self._say("Compaction aborted; the context is unchanged.", "yellow")
            elif outcome.compacted:
                self._say(
                    f"Compacted: ≈{count_tokens(outcome.tokens_before)} → "
                    f"≈{count_tokens(outcome.tokens_after)} tokens; the older part of the "
                    "context is now a summary.",
                    "green",
                )
            elif outcome.error is not None:
                self._say(f"Compaction failed: {outcome.error}", "red")
            else:
                self._say("Nothing to compact yet.")

        host.abort_activity, host.activity_name = controller.abort, "/compact"
        host.transcript.start_activity(describe)
        self._job(compact())

    def _export(self, argument: str) -> None:
        from tether._home import open_private

        from ._html_export import session_html

        session = self.host.runtime.session
        if session is None:
            raise CommandError("There is no session to export (--no-session).")
        path = os.path.abspath(argument or f"tether-{session.id[:8]}.html")
        with open_private(path) as handle:
            handle.write(session_html(session))
        self._say(f"Exported to {path}", "green")

    def _skills(self, argument: str) -> None:
        from ._skills_command import skill_rows

        skills = self.host.runtime.skills
        if skills is None:
            raise CommandError("Skills are not loaded when the tools run on another host.")
        found = skills.activations.skills
        if argument == "trust":
            self._trust_workspace()
            return
        if argument:
            raise CommandError("Use /skills, or /skills trust.")
        loaded = skills.activations.loaded
        lines = [row + ("  ● loaded" if name in loaded else "") for name, row in skill_rows(found)]
        self._show(lines or ["No skills found. Where tether looks: docs/skills.md"])
        if found.untrusted:
            self._say(UNTRUSTED_SKILLS_NOTE.format(count=len(found.untrusted)), "yellow")
        elif lines:
            self._say("Load one with /skill:NAME; the model loads them with view_skill.")

    def _trust_workspace(self) -> None:
        from tether.skills import TrustStore

        runtime = self.host.runtime
        TrustStore().trust(runtime.settings.cwd)
        session = runtime.session
        changes = {"session_path": session.path} if session is not None else {}
        replaced = self.host.replace_runtime(self.host.settings_for(**changes))
        assert replaced.skills is not None
        project = [s.name for s in replaced.skills.activations.skills.skills.values()
                   if s.scope == "project"]  # fmt: skip
        self._say(
            f"Trusted {runtime.settings.cwd}; project skills loaded: "
            f"{', '.join(project) if project else 'none'}.",
            "green",
        )

    def _skill(self, argument: str) -> None:
        skills = self.host.runtime.skills
        name, _, task = argument.partition(" ")
        if not name:
            raise CommandError(
                "Name the skill: /skill:NAME [what to do with it]; /skills lists them."
            )
        if skills is None:
            raise CommandError("Skills are not loaded when the tools run on another host.")
        if name in skills.activations.loaded:
            self._say(f"Skill {name} is already loaded in this conversation.")
            if task.strip():
                self.host.start(task.strip())
            return
        try:
            content = skills.activate(name)
        except LookupError:
            raise CommandError(
                f"No skill named {name!r} here; /skills lists them (a project's own load after "
                "/skills trust)."
            ) from None
        self._say(f"Skill {name} loaded into the conversation.", "green")
        self.host.start(f"{content}\n\n{task.strip()}" if task.strip() else content)

    def _tasks(self, argument: str) -> None:
        tasks = self.host.runtime.tasks
        action, _, task_id = argument.partition(" ")
        if action == "kill":
            self._kill_task(task_id.strip())
            return
        if action:
            raise CommandError(f"/tasks {argument}: use /tasks, or /tasks kill ID.")
        listed = tasks.tasks()
        if not listed:
            self._say("No background tasks in this session.")
            return
        lines = []
        for task in listed:
            lines.append(f"#{task.id} {describe_task(task)} · {task.command}")
            tail = task.tail_text(1024).rstrip("\n").splitlines()[-_TASK_LAST_LINES:]
            lines.extend(f"    {line}" for line in tail)
        self._show(lines)
        self._say("/tasks kill ID stops one, with every process it started.")

    def _kill_task(self, task_id: str) -> None:
        if not task_id:
            raise CommandError("/tasks kill ID: which task? /tasks lists them.")
        tasks = self.host.runtime.tasks

        async def kill() -> None:
            outcome = await tasks.cancel(task_id)
            if outcome == "cancelled":
                self._say(f"Task {task_id} killed, with every process it started.", "green")
            elif outcome == "already_done":
                self._say(f"Task {task_id} had already ended.")
            else:
                self._say(f"No background task {task_id} in this session.", "red")

        self._job(kill())

    def _runs(self, argument: str) -> None:
        if " " in argument:
            raise CommandError("Use /runs, or /runs RUN to attach to one (tether runs list).")
        if argument:
            self._attach_run(argument)
        else:
            self._job(self._list_runs())

    async def _list_runs(self) -> None:
        try:
            engine, rows = await asyncio.to_thread(_runs_listing)
        except Exception as exc:  # no durable extra, no database: say why
            self._say(f"Cannot list durable runs: {exc}", "red")
            return
        self._say(engine)
        if not rows:
            self._say("No durable runs yet (tether runs submit --queue NAME -p TASK).")
            return
        self._show(rows)
        self._say("Attach with /runs RUN: follow it and answer the call it waits on.")

    def _attach_run(self, run_id: str) -> None:
        host = self.host

        async def attach() -> None:
            try:
                attachment = await asyncio.to_thread(_attachment, run_id, host)
            except Exception as exc:  # unknown run, no durable extra, no database
                self._say(f"Cannot attach to {run_id}: {exc}", "red")
                return
            host.attached, host.abort_activity = attachment.state, attachment.detach
            host.activity_name = f"the attachment to {run_id}"
            host.transcript.start_activity(
                lambda: f"attached to {attachment.state.run_text()}", "Esc detaches"
            )
            self._say(f"Attached to run {run_id} ({attachment.state.engine}).", "green")
            try:
                ended = await attachment.follow()
            except Exception as exc:  # the database went away: the run itself goes on
                ended = ""
                self._say(f"Lost the run's database: {exc}", "red")
            finally:
                host.attached, host.abort_activity = None, None
                host.transcript.end_activity()
            if ended:
                self._say(f"Run {run_id} ended: {ended.lower()}.", "green")
            else:
                self._say(f"Detached from run {run_id}; it goes on (/runs {run_id} again).")

        self._job(attach())

    def _job(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    # -- showing ---------------------------------------------------------------------------------

    def replay(self) -> None:
        """The last messages of a resumed session, so the person sees where it stands."""
        messages = [
            m
            for m in self.host.runtime.agent.state.messages
            if isinstance(m, UserMessage | AssistantMessage)
        ]
        shown = messages[-_REPLAYED_MESSAGES:]
        if len(messages) > len(shown):
            self._say(f"… {len(messages) - len(shown)} earlier messages")
        for message in shown:
            if isinstance(message, UserMessage):
                content = message.content
                text = (
                    content
                    if isinstance(content, str)
                    else " ".join(b.text for b in content if isinstance(b, TextContent))
                )
                self.host.transcript.user(text)
            elif message.text().strip():
                self.host.transcript.write(self.host.styler.markdown(message.text().strip()))

    def _show(self, lines: list[str]) -> None:
        styler = self.host.styler
        for line in lines:
            self.host.transcript.write(styler.block(line, "", "      ", "  ", prose=True))

    def _say(self, text: str, style: str = "dim") -> None:
        self.host.transcript.note(text, style)


def _runs_listing() -> tuple[str, list[str]]:
    """The engine line and one row per run (newest first), the ones that wait marked."""
    from tether.durable import RunsClient, database_url

    client = RunsClient(database_url())
    try:
        rows = []
        for run in client.list()[:_LISTED_RUNS]:
            waits = ""
            if run.status in ("PENDING", "ENQUEUED"):
                pending = client.pending(run.run_id)[1]
                if pending is not None:
                    waits = f"  ⏸ waits for a person: {pending['tool_name']}"
            task = " ".join(run.task.split())[:40]
            rows.append(f"{run.run_id}  {run.status:<9} {run.queue:<8} {task}{waits}")
        return client.info.line(), rows
    finally:
        client.close()


def _attachment(run_id: str, host: CommandHost) -> RunAttachment:
    from tether.durable import RunsClient, database_url

    from ._runs_command import run_session_path

    client = RunsClient(database_url())
    try:
        client.show(run_id)  # an unknown run says so now
    except BaseException:
        client.close()
        raise
    return RunAttachment(
        run_id,
        client,
        host.transcript,
        host.approver.surface,
        run_session_path(run_id),
        host.screen.invalidate,
    )
