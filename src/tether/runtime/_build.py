"""How :func:`build_runtime` puts a run together, phase by phase: the working directory and the
session, where the tools run (here, a ``--remote`` host, a hand), the governed tool set with the
skills and the MCP servers' tools, the gate and the hands, the agent and its compactor, and what
the session records."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from tether.agent import Agent, AgentTool
from tether.ai import (
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
    Session,
    SessionError,
    SessionStore,
    find_context_files,
    record_tasks,
    settle_interrupted_calls,
    settle_lost_tasks,
)
from tether.tools import (
    BUILTIN_TOOLS,
    TaskManager,
    ToolDefinition,
    build_system_prompt,
    coding_tool_catalog,
)

from ._errors import RunSetupError
from ._hands import REMOTE_HAND, open_hands, remote_hand
from ._model_choice import choose_model
from ._runtime import RunSettings, Runtime, as_reasoning_level, record_choices
from ._skills import RunSkills, load_run_skills

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from tether.agent import AgentMessage
    from tether.mcp import McpClients
    from tether.remote import HandConfig, Hands, RemoteTarget, SSHOperations

__all__ = ["build_runtime"]


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
    place = _where_tools_run(settings, cwd)
    tasks = TaskManager()
    toolset = _run_tools(settings, cwd, place, tasks, model, session)
    hints = _Hints(no_approver_hint, forced_hint)
    gate = _gate(settings, place, toolset.skills, approver, hints)
    hands = open_hands(
        hand=settings.hand,
        remote=place.hand_remote,
        replaces=list(toolset.definitions),
        gate=gate,
        approver=approver,
        no_approver_hint=no_approver_hint,
        session=session,
    )
    agent, compactor = _agent(
        settings, model, thinking, stream_fn or _providers(), toolset, gate, hands, place, session
    )
    runtime = Runtime(settings, agent, gate, toolset.definitions, session, compactor, resumed)
    runtime.remote, runtime.skills, runtime.hands = place.remote, toolset.skills, hands
    _close_with_the_run(runtime, place, toolset, hands)
    _attach_tasks(runtime, tasks)
    if session is not None:
        _record_into(session, runtime, tasks, resumed=resumed)
    return runtime


@dataclass(frozen=True, slots=True)
class _ToolsPlace:
    """Where the tools run: ``cwd`` here, or on a ``--remote`` host over ``operations``
    (``remote`` names it; ``hand_remote`` is the hand there, when one answers)."""

    cwd: str
    operations: SSHOperations | None = None
    remote: RemoteTarget | None = None
    hand_remote: HandConfig | None = None


@dataclass(frozen=True, slots=True)
class _Toolset:
    tools: list[AgentTool]
    definitions: dict[str, ToolDefinition]
    skills: RunSkills | None
    messages: list[AgentMessage]
    mcp_servers: McpClients | None


@dataclass(frozen=True, slots=True)
class _Hints:
    no_approver: str | None
    forced: str | None


def _where_tools_run(settings: RunSettings, cwd: str) -> _ToolsPlace:
    if settings.remote is None:
        return _ToolsPlace(cwd)
    target, operations, tools_cwd = _open_remote(settings.remote)
    hand = remote_hand(operations, tools_cwd, settings.tools)
    return _ToolsPlace(tools_cwd, operations, replace(target, path=tools_cwd), hand)


def _run_tools(
    settings: RunSettings,
    cwd: str,
    place: _ToolsPlace,
    tasks: TaskManager,
    model: Model,
    session: Session | None,
) -> _Toolset:
    """The coding tools for ``place``, the skills (on this machine only) and the MCP tools."""
    catalog = coding_tool_catalog(
        place.cwd,
        names=settings.tools,
        sandbox=settings.sandbox,
        operations=place.operations,
        tasks=tasks,
    )
    from tether.skills import preserved_skills

    messages = session.messages(preserve=preserved_skills) if session is not None else []
    local = place.operations is None
    skills = load_run_skills(cwd, model, session, messages) if local else None
    for definition in skills.definitions if skills is not None else ():
        catalog.register(definition)
    tools: list[AgentTool] = list(catalog.snapshot().tools)
    definitions: dict[str, ToolDefinition] = {t.name: t.metadata["definition"] for t in tools}
    mcp_servers = _add_mcp_tools(settings, tools)
    return _Toolset(tools, definitions, skills, messages, mcp_servers)


def _gate(
    settings: RunSettings,
    place: _ToolsPlace,
    skills: RunSkills | None,
    approver: Approver | None,
    hints: _Hints,
) -> Gate:
    return Gate(
        settings.gate or "normal",  # type: ignore[arg-type]
        approver,
        workspace=place.cwd,
        path_resolver=place.operations,  # remote paths are resolved on the remote host
        path_policy=_skills_path_policy(place.cwd, skills),
        no_approver_hint=hints.no_approver,
        forced_hint=hints.forced,
    )


def _providers() -> StreamFn:
    from tether.ai.providers import stream

    return stream


def _agent(
    settings: RunSettings,
    model: Model,
    thinking: ReasoningLevel | None,
    stream_fn: StreamFn,
    toolset: _Toolset,
    gate: Gate,
    hands: Hands | None,
    place: _ToolsPlace,
    session: Session | None,
) -> tuple[Agent, Compactor]:
    """The governed agent, and the compactor that reads its model when it summarises."""
    from tether.skills import preserved_skills

    compactor = Compactor(session, lambda: agent.state.model, stream_fn, preserve=preserved_skills)
    local = place.operations is None
    agent = Agent(
        model=model,
        stream_fn=_forcing_once(stream_fn),
        system_prompt=settings.system_prompt or "",
        tools=toolset.tools,
        messages=toolset.messages,
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call,
        stream_options=StreamOptions(reasoning=thinking, tool_choice=settings.tool_choice),
        transform_context=compactor,
        **_prompt_builder(settings, place.cwd, local=local, skills=toolset.skills),
        **_with_hands(hands, toolset.tools),
    )
    compactor.system_prompt = agent.state.system_prompt
    return agent, compactor


def _close_with_the_run(
    runtime: Runtime, place: _ToolsPlace, toolset: _Toolset, hands: Hands | None
) -> None:
    """What :meth:`Runtime.close` ends: the hands, the SSH connection, the MCP servers."""
    if hands is not None:
        runtime.detach.append(hands.close_now)
    if place.operations is not None:
        runtime.detach.append(place.operations.close_now)
    if toolset.mcp_servers is not None:
        runtime.detach.append(toolset.mcp_servers.close)


def _record_into(session: Session, runtime: Runtime, tasks: TaskManager, *, resumed: bool) -> None:
    """The session records the model and thinking level, the run, the gate and the tasks."""
    record_choices(session, runtime.model, runtime.thinking)
    runtime.detach.append(session.attach(runtime.agent, runtime.gate))
    if resumed:
        settle_lost_tasks(session, tasks)
    runtime.detach.append(record_tasks(session, tasks, runtime.gate))


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
