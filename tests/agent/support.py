"""Shared helpers for the layer-2 tests (a package: ``from .support import ...``).

Everything here drives the public API only. Keep signatures stable: several test modules use them.

- :func:`run` runs one ``agent_loop`` to completion and returns a :class:`Run` (events + messages).
- :func:`make_tool` builds an :class:`AgentTool` around any ``execute`` coroutine function.
- :func:`echo_tool` returns its ``text`` argument; a :class:`Recorder` keeps the params it got.
- :func:`slow_tool` sleeps (or waits for an ``asyncio.Event``) and logs ``("start"|"end", name)``.
- :func:`collapse` squeezes repeated event types (``message_update``/``tool_execution_update``).
- :func:`text_of` joins the text blocks of a message or result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tether.agent import (
    AbortSignal,
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    agent_loop,
)
from tether.ai import TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel

__all__ = [
    "ECHO_SCHEMA",
    "Recorder",
    "Run",
    "collapse",
    "echo_tool",
    "make_tool",
    "run",
    "slow_tool",
    "text_of",
]

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}


@dataclass
class Run:
    """The outcome of one run: every event in order and the new messages ``result()`` returned."""

    events: list[AgentEvent]
    messages: list[Any]

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def of(self, type_: str) -> list[Any]:
        """The events of one ``type`` (e.g. ``"tool_execution_end"``), in order."""
        return [event for event in self.events if event.type == type_]

    @property
    def tool_results(self) -> list[ToolResultMessage]:
        """The tool-result messages among the new messages, in transcript order."""
        return [m for m in self.messages if isinstance(m, ToolResultMessage)]


async def run(
    fm: FauxModel,
    tools: Sequence[AgentTool] = (),
    prompt: str | Any = "go",
    *,
    history: Sequence[Any] = (),
    system_prompt: str = "",
    signal: AbortSignal | None = None,
    **config: Any,
) -> Run:
    """Run ``agent_loop`` with ``prompt`` (a str becomes a ``UserMessage``) against ``fm``.

    ``config`` is passed to :class:`AgentLoopConfig` (``before_tool_call=...``, ...).
    """
    message = UserMessage(prompt) if isinstance(prompt, str) else prompt
    context = AgentContext(system_prompt, list(history), list(tools))
    stream = agent_loop(
        [message], context, AgentLoopConfig(model=fm.model, stream_fn=fm.stream, **config), signal
    )
    events = [event async for event in stream]
    messages = await stream.result()
    return Run(events, messages)


def make_tool(
    name: str,
    execute: Callable[..., Awaitable[Any]],
    parameters: dict[str, Any] | type | None = None,
    **options: Any,
) -> AgentTool:
    """An :class:`AgentTool`; ``parameters`` defaults to an open object schema."""
    return AgentTool(
        name=name,
        label=name.title(),
        description=f"The {name} tool.",
        parameters=parameters if parameters is not None else {"type": "object"},
        execute=execute,
        **options,
    )


@dataclass
class Recorder:
    """What a recording tool saw: the params of each call and how many times it executed."""

    params: list[Any] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.params)


def echo_tool(name: str = "echo", recorder: Recorder | None = None, **options: Any) -> AgentTool:
    """Returns ``params["text"]`` as its result; appends the params it received to ``recorder``."""

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        if recorder is not None:
            recorder.params.append(params)
        return AgentToolResult([TextContent(params["text"])], details={"echoed": params["text"]})

    return make_tool(name, execute, ECHO_SCHEMA, **options)


def slow_tool(
    name: str,
    log: list[tuple[str, str]],
    *,
    delay: float = 0.0,
    gate: asyncio.Event | None = None,
    **options: Any,
) -> AgentTool:
    """Logs ``("start", name)``, sleeps ``delay`` (and waits for ``gate`` if given), logs
    ``("end", name)`` and returns ``f"{name} done"``."""

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        log.append(("start", name))
        await asyncio.sleep(delay)
        if gate is not None:
            await gate.wait()
        log.append(("end", name))
        return f"{name} done"

    return make_tool(name, execute, **options)


def collapse(types: Sequence[str]) -> list[str]:
    """Event types with runs of the same repeated type squeezed to one."""
    out: list[str] = []
    for type_ in types:
        if not out or out[-1] != type_ or type_ not in ("message_update", "tool_execution_update"):
            out.append(type_)
    return out


def text_of(message: Any) -> str:
    """The text blocks of a message or an :class:`AgentToolResult`, joined."""
    return "".join(block.text for block in message.content if isinstance(block, TextContent))
