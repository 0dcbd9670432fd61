"""``Agent``: a stateful front for the loop — a transcript, a tool set, queues and listeners."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Unpack

from tether.ai import (
    AbortController,
    AssistantMessage,
    Model,
    StreamFn,
    ToolResultMessage,
    UserMessage,
)

from ._dynamic_tools import activate_added_tools, refuse_duplicate_names, start_tool_set
from ._errors import AgentBusyError
from ._event_stream import AgentEventStream
from ._loop import agent_loop, agent_loop_continue
from ._types import (
    AgentContext,
    AgentEnd,
    AgentEvent,
    AgentLoopConfig,
    AgentMessage,
    AgentOptions,
    AgentTool,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
)

__all__ = ["Agent", "AgentState", "Listener"]

_log = logging.getLogger("tether.agent")

Listener = Callable[[AgentEvent], Awaitable[None] | None]

_LOOP_OPTIONS = AgentOptions.__optional_keys__
_NOT_MESSAGES = (int, float, bytes, list, tuple, dict, type(None))
"""Values no ``convert_to_llm`` is meant to map: a mistake, whatever the configuration."""


@dataclass(slots=True)
class AgentState:
    system_prompt: str
    model: Model
    tools: list[AgentTool]
    messages: list[AgentMessage] = field(default_factory=list)
    is_running: bool = False
    stream_message: AssistantMessage | None = None
    """The assistant message being streamed right now, if any."""
    pending_tool_calls: set[str] = field(default_factory=set)
    error: str | None = None
    """The error message of the last run's final assistant message, if it failed."""


