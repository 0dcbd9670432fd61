"""Argument validation: check a tool call's arguments against the tool's schema, coercing the
near-misses models commonly produce, and explain every failure precisely.

Coercions (applied only when the arguments do not validate as sent): numeric strings to numbers,
numbers and booleans to strings, ``"true"``/``"false"`` to booleans, and ``null`` for an optional
property dropped. Arguments are never modified in place; the result is a fresh copy the tool may
own.

Unknown arguments are errors: an object schema that lists its ``properties`` accepts no others
unless it says so (``additionalProperties``, ``patternProperties`` or ``unevaluatedProperties``;
a pydantic model with ``extra="allow"``). A misspelled argument would otherwise be dropped
silently and the call run with a default; the error names the closest parameter instead.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import jsonschema_rs
import pydantic

from ._errors import TetherError
from ._types import ToolCall

__all__ = [
    "ArgumentError",
    "ToolArgumentsError",
    "copy_json",
    "parameters_schema",
    "validate_arguments",
    "validate_tool_arguments",
]


@dataclass(frozen=True, slots=True)
class ArgumentError:
    """One failing argument: where (``path``, ``"(root)"`` for the whole object) and why."""

    path: str
    reason: str


class ToolArgumentsError(TetherError, ValueError):
    """Arguments that do not satisfy a tool's schema, even after coercion.

    The message names the tool, every failing path with its reason, and the arguments received,
    so a model can correct the call in one retry.
    """

    def __init__(self, tool_name: str, errors: list[ArgumentError], arguments: Any) -> None:
        self.tool_name = tool_name
        self.errors = errors
        self.arguments = arguments
        lines = [f'Invalid arguments for tool "{tool_name}":']
        lines.extend(f"  - {error.path}: {error.reason}" for error in errors)
        lines.append(f"Received arguments: {_render(arguments)}")
        super().__init__("\n".join(lines))


class _NamedWithParameters(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def parameters(self) -> Any: ...


def validate_tool_arguments(tool: _NamedWithParameters, tool_call: ToolCall) -> dict[str, Any]:
    """Validate ``tool_call.arguments`` against ``tool.parameters`` and return coerced arguments.

    ``tool.parameters`` is a JSON-Schema dict or a pydantic model class (then the validated model
    is returned as a dict). Raises :class:`ToolArgumentsError`.
    """
    value = validate_arguments(tool.name, tool.parameters, tool_call.arguments)
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump()
    return value  # type: ignore[no-any-return]


def validate_arguments(tool_name: str, parameters: Any, arguments: Any) -> Any:
    """Like :func:`validate_tool_arguments`, but a pydantic model class yields a model instance."""
    if isinstance(parameters, type) and issubclass(parameters, pydantic.BaseModel):
        return _model_validator(parameters).validate(tool_name, arguments)
    return _schema_validator(parameters).validate(tool_name, arguments)


def parameters_schema(parameters: Any) -> dict[str, Any]:
    """The JSON Schema of tool parameters: a dict as is, a pydantic model's generated schema."""
    if isinstance(parameters, type) and issubclass(parameters, pydantic.BaseModel):
        return _model_validator(parameters).schema
    return parameters  # type: ignore[no-any-return]


class _SchemaValidator:
    __slots__ = ("closed", "schema", "validator")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.closed = _close_objects(schema)
        self.validator = jsonschema_rs.validator_for(self.closed)

    def validate(self, tool_name: str, arguments: Any) -> Any:
        if self.validator.is_valid(arguments):
            checked = copy_json(arguments)
        else:
            checked = coerce_to_schema(arguments, self.schema, self.schema)
            errors = [
                error
                for failure in self.validator.iter_errors(checked)
                for error in _argument_errors(failure, checked, self.closed)
            ]
            if errors:
                raise ToolArgumentsError(tool_name, errors, arguments)
        # JSON has no NaN or Infinity, but a lenient parser makes them; the validator sees them
        # as null, which an untyped schema accepts. No tool gets one.
        non_finite = _non_finite_paths(checked, [])
        if non_finite:
            errors = [ArgumentError(_format_path(path), reason) for path, reason in non_finite]
            raise ToolArgumentsError(tool_name, errors, arguments)
        return checked


class _ModelValidator:
    """Pydantic models get the same JSON-Schema gate (and coercions) as dict schemas first, so
    both kinds accept exactly the same JSON; pydantic then builds the instance and runs the
    model's own validators. The instance never shares containers with the received arguments."""

    __slots__ = ("model", "schema", "schema_validator")

    def __init__(self, model: type[pydantic.BaseModel]) -> None:
        self.model = model
        self.schema = _without_generated_titles(model.model_json_schema(), model.__name__)
        self.schema_validator = _SchemaValidator(self.schema)

    def validate(self, tool_name: str, arguments: Any) -> pydantic.BaseModel:
        checked = self.schema_validator.validate(tool_name, arguments)
        try:
            return self.model.model_validate(checked)
        except pydantic.ValidationError as exc:
            errors = [
                ArgumentError(_format_path(error["loc"]), error["msg"]) for error in exc.errors()
            ]
            raise ToolArgumentsError(tool_name, errors, arguments) from None


