"""``@tool``: a typed Python function becomes an :class:`AgentTool`.

The parameter schema comes from the signature (via pydantic), the description from the docstring.
Parameters named ``signal``, ``on_update`` or ``tool_call_id`` are injected by the runtime and not
shown to the model. A function whose only parameter is a pydantic model receives a validated
instance of it. Synchronous functions run in a worker thread so they never block the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, get_type_hints, overload

import pydantic

from tether.ai import AbortSignal

from ._types import AgentTool, AgentToolResult, ExecutionMode, UpdateCallback

__all__ = ["tool"]

_INJECTED = frozenset({"signal", "on_update", "tool_call_id"})


@overload
def tool(fn: Callable[..., Any], /) -> AgentTool: ...
@overload
def tool(
    *,
    name: str | None = None,
    label: str | None = None,
    description: str | None = None,
    execution_mode: ExecutionMode | None = None,
) -> Callable[[Callable[..., Any]], AgentTool]: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    label: str | None = None,
    description: str | None = None,
    execution_mode: ExecutionMode | None = None,
) -> AgentTool | Callable[[Callable[..., Any]], AgentTool]:
    """Turn a function into an :class:`AgentTool`; usable bare (``@tool``) or with options."""

    def build(function: Callable[..., Any]) -> AgentTool:
        tool_name = name or function.__name__
        return AgentTool(
            name=tool_name,
            label=label or tool_name.replace("_", " ").title(),
            description=description or inspect.getdoc(function) or "",
            parameters=_parameters_model(function, tool_name),
            execute=_executor(function),
            execution_mode=execution_mode,
        )

    return build(fn) if fn is not None else build


def _visible_parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(function).parameters.values()
        if p.name not in _INJECTED and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _parameters_model(function: Callable[..., Any], tool_name: str) -> type[pydantic.BaseModel]:
    hints = get_type_hints(function, include_extras=True)
    visible = _visible_parameters(function)
    if len(visible) == 1:
        only = hints.get(visible[0].name)
        if isinstance(only, type) and issubclass(only, pydantic.BaseModel):
            return only
    fields: dict[str, Any] = {}
    for parameter in visible:
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    model_name = "".join(part.title() for part in tool_name.split("_")) + "Arguments"
    return pydantic.create_model(model_name, **fields)


def _executor(function: Callable[..., Any]) -> Callable[..., Any]:
    visible = _visible_parameters(function)
    names = [p.name for p in visible]
    wants = _INJECTED & set(inspect.signature(function).parameters)
    hints = get_type_hints(function, include_extras=True)
    whole_model = (
        len(visible) == 1
        and isinstance(hints.get(names[0]), type)
        and issubclass(hints[names[0]], pydantic.BaseModel)
    )
    is_async = inspect.iscoroutinefunction(function)

    async def execute(
        tool_call_id: str,
        params: pydantic.BaseModel,
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> AgentToolResult | str:
        if whole_model:
            kwargs: dict[str, Any] = {names[0]: params}
        else:
            kwargs = {key: getattr(params, key) for key in names}
        if "signal" in wants:
            kwargs["signal"] = signal
        if "on_update" in wants:
            kwargs["on_update"] = on_update
        if "tool_call_id" in wants:
            kwargs["tool_call_id"] = tool_call_id
        if is_async:
            output = await function(**kwargs)
        else:
            output = await asyncio.to_thread(functools.partial(function, **kwargs))
        return _as_result(output)

    return execute


def _as_result(output: Any) -> AgentToolResult | str:
    if isinstance(output, AgentToolResult | str):
        return output
    if output is None:
        return ""
    if isinstance(output, pydantic.BaseModel):
        return output.model_dump_json()
    try:
        return json.dumps(output, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(output)
