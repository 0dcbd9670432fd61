"""The run layer every mode drives: settings in, a governed agent recorded into a session out.

Print, JSON and RPC modes (and the terminal UI) all build their agent here: the model is
resolved (flag, session, configuration, API keys, the embedded model), the coding tools are
made for the working directory and governed by a gate, the session is created or resumed and
records the run, and the system prompt carries the context files. No mode holds agent logic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from tether.agent import Agent
from tether.ai import (
    AbortSignal,
    AssistantMessage,
    Model,
    ReasoningLevel,
    StreamOptions,
)
from tether.gate import Gate
from tether.session import (
    Compactor,
    ModelChangeEntry,
    Session,
    ThinkingLevelChangeEntry,
)
from tether.tools import (
    BUILTIN_TOOLS,
    Task,
    TaskManager,
    ToolDefinition,
)

from ._errors import RunSetupError
from ._skills import RunSkills
from ._task_announcer import TaskAnnouncer

if TYPE_CHECKING:
    from tether.remote import Hands, RemoteTarget

__all__ = [
    "THINKING_OFF",
    "Compaction",
    "RunSettings",
    "Runtime",
    "as_reasoning_level",
    "record_choices",
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
            record_choices(self.session, model, self.thinking)

    def set_thinking(self, level: ReasoningLevel | None) -> None:
        """Use reasoning ``level`` (``None``: off) from the next request on."""
        current = self.agent.loop_options.get("stream_options") or StreamOptions()
        self.agent.loop_options["stream_options"] = replace(current, reasoning=level)
        if self.session is not None:
            record_choices(self.session, self.model, level)

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


def as_reasoning_level(level: str | None) -> ReasoningLevel | None:
    """A level as the command or a session file spells it (``off``, ``minimal`` … ``high``) as
    the reasoning level of a request; ``None`` for off."""
    if level in get_args(ReasoningLevel):
        return level  # type: ignore[return-value]
    if level in (None, THINKING_OFF):
        return None
    levels = ", ".join(get_args(ReasoningLevel))
    raise RunSetupError(f"thinking level {level!r}: expected {THINKING_OFF} or {levels}")


def record_choices(session: Session, model: Model, thinking: ReasoningLevel | None) -> None:
    if session.model_ref() != model.ref:
        session.append(ModelChangeEntry(provider=model.provider, model=model.id))
    if as_reasoning_level(session.thinking_level()) != thinking:
        session.append(ThinkingLevelChangeEntry(level=thinking or THINKING_OFF))
