"""The run layer every mode drives: settings in, a governed agent recorded into a session out.

Print, JSON and RPC modes (and the terminal UI) all build their agent here: the model is
resolved (flag, session, configuration, API keys, the embedded model), the coding tools are
made for the working directory and governed by a gate, the session is created or resumed and
records the run, and the system prompt carries the context files. No mode holds agent logic.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from tether.agent import Agent, AgentTool
from tether.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    ReasoningLevel,
    StreamFn,
    StreamOptions,
    ToolResultMessage,
)
from tether.gate import Approver, Gate, PathPolicy
from tether.session import (
    Compactor,
    ModelChangeEntry,
    Session,
    SessionError,
    SessionStore,
    ThinkingLevelChangeEntry,
    find_context_files,
    record_tasks,
    settle_interrupted_calls,
    settle_lost_tasks,
)
from tether.tools import (
    BUILTIN_TOOLS,
    Task,
    TaskManager,
    ToolDefinition,
    build_system_prompt,
    coding_tool_catalog,
)

from ._errors import RunSetupError
from ._hands import REMOTE_HAND, open_hands, remote_hand
from ._model_choice import choose_model
from ._skills import RunSkills, load_run_skills
from ._task_announcer import TaskAnnouncer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from tether.mcp import McpClients
    from tether.remote import Hands, RemoteTarget, SSHOperations

__all__ = [
    "THINKING_OFF",
    "Compaction",
    "RunSettings",
    "Runtime",
    "as_reasoning_level",
    "build_runtime",
]


@dataclass(slots=True)
class RunSettings:
    """What a run was asked for (the command's options, already parsed)."""

    cwd: str
    model: str | None = None
    """``provider/id``; ``None``: the session's, else the default (:func:`choose_model`)."""
    thinking: ReasoningLevel | Literal["off"] | None = None
    """``None``: the session's level, else off."""
    tools: tuple[str, ...] = field(default_factory=BUILTIN_TOOLS.default_names)
    """The built-in tools (default: the registry's default set)."""
    mcp_tools: tuple[str, ...] | None = None
    """The other tools ``--tools`` named, each to be a tool of a configured MCP server
    (``mcp__SERVER__TOOL``); ``None`` (no ``--tools``): every accepted MCP tool is offered."""
    no_mcp: bool = False
    """Start no MCP server (``--no-mcp``)."""
    tool_choice: str | None = None
    """``auto``, ``required``, ``none`` or the name of an offered tool; ``None``: the server's."""
    gate: str | None = None
    continue_session: bool = False
    resume: str | None = None
    session_path: str | None = None
    no_session: bool = False
    sandbox: bool | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    sessions_dir: str | None = None
    remote: str | None = None
    """``[user@]host[:port][:/path]``: the tools run on that host over SSH (the gate runs here),
    through a hand there when one answers."""
    hand: str | None = None
    """A hand of ``config.toml`` to make current (``--hand NAME``)."""


THINKING_OFF: Final = "off"
"""How the command, the session file and the status line spell thinking that is off."""


@dataclass(frozen=True, slots=True)
class Compaction:
    """What :meth:`Runtime.compact` did."""

    tokens_before: int
    """The estimated tokens of the next request before it."""
    tokens_after: int
    compacted: bool
    """A summary replaced the older part of the context."""
    aborted: bool = False
    error: str | None = None
    """Why summarising failed; ``None`` when it worked, was aborted or found nothing to do."""


@dataclass(slots=True)
class Runtime:
    """A ready agent and what it was built from."""

    settings: RunSettings
    agent: Agent
    gate: Gate
    definitions: dict[str, ToolDefinition]
    session: Session | None
    compactor: Compactor
    resumed: bool = False
    detach: list[Any] = field(default_factory=list)
    remote: RemoteTarget | None = None
    """Where the tools run when not here (its ``path`` the working directory there)."""
    skills: RunSkills | None = None
    """The run's skills (``None`` with ``--remote``)."""
    hands: Hands | None = None
    """The run's hands, when any is configured or ``--remote`` runs through one."""

    @property
    def current_hand(self) -> str | None:
        return self.hands.current if self.hands is not None else None

    tasks: TaskManager = field(default_factory=TaskManager)
    """This session's background tasks."""
    announcer: TaskAnnouncer = field(init=False)

    def __post_init__(self) -> None:
        self.announcer = TaskAnnouncer(self.agent)

    @property
    def model(self) -> Model:
        """The model the next request goes to: the agent's (the compactor reads the same)."""
        return self.agent.state.model

    @property
    def thinking(self) -> ReasoningLevel | None:
        """The reasoning level of the next request; ``None``: thinking off."""
        options = self.agent.loop_options.get("stream_options")
        return options.reasoning if isinstance(options, StreamOptions) else None

    @property
    def thinking_label(self) -> str:
        """:attr:`thinking` as the command spells it: ``off`` or the level."""
        return self.thinking or THINKING_OFF

    async def prompt(self, text: str) -> None:
        """Run ``text``; a context-overflow error compacts once and retries the turn.
        Background tasks that ended unseen are told to the model first."""
        self.announcer.before_prompt()
        try:
            await self.agent.prompt(text)
            if self._overflowed():
                self.compactor.compact_before_next_request()
                await self.agent.resume()
        finally:
            self.announcer.after_run()

    async def compact(
        self,
        signal: AbortSignal | None = None,
        on_summary_text: Callable[[str], None] | None = None,
    ) -> Compaction:
        """Summarise the older part of the conversation now (``/compact``), whatever the
        estimate; what it did. ``signal`` aborts it (the context is then unchanged);
        ``on_summary_text`` sees the summary as it streams."""
        compactor = self.compactor
        messages = list(self.agent.state.messages)
        before, done = compactor.context_tokens(messages), compactor.compactions
        await compactor.compact_now(messages, signal, on_summary_text)
        aborted = signal is not None and signal.aborted
        compacted = not aborted and compactor.compactions > done
        return Compaction(
            tokens_before=before,
            tokens_after=compactor.context_tokens(messages),
            compacted=compacted,
            aborted=aborted,
            error=None if compacted or aborted else compactor.last_error,
        )

    def set_model(self, model: Model) -> None:
        """Use ``model`` from the next request on (recorded in the session)."""
        self.agent.state.model = model
        if self.session is not None:
            _record_choices(self.session, model, self.thinking)

    def set_thinking(self, level: ReasoningLevel | None) -> None:
        """Use reasoning ``level`` (``None``: off) from the next request on."""
        current = self.agent.loop_options.get("stream_options") or StreamOptions()
        self.agent.loop_options["stream_options"] = replace(current, reasoning=level)
        if self.session is not None:
            _record_choices(self.session, self.model, level)

    def _overflowed(self) -> bool:
        from tether.ai.providers import CONTEXT_OVERFLOW_NOTE

        messages = self.agent.state.messages
        last = messages[-1] if messages else None
        return (
            isinstance(last, AssistantMessage)
            and last.stop_reason == "error"
            and CONTEXT_OVERFLOW_NOTE in (last.error_message or "")
        )

    async def stop_tasks(self) -> list[Task]:
        """Stop the running background tasks (each whole tree) and return them, ended."""
        return await self.tasks.shutdown()

    def close(self) -> None:
        """End the session; tasks still running are killed (their reapers end each tree)."""
        self.tasks.kill_all()
        for unsubscribe in self.detach:
            unsubscribe()
        if self.session is not None:
            self.session.close()


def build_runtime(
    settings: RunSettings,
    approver: Approver | None,
    *,
    no_approver_hint: str | None = None,
    forced_hint: str | None = None,
    model: Model | None = None,
    stream_fn: StreamFn | None = None,
) -> Runtime:
    """Everything a run needs; a problem the person can fix is a :class:`RunSetupError`.

    ``no_approver_hint`` and ``forced_hint`` say how to allow a call nobody could be asked
    about: one that ``--gate yolo`` would run, and one that asks in every mode (the gate's).

    ``model`` and ``stream_fn`` replace the resolved model and the providers (the demo's
    scripted model)."""
    cwd = os.path.abspath(settings.cwd)
    if not os.path.isdir(cwd):
        raise RunSetupError(f"--cwd {settings.cwd}: not a directory")
    session, resumed = _open_checked_session(settings, cwd)
    if model is None:
        model = choose_model(settings.model or (session.model_ref() if session else None))
    thinking = as_reasoning_level(
        settings.thinking or (session.thinking_level() if session else None)
    )
    tools_cwd, operations, remote, through_hand = cwd, None, None, None
    if settings.remote is not None:
        target, operations, tools_cwd = _open_remote(settings.remote)
        remote = replace(target, path=tools_cwd)
        through_hand = remote_hand(operations, tools_cwd, settings.tools)
    tasks = TaskManager()
    catalog = coding_tool_catalog(
        tools_cwd,
        names=settings.tools,
        sandbox=settings.sandbox,
        operations=operations,
        tasks=tasks,
    )
    from tether.skills import preserved_skills

    messages = session.messages(preserve=preserved_skills) if session is not None else []
    skills = load_run_skills(cwd, model, session, messages) if operations is None else None
    for definition in skills.definitions if skills is not None else ():
        catalog.register(definition)
    tools: list[AgentTool] = list(catalog.snapshot().tools)
    definitions: dict[str, ToolDefinition] = {t.name: t.metadata["definition"] for t in tools}
    mcp_servers = _add_mcp_tools(settings, tools)
    gate = Gate(
        settings.gate or "normal",  # type: ignore[arg-type]
        approver,
        workspace=tools_cwd,
        path_resolver=operations,  # remote paths are resolved on the remote host
        path_policy=_skills_path_policy(tools_cwd, skills),
        no_approver_hint=no_approver_hint,
        forced_hint=forced_hint,
    )
    hands = open_hands(
        hand=settings.hand,
        remote=through_hand,
        replaces=list(definitions),
        gate=gate,
        approver=approver,
        no_approver_hint=no_approver_hint,
        session=session,
    )
    loop_options = _with_hands(hands, tools)
    if stream_fn is None:
        from tether.ai.providers import stream

        stream_fn = stream
    compactor = Compactor(session, lambda: agent.state.model, stream_fn, preserve=preserved_skills)
    agent = Agent(
        model=model,
        stream_fn=_forcing_once(stream_fn),
        system_prompt=settings.system_prompt or "",
        tools=tools,
        messages=messages,
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call,
        stream_options=StreamOptions(reasoning=thinking, tool_choice=settings.tool_choice),
        transform_context=compactor,
        **_prompt_builder(settings, tools_cwd, local=operations is None, skills=skills),
        **loop_options,
    )
    compactor.system_prompt = agent.state.system_prompt
    runtime = Runtime(settings, agent, gate, definitions, session, compactor, resumed)
    runtime.remote, runtime.skills, runtime.hands = remote, skills, hands
    if hands is not None:
        runtime.detach.append(hands.close_now)
    _attach_tasks(runtime, tasks)
    if operations is not None:
        runtime.detach.append(operations.close_now)
    if mcp_servers is not None:
        runtime.detach.append(mcp_servers.close)
    if session is not None:
        _record_choices(session, model, thinking)
        runtime.detach.append(session.attach(agent, gate))
        if resumed:
            settle_lost_tasks(session, tasks)
        runtime.detach.append(record_tasks(session, tasks, gate))
    return runtime


def _attach_tasks(runtime: Runtime, tasks: TaskManager) -> None:
    """The run's background tasks, and the announcer that tells the model when one ends."""
    runtime.tasks = tasks
    runtime.detach.append(tasks.subscribe(runtime.announcer.on_task_event))
    runtime.detach.append(runtime.agent.subscribe(runtime.announcer.on_agent_event))


def _open_checked_session(settings: RunSettings, cwd: str) -> tuple[Session | None, bool]:
    """The run's session, writable (one that cannot be saved fails before the run), with the
    calls a run that died left unanswered answered now."""
    session, resumed = _open_session(settings, cwd)
    if session is not None:
        try:
            session.ensure_writable()
        except SessionError as exc:
            raise RunSetupError(str(exc)) from None
    if resumed and session is not None:
        settle_interrupted_calls(session)
    return session, resumed


def _check_tool_choice(choice: str | None, tools: list[AgentTool]) -> None:
    """``--tool-choice`` names a choice or a tool this run offers, else a usage error now."""
    from tether.ai.providers import TOOL_CHOICES

    names = [tool.name for tool in tools]
    if choice is None or choice in TOOL_CHOICES or choice in names:
        return
    import difflib

    close = difflib.get_close_matches(choice, names, n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise RunSetupError(
        f"--tool-choice {choice}: not auto, required, none or a tool this run offers{hint};"
        f" offered: {', '.join(names) or 'no tools'}"
    )


def _add_mcp_tools(settings: RunSettings, tools: list[AgentTool]) -> McpClients | None:
    """The run's MCP servers, connected unless ``--no-mcp`` or a ``--tools`` naming none of
    their tools leaves nothing to start, with the tools offered added to ``tools``; a bad
    ``--tools`` or ``--tool-choice`` stops the servers and is a usage error."""
    wanted = not settings.no_mcp and settings.mcp_tools != ()
    servers = _connect_mcp_servers(settings.mcp_tools) if wanted else None
    try:
        tools.extend(_offered_mcp_tools(settings, servers))
        _check_tool_choice(settings.tool_choice, tools)
    except RunSetupError:
        if servers is not None:
            servers.close()
        raise
    return servers


def _offered_mcp_tools(settings: RunSettings, servers: McpClients | None) -> list[AgentTool]:
    """The MCP tools the run offers: every accepted one, or only those ``--tools`` names; a
    name that is neither built-in nor a tool of a configured server is a usage error now."""
    requested = settings.mcp_tools
    if requested is None:
        return servers.tools() if servers is not None else []
    unknown = servers.unknown_tool_names(requested) if servers is not None else list(requested)
    if unknown:
        if servers is not None:
            mcp = ", ".join(servers.known_tool_names()) or "none listed"
            of_servers = f"tools of the MCP servers: {mcp}"
        elif settings.no_mcp:
            of_servers = "no MCP tools (--no-mcp)"
        else:
            of_servers = "no MCP tools (no MCP server in config.toml)"
        raise RunSetupError(
            f"--tools: unknown tool(s) {', '.join(unknown)}; built-in tools: "
            f"{', '.join(BUILTIN_TOOLS)}; {of_servers}"
        )
    return servers.tools(only=requested) if servers is not None else []


def _forcing_once(stream_fn: StreamFn) -> StreamFn:
    """``stream_fn`` where a forcing tool choice (``required``, a tool's name) applies to the
    request that answers the person's message, not to those that answer tool results: forced
    on every request, the model could never give its answer and the run would never end."""

    def forced_once(
        model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        choice = options.tool_choice
        last = context.messages[-1] if context.messages else None
        if choice not in (None, "auto", "none") and isinstance(last, ToolResultMessage):
            options = replace(options, tool_choice=None)
        return stream_fn(model, context, options)

    return forced_once


def _with_hands(hands: Hands | None, tools: list[AgentTool]) -> dict[str, Any]:
    """The loop options that show a current hand's tools; the Mind's tools over configured
    hands are added to ``tools``."""
    if hands is None:
        return {}
    if any(name != REMOTE_HAND for name in hands.configs):
        from tether.remote import mind_tools

        tools.extend(mind_tools(hands))
    return {"tools_for_request": hands.tools_for_request}


def _connect_mcp_servers(for_tools: tuple[str, ...] | None) -> McpClients | None:
    """The MCP servers of ``config.toml`` (with ``--tools``, only those of the MCP tools it
    names), connected (their tools governed and pinned), or ``None`` when none is configured;
    see :mod:`tether.mcp`."""
    from tether.mcp import McpConfigError, connect_configured_servers

    try:
        return connect_configured_servers(for_tools=for_tools)
    except McpConfigError as exc:
        raise RunSetupError(str(exc)) from None


def _open_remote(spec: str) -> tuple[RemoteTarget, SSHOperations, str]:
    """``--remote``'s target, its SSH operations and the remote working directory, checked
    before the run."""
    from tether.remote import (
        RemoteConnectionError,
        RemoteTargetError,
        open_remote_workspace,
        parse_remote_target,
    )

    try:
        target = parse_remote_target(spec)
        return (target, *open_remote_workspace(target))
    except (RemoteTargetError, RemoteConnectionError) as exc:
        raise RunSetupError(f"--remote: {exc}") from None


def _skills_path_policy(cwd: str, skills: RunSkills | None) -> PathPolicy | None:
    """The loaded skills' directories are read like the workspace and never written."""
    if skills is None or not skills.directories:
        return None
    directories = skills.directories
    return PathPolicy(os.path.realpath(cwd), readable=directories, extra_protected=directories)


def _prompt_builder(
    settings: RunSettings, cwd: str, *, local: bool = True, skills: RunSkills | None = None
) -> dict[str, Any]:
    """Context files are read from ``cwd`` only when it is on this machine; the skills catalog
    comes before the person's ``--append-system-prompt``."""
    if settings.system_prompt is not None:
        return {}
    sections = (skills.catalog if skills is not None else None, settings.append_system_prompt)
    builder = partial(
        build_system_prompt,
        cwd=cwd,
        append="\n\n".join(s for s in sections if s) or None,
        context_files=find_context_files(cwd) if local else [],
    )
    return {"system_prompt_for": builder}


def _open_session(settings: RunSettings, cwd: str) -> tuple[Session | None, bool]:
    if settings.no_session:
        return None, False
    store = SessionStore(settings.sessions_dir)
    try:
        if settings.session_path is not None:
            if os.path.exists(settings.session_path):
                return store.open(os.path.abspath(settings.session_path)), True
            return Session.create(os.path.abspath(settings.session_path), cwd, _new_id()), False
        if settings.resume:
            return store.open(settings.resume), True
        if settings.resume == "":
            recent = store.most_recent(cwd)
            if recent is None:
                raise RunSetupError(f"No session to resume in {cwd}; run without -r to start one")
            return recent, True
        if settings.continue_session:
            recent = store.most_recent(cwd)
            if recent is not None:
                return recent, True
        return store.create(cwd), False
    except SessionError as exc:
        raise RunSetupError(str(exc)) from None


def _new_id() -> str:
    import uuid

    return uuid.uuid4().hex


def as_reasoning_level(level: str | None) -> ReasoningLevel | None:
    """A level as the command or a session file spells it (``off``, ``minimal`` … ``high``) as
    the reasoning level of a request; ``None`` for off."""
    if level in get_args(ReasoningLevel):
        return level  # type: ignore[return-value]
    if level in (None, THINKING_OFF):
        return None
    levels = ", ".join(get_args(ReasoningLevel))
    raise RunSetupError(f"thinking level {level!r}: expected {THINKING_OFF} or {levels}")


def _record_choices(session: Session, model: Model, thinking: ReasoningLevel | None) -> None:
    if session.model_ref() != model.ref:
        session.append(ModelChangeEntry(provider=model.provider, model=model.id))
    if as_reasoning_level(session.thinking_level()) != thinking:
        session.append(ThinkingLevelChangeEntry(level=thinking or THINKING_OFF))