def _without_generated_titles(schema: dict[str, Any], model_name: str) -> dict[str, Any]:
    """The schema without the titles pydantic makes up (``"Old Text"`` for ``old_text``, the
    class name for a model): they repeat the names a model already sees. Titles given on
    purpose (``Field(title=...)``) stay."""
    _drop_title(schema, model_name)
    for name, definition in schema.get("$defs", {}).items():
        if isinstance(definition, dict):
            _drop_title(definition, name)
    return schema


def _drop_title(schema: dict[str, Any], generated: str) -> None:
    if schema.get("title") == generated:
        del schema["title"]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, spec in properties.items():
            if isinstance(spec, dict) and spec.get("title") == name.title().replace("_", " "):
                del spec["title"]


_MAX_CACHED_SCHEMAS = 4096
_schema_validators: dict[int, _SchemaValidator] = {}


def _schema_validator(schema: Any) -> _SchemaValidator:
    """Compiled validators are cached per schema object (schemas are treated as immutable)."""
    cached = _schema_validators.get(id(schema))
    if cached is not None and cached.schema is schema:
        return cached
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"tool parameters must be a JSON-Schema dict or a pydantic model, got {schema!r}"
        )
    if len(_schema_validators) >= _MAX_CACHED_SCHEMAS:
        _schema_validators.clear()
    validator = _SchemaValidator(dict(schema) if not isinstance(schema, dict) else schema)
    _schema_validators[id(schema)] = validator
    return validator


@cache
def _model_validator(model: type[pydantic.BaseModel]) -> _ModelValidator:
    return _ModelValidator(model)


