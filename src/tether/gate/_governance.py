"""Governed tools: what the model sees is separate from what the system holds.

A tool is governed when its ``metadata["governance"]`` holds a :class:`Governance`. The model sees
the name, description and a schema with every ``x-review`` keyword stripped and, unless the tool
owns it, an optional ``confirm: bool`` that the runtime consumes (``confirm=true`` forces a person's
approval). The system keeps the flags, the deterministic checks and the per-parameter review
exposure, which decides what an AI reviewer may see of each argument.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pydantic

from tether.agent import AgentTool, AgentToolResult, Review, UpdateCallback
from tether.ai import (
    CONFIRM_REQUEST_PROPERTY,
    AbortSignal,
    confirm_request_schema,
    parameters_schema,
)

from ._verdict import Verdict

if TYPE_CHECKING:
    from ._path_policy import PathPolicy
    from ._shell import ShellPolicy

__all__ = [
    "CONFIRM_PROPERTY",
    "Governance",
    "Policies",
    "Review",
    "ReviewProjection",
    "action_digest",
    "govern",
    "is_confirm_forced",
    "model_facing_schema",
    "project_for_review",
    "review_exposure",
]

REVIEW_KEYWORD = "x-review"
CONFIRM_PROPERTY = CONFIRM_REQUEST_PROPERTY


@dataclass(frozen=True, slots=True)
class Policies:
    """The deterministic policies a gate applies, handed to each tool's ``policy_check``."""

    shell: ShellPolicy
    paths: PathPolicy


@dataclass(frozen=True, slots=True)
class Governance:
    """System-side controls of one tool; never shown to a model.

    ``default_confirm``: every call needs a person. ``owns_confirm``: a ``confirm`` argument is the
    tool's own (otherwise the runtime injects and consumes one). ``check(args)``: the tool's own
    deterministic check. ``policy_check(args, policies)``: applies the gate's shell/path policies to
    the call. ``sandboxed``: the tool runs inside a sandbox, so in ``normal`` mode calls its policy
    only marks ``approve`` may run without asking. ``action_key(args, policies)``: what the call
    does, as a session-memory key (default: the exact arguments). ``needs_person(args,
    policies)``: why this call needs a person whatever its verdict (short of ``deny``), its
    sandbox or the reviewer would say, or ``None`` — asked in every mode but ``yolo`` (which
    runs it) and ``strict`` (which denies it); a tool may rely on such a call having been
    approved by a person or run in ``yolo``.
    """

    default_confirm: bool = False
    owns_confirm: bool = False
    check: Callable[[Mapping[str, Any]], Verdict | None] | None = None
    policy_check: Callable[[Mapping[str, Any], Policies], Verdict | None] | None = None
    sandboxed: bool = False
    action_key: Callable[[Mapping[str, Any], Policies], str] | None = None
    needs_person: Callable[[Mapping[str, Any], Policies], str | None] | None = None


@dataclass(frozen=True, slots=True)
class ReviewProjection:
    """The arguments as the AI reviewer may see them."""

    arguments: dict[str, Any]
    complete: bool
    """False when a ``require_user`` parameter was withheld: only a person may decide."""


def review_exposure(schema: Mapping[str, Any]) -> dict[str, Review]:
    """The declared exposure of every top-level parameter.

    Raises ``ValueError`` naming each parameter that declares none (or an unknown one): exposure
    is mandatory for governed tools, so a new parameter cannot leak to the reviewer by default.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    exposure: dict[str, Review] = {}
    missing: list[str] = []
    for name, spec in properties.items():
        declared = spec.get(REVIEW_KEYWORD) if isinstance(spec, Mapping) else None
        try:
            exposure[name] = Review(str(declared))
        except ValueError:
            missing.append(f"{name} ({declared!r})" if declared is not None else name)
    if missing:
        raise ValueError(
            "Governed tool parameters need an x-review exposure (include, redact or "
            f"require_user): {', '.join(missing)}"
        )
    return exposure


def model_facing_schema(schema: Mapping[str, Any], *, owns_confirm: bool) -> dict[str, Any]:
    """A deep copy without any ``x-review`` keyword, plus the injected ``confirm`` property."""
    stripped: dict[str, Any] = _strip_review(copy.deepcopy(dict(schema)))
    if not owns_confirm:
        properties = stripped.setdefault("properties", {})
        properties[CONFIRM_PROPERTY] = confirm_request_schema()
    return stripped


def _strip_review(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_review(v) for k, v in value.items() if k != REVIEW_KEYWORD}
    if isinstance(value, list):
        return [_strip_review(item) for item in value]
    return value


def project_for_review(
    arguments: Mapping[str, Any], exposure: Mapping[str, Review]
) -> ReviewProjection:
    """Redact ``redact`` values, drop ``require_user`` ones; unknown parameters are redacted."""
    projected: dict[str, Any] = {}
    complete = True
    for name, value in arguments.items():
        if name == CONFIRM_PROPERTY:
            continue
        level = exposure.get(name, Review.REDACT)
        if level is Review.INCLUDE:
            projected[name] = value
        elif level is Review.REDACT:
            projected[name] = _placeholder(value)
        else:
            complete = False
    return ReviewProjection(projected, complete)


def _placeholder(value: Any) -> str:
    if isinstance(value, str):
        return f"[redacted: {len(value)} characters]"
    if isinstance(value, list):
        return f"[redacted: list of {len(value)} items]"
    return "[redacted]"


def action_digest(tool_name: str, arguments: Mapping[str, Any]) -> str:
    """sha256 over a canonical JSON of the tool and its exact arguments (``confirm`` excluded)."""
    frozen = {k: v for k, v in arguments.items() if k != CONFIRM_PROPERTY}
    canonical = json.dumps(
        {"tool": tool_name, "arguments": frozen},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=repr,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def is_confirm_forced(raw_arguments: Any, arguments: Any) -> bool:
    """``confirm=true`` in what the model sent or in the prepared arguments.

    The raw tool call is consulted too, so neither an argument shim nor a hook can clear it.
    """
    for source in (raw_arguments, arguments):
        if isinstance(source, Mapping):
            value = source.get(CONFIRM_PROPERTY)
            if value is True or (isinstance(value, str) and value.strip().lower() == "true"):
                return True
    return False


def govern(tool: AgentTool) -> AgentTool:
    """The model-facing form of a governed tool (ungoverned tools are returned as they are).

    Its schema has no ``x-review`` and carries the injected ``confirm``; its ``execute`` drops
    ``confirm`` before the tool sees it unless the tool owns it. The original schema stays in
    ``metadata["review_schema"]``. Raises ``ValueError`` if a parameter lacks an exposure.
    """
    governance = tool.metadata.get("governance")
    if not isinstance(governance, Governance) or "review_schema" in tool.metadata:
        return tool
    schema = parameters_schema(tool.parameters)
    review_exposure(schema)
    model = tool.parameters if isinstance(tool.parameters, type) else None
    inner = tool.execute
    consume = not governance.owns_confirm

    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> AgentToolResult | str:
        if consume and isinstance(params, dict):
            params = {k: v for k, v in params.items() if k != CONFIRM_PROPERTY}
        if model is not None and issubclass(model, pydantic.BaseModel):
            params = model.model_validate(params)
        return await inner(tool_call_id, params, signal, on_update)

    metadata = {**tool.metadata, "review_schema": schema}
    return replace(
        tool,
        parameters=model_facing_schema(schema, owns_confirm=governance.owns_confirm),
        execute=execute,
        metadata=metadata,
    )
