"""``ToolDefinition``: a tool as the product knows it — an :class:`AgentTool` plus what the
product needs around it (system-prompt text, rendering, governance) and a fifth ``execute``
argument, the :class:`ToolContext`. :func:`wrap_tool_definition` turns it into the
:class:`AgentTool` the loop runs; the loop never learns that a context exists.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pydantic

from tether.agent import AgentTool, AgentToolResult, ExecutionMode, UpdateCallback
from tether.ai import AbortSignal
from tether.gate import govern

__all__ = [
    "DefinitionExecute",
    "ToolContext",
    "ToolDefinition",
    "ToolRun",
    "run_as_execute",
    "wrap_tool_definition",
]


@dataclass(slots=True)
class ToolContext:
    """What a product tool may know about its session beyond its arguments."""

    cwd: str
    signal: AbortSignal | None = None
    """The session's abort signal (the call's own signal is ``execute``'s third argument)."""
    extra: dict[str, Any] = field(default_factory=dict)


DefinitionExecute = Callable[
    [str, Any, AbortSignal, UpdateCallback | None, ToolContext], Awaitable[AgentToolResult | str]
]

ToolRun = Callable[[dict[str, Any], AbortSignal], Awaitable[AgentToolResult]]
"""The part of an ``execute`` most tools need: the call's arguments and its abort signal."""


def run_as_execute(run: ToolRun) -> DefinitionExecute:
    """``run`` as a full :data:`DefinitionExecute`, for a tool that has no use for the call's
    id, its progress callback or the context."""

    async def execute(
        tool_call_id: str,
        params: Any,
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ToolContext,
    ) -> AgentToolResult:
        return await run(params, signal)

    return execute


@dataclass(slots=True)
class ToolDefinition:
    """The fields of :class:`AgentTool`, an ``execute`` that also takes ``ctx``, and product parts.

    ``prompt_snippet`` is the one line the system prompt lists for this tool;
    ``prompt_guidelines`` are rules added to the system prompt while the tool is active;
    ``render_call`` / ``render_result`` let a front end show calls and results its own way;
    ``governance`` holds the system-side controls of :mod:`tether.gate` (never shown to a model).
    """

    name: str
    label: str
    description: str
    parameters: dict[str, Any] | type[pydantic.BaseModel]
    execute: DefinitionExecute
    prepare_arguments: Callable[[Any], Any] | None = None
    execution_mode: ExecutionMode | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] = field(default_factory=list)
    render_call: Callable[[Any], str] | None = None
    render_result: Callable[[AgentToolResult, bool], str] | None = None
    governance: Any = None

    def as_agent_tool(self) -> AgentTool:
        """This definition wrapped with the default context (see :func:`wrap_tool_definition`)."""
        return wrap_tool_definition(self)


def wrap_tool_definition(
    definition: ToolDefinition, ctx_factory: Callable[[], ToolContext] | None = None
) -> AgentTool:
    """An :class:`AgentTool` that calls ``definition.execute`` with a context made per call.

    Without ``ctx_factory`` the context has the process's working directory and the call's
    signal. The definition's ``governance`` is put into ``metadata["governance"]``, and a
    governed tool comes out in its model-facing form (no ``x-review`` in its schema, the injected
    ``confirm`` consumed before ``execute``; see :func:`tether.gate.govern`).
    """
    run = definition.execute

    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult | str:
        ctx = ctx_factory() if ctx_factory is not None else ToolContext(os.getcwd(), signal)
        return await run(tool_call_id, params, signal, on_update, ctx)

    metadata = dict(definition.metadata)
    metadata["definition"] = definition
    if definition.governance is not None:
        metadata["governance"] = definition.governance
    return govern(
        AgentTool(
            name=definition.name,
            label=definition.label,
            description=definition.description,
            parameters=definition.parameters,
            execute=execute,
            prepare_arguments=definition.prepare_arguments,
            execution_mode=definition.execution_mode,
            metadata=metadata,
        )
    )