class Agent:
    """Runs prompts through the agent loop and keeps the transcript between them.

    ``loop_options`` are :class:`AgentLoopConfig` fields, typed by :class:`AgentOptions`
    (``before_tool_call``, ``tool_execution``, ``convert_to_llm`` ...) and checked here, so a
    wrong value fails at the call (``TypeError`` / ``ValueError``), not inside a run. Hooks may
    be plain or coroutine functions. One run at a time: while a run is active, use
    :meth:`steer` (delivered after the current tool batch) or :meth:`follow_up` (delivered when
    the run would otherwise stop). Listeners are awaited in subscription order for every event; a
    failing listener is skipped, never allowed to break the run, and logged: its first failure
    with the traceback, later ones as a count at the end of each run.
    """

    def __init__(
        self,
        *,
        model: Model,
        stream_fn: StreamFn,
        system_prompt: str = "",
        tools: Iterable[AgentTool] = (),
        messages: Iterable[AgentMessage] = (),
        **loop_options: Unpack[AgentOptions],
    ) -> None:
        unknown = set(loop_options) - _LOOP_OPTIONS
        if unknown:
            raise TypeError(
                f"Unknown Agent option(s): {', '.join(sorted(unknown))}. "
                f"Valid loop options: {', '.join(sorted(_LOOP_OPTIONS))}."
            )
        prompt_builder = loop_options.get("system_prompt_for")
        if prompt_builder is not None and system_prompt:
            raise TypeError(
                "Give system_prompt or system_prompt_for, not both: system_prompt_for builds "
                "the system prompt from the active tools."
            )
        if not isinstance(system_prompt, str):
            raise TypeError(f"system_prompt must be a str, got {type(system_prompt).__name__}.")
        given = _checked_tools(tools, "tools")
        self._tool_set_config = AgentLoopConfig(model=model, stream_fn=stream_fn, **loop_options)
        refuse_duplicate_names(self._tool_set_config.available_tools, "available_tools")
        self.state = AgentState(system_prompt, model, list(given), list(messages))
        self.stream_fn = stream_fn
        self.loop_options = loop_options
        self._base_tools = given
        self._derive_tool_set()
        self._listeners: list[Listener] = []
        self._failed_listeners: set[int] = set()
        self._failures_this_run: dict[int, tuple[Listener, int]] = {}
        self._steering: list[AgentMessage] = []
        self._follow_ups: list[AgentMessage] = []
        self._controller: AbortController | None = None
        self._idle: asyncio.Future[None] | None = None
        self._stream: AgentEventStream | None = None

    async def prompt(self, message: str | AgentMessage) -> list[AgentMessage]:
        """Run one prompt to completion; returns the messages the run added."""
        self._ensure_idle("prompt")
        prompt = self._as_message(message, "prompt")
        return await self._run(
            lambda context, config, signal: agent_loop([prompt], context, config, signal)
        )

    async def resume(self) -> list[AgentMessage]:
        """Continue from the transcript as it is: after a failed turn (``state.error`` set), the
        turn is retried — the failed message stays in ``state.messages`` but is not sent again.
        Raises ``ValueError`` (and leaves the state as it was) when there is nothing to continue.
        """
        self._ensure_idle("resume")
        return await self._run(agent_loop_continue)

    def steer(self, message: str | AgentMessage) -> None:
        """Queue a message for the model, delivered after the current tool batch finishes."""
        self._steering.append(self._as_message(message, "steer"))

    def follow_up(self, message: str | AgentMessage) -> None:
        """Queue a message delivered once the current run would otherwise stop."""
        self._follow_ups.append(self._as_message(message, "follow_up"))

    def abort(self, reason: Any = None) -> None:
        """Abort the active run, if any; every pending tool call still gets a result."""
        if self._controller is not None:
            self._controller.abort(reason)

    async def wait_for_idle(self) -> None:
        """Return once no run is active."""
        if self._idle is not None and not self._idle.done():
            await asyncio.shield(self._idle)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every event; returns a function that unsubscribes.

        A tool starts only once listeners have handled its ``tool_execution_start`` (and every
        event before it), so a recorder's note that a call began is written before the call
        can act; a listener must therefore never wait for the run itself."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def set_tools(self, tools: Iterable[AgentTool]) -> None:
        """Replace the tool set; it applies from the next run on. Tools the transcript
        activated (``added_tool_names``) stay active, and ``system_prompt_for`` rebuilds the
        system prompt. Raises ``ValueError`` when two of them share a name."""
        self._base_tools = _checked_tools(tools, "set_tools")
        self._derive_tool_set()

    def _derive_tool_set(self) -> None:
        """``state.tools``: the tools given, then those the transcript activated (see
        :mod:`._dynamic_tools`) — worked out again from the transcript, so a rewound or
        replaced ``state.messages`` gives the tool set of that transcript; the system prompt
        follows when ``system_prompt_for`` is given."""
        state = self.state
        context = AgentContext(state.system_prompt, state.messages, list(self._base_tools))
        start_tool_set(context, self._tool_set_config)
        state.tools, state.system_prompt = context.tools, context.system_prompt

    def _activate(self, results: list[ToolResultMessage]) -> None:
        """What the loop activated after a batch (it logged any unknown name)."""
        state = self.state
        context = AgentContext(state.system_prompt, [], state.tools)
        activate_added_tools(context, results, self._tool_set_config, log_unknown=False)
        state.system_prompt = context.system_prompt

    def _as_message(self, message: str | AgentMessage, action: str) -> AgentMessage:
        """A str becomes a :class:`UserMessage`; anything the model could never be sent is
        refused here rather than stored and silently dropped from every request."""
        if isinstance(message, str):
            return UserMessage(message)
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            return message
        if self.loop_options.get("convert_to_llm") is not None and not isinstance(
            message, _NOT_MESSAGES
        ):
            return message  # an application message: convert_to_llm maps it
        raise TypeError(
            f"agent.{action}() takes a str or a message (UserMessage, for text and images), "
            f"got {type(message).__name__}: the model would never see it. Application messages "
            "need a convert_to_llm option that maps them."
        )

    def clear_queues(self) -> None:
        self._steering.clear()
        self._follow_ups.clear()

    def _ensure_idle(self, action: str) -> None:
        if self.state.is_running:
            raise AgentBusyError(
                f"Cannot {action}: the agent is already running. Use agent.steer(message) to "
                "redirect the current run, or agent.follow_up(message) to queue work for after "
                "it; or await agent.wait_for_idle() first."
            )

    async def _run(
        self,
        start: Callable[[AgentContext, AgentLoopConfig, Any], AgentEventStream],
    ) -> list[AgentMessage]:
        state = self.state
        config = AgentLoopConfig(
            model=state.model,
            stream_fn=self.stream_fn,
            get_steering_messages=self._take_steering,
            get_follow_up_messages=self._take_follow_ups,
            before_execute=self._listeners_caught_up,
            **self.loop_options,
        )
        self._derive_tool_set()  # the transcript may have been rewound or replaced
        context = AgentContext(state.system_prompt, list(state.messages), list(state.tools))
        controller = AbortController()
        stream = start(context, config, controller.signal)  # refuses a bad start: state kept
        state.is_running = True
        state.error = None
        self._controller = controller
        self._idle = asyncio.get_running_loop().create_future()
        self._stream = stream
        try:
            async for event in stream:
                self._apply(event)
                await self._notify(event)
            return await stream.result()
        finally:
            self._report_listener_failures()
            state.is_running = False
            state.stream_message = None
            state.pending_tool_calls.clear()
            self._controller = None
            self._stream = None
            if not self._idle.done():
                self._idle.set_result(None)

    async def _listeners_caught_up(self) -> None:
        """Queues are read only after listeners handled every earlier event (they may queue)."""
        if self._stream is not None:
            await self._stream.caught_up()

    async def _take_steering(self) -> list[AgentMessage]:
        await self._listeners_caught_up()
        taken, self._steering = self._steering, []
        return taken

    async def _take_follow_ups(self) -> list[AgentMessage]:
        await self._listeners_caught_up()
        taken, self._follow_ups = self._follow_ups, []
        return taken

    def _apply(self, event: AgentEvent) -> None:
        state = self.state
        if isinstance(event, MessageStart | MessageUpdate):
            if isinstance(event.message, AssistantMessage):
                state.stream_message = event.message
        elif isinstance(event, MessageEnd):
            state.stream_message = None
            state.messages.append(event.message)
        elif isinstance(event, ToolExecutionStart):
            state.pending_tool_calls.add(event.tool_call_id)
        elif isinstance(event, ToolExecutionEnd):
            state.pending_tool_calls.discard(event.tool_call_id)
        elif isinstance(event, TurnEnd):
            self._activate(event.tool_results)
        elif isinstance(event, AgentEnd):
            last = event.messages[-1] if event.messages else None
            if isinstance(last, AssistantMessage) and last.failed:
                state.error = last.error_message

    async def _notify(self, event: AgentEvent) -> None:
        for listener in list(self._listeners):
            try:
                outcome = listener(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                self._listener_failed(listener, event)

    def _listener_failed(self, listener: Listener, event: AgentEvent) -> None:
        """The first failure of a listener is logged with its traceback; later ones are only
        counted, and the count is logged once the run ends (a listener that breaks on every
        event would otherwise print a traceback per event)."""
        key = id(listener)
        if key not in self._failed_listeners:
            self._failed_listeners.add(key)
            _log.exception(
                "agent listener %r failed on %s; later failures are counted, not shown",
                listener,
                event.type,
            )
            return
        count = self._failures_this_run.get(key, (listener, 0))[1]
        self._failures_this_run[key] = (listener, count + 1)

    def _report_listener_failures(self) -> None:
        for listener, count in self._failures_this_run.values():
            _log.error("agent listener %r failed %d more time(s) in this run", listener, count)
        self._failures_this_run.clear()


def _checked_tools(tools: Iterable[AgentTool], where: str) -> list[AgentTool]:
    """``tools`` as a list, refusing what is not an :class:`AgentTool` and shared names."""
    checked = list(tools)
    for tool in checked:
        if not isinstance(tool, AgentTool):
            hint = (
                " (a ToolDefinition becomes one with .as_agent_tool())"
                if callable(getattr(tool, "as_agent_tool", None))
                else ""
            )
            raise TypeError(f"{where} must hold AgentTools, got {type(tool).__name__}{hint}.")
    refuse_duplicate_names(checked, where)
    return checked
