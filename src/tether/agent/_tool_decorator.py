"""``@tool``: a typed Python function becomes an :class:`AgentTool`.

The parameter schema comes from the signature (via pydantic), the description from the docstring,
and each parameter's description from the docstring's ``Args:`` section. Parameters named
``signal``, ``on_update`` or ``tool_call_id`` are injected by the runtime and not shown to the
model; ``*args`` and ``**kwargs`` are refused (a tool call passes named arguments only). A
function whose only parameter is a pydantic model receives a validated instance of it.
Synchronous functions run in a worker thread so they never block the event loop.

Governance is declared here and interpreted by the gate: ``governance`` is stored, untouched, in
``metadata["governance"]`` and ``review`` becomes each parameter's ``x-review`` keyword in the
schema. Layer 2 only carries them; it does not know what they mean.
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_type_hints, overload

import pydantic

from tether.ai import AbortSignal

from ._docstrings import parse_docstring
from ._review import Review
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
    governance: object | None = None,
    review: Mapping[str, str] | None = None,
) -> Callable[[Callable[..., Any]], AgentTool]: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    label: str | None = None,
    description: str | None = None,
    execution_mode: ExecutionMode | None = None,
    governance: object | None = None,
    review: Mapping[str, str] | None = None,
) -> AgentTool | Callable[[Callable[..., Any]], AgentTool]:
    """Turn a function into an :class:`AgentTool`; usable bare (``@tool``) or with options.

    ``governance``: a :class:`tether.gate.Governance`, stored in ``metadata["governance"]`` for
    the gate. ``review``: what an AI reviewer may see of each parameter, by name
    (``Review.INCLUDE``, ``Review.REDACT`` or ``Review.REQUIRE_USER``); a parameter not named
    gets ``include``. ``review`` needs ``governance``: only a governed tool's exposure is read.
    Raises ``TypeError`` for ``*args``/``**kwargs`` or ``review`` without ``governance``, and
    ``ValueError`` for a ``review`` naming an unknown parameter or exposure.
    """
    if review is not None and governance is None:
        raise TypeError(
            "@tool(review=...) needs governance=...: the reviewer's view is read only for a "
            "governed tool. Pass governance=Governance() (from tether.gate) as well."
        )

    def build(function: Callable[..., Any]) -> AgentTool:
        tool_name = name or function.__name__
        _refuse_variadic(function, tool_name)
        doc = parse_docstring(inspect.getdoc(function) or "")
        parameters = _parameters_model(function, tool_name, doc.parameters)
        metadata: dict[str, Any] = {}
        if governance is not None:
            parameters = _with_review(parameters, dict(review or {}), tool_name)
            metadata["governance"] = governance
        return AgentTool(
            name=tool_name,
            label=label or tool_name.replace("_", " ").title(),
            description=description or doc.description,
            parameters=parameters,
            execute=_executor(function),
            execution_mode=execution_mode,
            metadata=metadata,
        )

    return build(fn) if fn is not None else build


def _refuse_variadic(function: Callable[..., Any], tool_name: str) -> None:
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            raise TypeError(
                f"@tool {tool_name!r}: *{parameter.name} cannot be shown to a model, which passes "
                f"named arguments only; take a list instead ({parameter.name}: list[...])."
            )
        if parameter.kind is parameter.VAR_KEYWORD:
            raise TypeError(
                f"@tool {tool_name!r}: **{parameter.name} cannot be shown to a model, which "
                "needs every argument declared; name each parameter, or take a dict "
                f"({parameter.name}: dict[str, ...])."
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(
                f"@tool {tool_name!r}: {parameter.name} is positional-only, but a tool call "
                "passes named arguments; remove the '/'."
            )


def _visible_parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(function).parameters.values() if p.name not in _INJECTED]


def _parameters_model(
    function: Callable[..., Any], tool_name: str, documented: Mapping[str, str]
) -> type[pydantic.BaseModel]:
    hints = get_type_hints(function, include_extras=True)
    visible = _visible_parameters(function)
    if len(visible) == 1:
        only = hints.get(visible[0].name)
        if isinstance(only, type) and issubclass(only, pydantic.BaseModel):
            return only
    fields: dict[str, Any] = {}
    for parameter in visible:
        annotation = hints.get(parameter.name, Any)
        text = documented.get(parameter.name)
        if text is not None:
            annotation = Annotated[annotation, pydantic.Field(description=text)]
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    model_name = "".join(part.title() for part in tool_name.split("_")) + "Arguments"
    return pydantic.create_model(model_name, **fields)


def _with_review(
    model: type[pydantic.BaseModel], review: dict[str, str], tool_name: str
) -> type[pydantic.BaseModel]:
    """A subclass of ``model`` whose schema gives every parameter its ``x-review``."""
    properties = list(model.model_json_schema().get("properties", {}))
    for parameter, exposure in review.items():
        if parameter not in properties:
            closest = difflib.get_close_matches(parameter, properties, n=1)
            hint = f"; did you mean {closest[0]!r}?" if closest else ""
            raise ValueError(
                f"@tool {tool_name!r}: review names {parameter!r}, which is not a parameter"
                f" ({', '.join(properties) or 'none'}){hint}"
            )
        if exposure not in set(Review):
            raise ValueError(
                f"@tool {tool_name!r}: review of {parameter!r} is {exposure!r}; use "
                "Review.INCLUDE, Review.REDACT or Review.REQUIRE_USER."
            )
    exposures = {p: str(review.get(p, Review.INCLUDE)) for p in properties}
    own_extra = model.model_config.get("json_schema_extra")

    def add_review(schema: dict[str, Any], cls: type[Any]) -> None:
        if isinstance(own_extra, dict):
            schema.update(own_extra)
        elif callable(own_extra):
            if len(inspect.signature(own_extra).parameters) == 2:
                own_extra(schema, cls)  # type: ignore[call-arg]
            else:
                own_extra(schema)  # type: ignore[call-arg]
        for parameter, spec in schema.get("properties", {}).items():
            if isinstance(spec, dict) and parameter in exposures:
                spec["x-review"] = exposures[parameter]

    config = pydantic.ConfigDict(**{**model.model_config, "json_schema_extra": add_review})
    return type(model.__name__, (model,), {"model_config": config, "__module__": model.__module__})


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