_OPENERS = (
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "allOf",
    "$ref",
)
"""Keywords with which a schema decides about other properties itself (``allOf``, or a ``$ref``
beside ``properties``: the parts together list them)."""
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "prefixItems")
_SCHEMAS = (
    "items",
    "additionalProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)


def _close_objects(schema: Any, *, part_of_all_of: bool = False) -> Any:
    """A copy of ``schema`` in which every object schema that lists its ``properties`` and
    says nothing about other properties refuses them (``additionalProperties: false``).

    Only validation uses the closed copy; the model is shown the schema as written.
    """
    if not isinstance(schema, dict):
        return schema
    closed: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            closed[key] = {name: _close_objects(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            closed[key] = [_close_objects(sub) for sub in value]
        elif key == "allOf" and isinstance(value, list):
            closed[key] = [_close_objects(sub, part_of_all_of=True) for sub in value]
        elif key in _SCHEMAS:
            closed[key] = (
                [_close_objects(sub) for sub in value]
                if isinstance(value, list)
                else _close_objects(value)
            )
        else:
            closed[key] = value
    lists_properties = isinstance(schema.get("properties"), dict)
    if lists_properties and not part_of_all_of and not any(k in schema for k in _OPENERS):
        closed["additionalProperties"] = False
    return closed


def _argument_errors(error: Any, arguments: Any, schema: Any) -> list[ArgumentError]:
    """A missing property is reported at its own path, so the model sees what to add; an
    unknown one names the closest parameter; a non-finite number (JSON has none; the validator
    sees ``null``) is named as what it is."""
    kind = error.kind
    path = list(error.instance_path)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
        return [ArgumentError(_format_path([*path, kind.property]), "required property is missing")]
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
        known = _properties_at(schema, list(error.schema_path)[:-1])
        where = _format_path(path)
        return [
            ArgumentError(where, _unknown_argument(name, known, path)) for name in kind.unexpected
        ]
    value = _value_at(arguments, path)
    if isinstance(value, float) and not math.isfinite(value):
        return [ArgumentError(_format_path(path), f"{_render(value)} is not a finite number")]
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.ExclusiveMinimum):
        return [
            ArgumentError(
                _format_path(path), f"{_render(value)} must be greater than {_render(kind.limit)}"
            )
        ]
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.ExclusiveMaximum):
        return [
            ArgumentError(
                _format_path(path), f"{_render(value)} must be less than {_render(kind.limit)}"
            )
        ]
    return [ArgumentError(_format_path(path), error.message)]


def _properties_at(schema: Any, schema_path: list[Any]) -> list[str]:
    """The property names of the object schema at ``schema_path`` (refs already resolved)."""
    for part in schema_path:
        try:
            schema = schema[part]
        except (KeyError, IndexError, TypeError):
            return []
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return list(properties) if isinstance(properties, dict) else []


def _unknown_argument(name: str, known: list[str], path: list[Any]) -> str:
    reason = f"unknown argument {name!r}"
    closest = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if closest:
        return f"{reason}; did you mean {closest[0]!r}?"
    if known:
        return f"{reason}; expected one of: {', '.join(known)}"
    if not path:
        return f"{reason}; this tool takes no arguments"
    return f"{reason}; no properties are expected here"


def _non_finite_paths(value: Any, path: list[Any]) -> list[tuple[list[Any], str]]:
    """Where ``value`` holds a non-finite number, and the reason to give for each."""
    if value.__class__ is float:
        return [] if math.isfinite(value) else [(path, f"{_render(value)} is not a finite number")]
    found: list[tuple[list[Any], str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if item.__class__ in _CONTAINERS_AND_FLOAT:
                found += _non_finite_paths(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if item.__class__ in _CONTAINERS_AND_FLOAT:
                found += _non_finite_paths(item, [*path, index])
    return found


_CONTAINERS_AND_FLOAT = frozenset({dict, list, float})


def _value_at(value: Any, path: list[Any]) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _format_path(parts: Any) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(root)"


def _render(arguments: Any) -> str:
    try:
        return json.dumps(arguments, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(arguments)


_CONTAINERS = (dict, list)
"""A tuple, not ``dict | list``: that union would be built again for every value tested."""


def copy_json(value: Any) -> Any:
    """A copy of a JSON value whose containers are all new (leaves are immutable)."""
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, _CONTAINERS):
                return {key: copy_json(item) for key, item in value.items()}
        return value.copy()
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


_NO_COERCION = object()
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAX_DEPTH = 64


def coerce_to_schema(value: Any, schema: Any, root: Any, depth: int = 0) -> Any:
    """A copy of ``value`` with the tolerated near-misses converted to what ``schema`` wants."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return copy_json(value)
    schema = _resolve_ref(schema, root)
    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list) and options:
            return _coerce_alternatives(
                value, [_resolve_ref(o, root) for o in options], root, depth
            )
    types = _types_of(schema)
    if isinstance(value, dict) and (not types or "object" in types):
        return _coerce_object(value, schema, root, depth)
    if isinstance(value, list) and (not types or "array" in types):
        items = schema.get("items")
        return [coerce_to_schema(item, items, root, depth + 1) for item in value]
    if types and not any(_has_type(value, name) for name in types):
        for name in types:
            converted = _coerce_scalar(value, name)
            if converted is not _NO_COERCION:
                return converted
    return value


def _coerce_object(value: dict[str, Any], schema: dict[str, Any], root: Any, depth: int) -> Any:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    additional = schema.get("additionalProperties")
    result: dict[str, Any] = {}
    for key, item in value.items():
        sub = properties.get(key, additional if isinstance(additional, dict) else None)
        if item is None and key not in required and not _allows_null(sub, root):
            continue
        result[key] = coerce_to_schema(item, sub, root, depth + 1)
    return result


def _coerce_alternatives(value: Any, options: list[Any], root: Any, depth: int) -> Any:
    for option in options:
        if isinstance(option, dict) and _fits_shape(value, option):
            return coerce_to_schema(value, option, root, depth + 1)
    for option in options:
        for name in _types_of(option) if isinstance(option, dict) else ():
            converted = _coerce_scalar(value, name)
            if converted is not _NO_COERCION:
                return converted
    return copy_json(value)


def _fits_shape(value: Any, schema: dict[str, Any]) -> bool:
    types = _types_of(schema)
    return not types or any(_has_type(value, name) for name in types)


def _resolve_ref(schema: Any, root: Any) -> Any:
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < _MAX_DEPTH:
        ref: str = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        target: Any = root
        for escaped in ref[2:].split("/"):
            part = escaped.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return schema
        schema = target
        seen += 1
    return schema


def _types_of(schema: dict[str, Any]) -> tuple[str, ...]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list):
        return tuple(name for name in declared if isinstance(name, str))
    if "properties" in schema:
        return ("object",)
    return ()


def _allows_null(schema: Any, root: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is None
    schema = _resolve_ref(schema, root)
    if "null" in _types_of(schema) or schema.get("const", 0) is None:
        return True
    options = schema.get("anyOf") or schema.get("oneOf")
    return isinstance(options, list) and any(_allows_null(option, root) for option in options)


def _has_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    return False


def _coerce_scalar(value: Any, name: str) -> Any:
    if name == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float) and math.isfinite(value):
            return json.dumps(value)
    elif name in ("number", "integer") and isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            return int(text)
        if not _DECIMAL.fullmatch(text):
            return _NO_COERCION
        number = float(text)
        if not math.isfinite(number):
            return _NO_COERCION
        if name == "integer":
            return int(number) if number.is_integer() else _NO_COERCION
        return number
    elif name == "boolean" and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
    return _NO_COERCION
