"""A tool call's one-line label for the terminal and the progress lines: its definition's
``render_call`` given the arguments the tool will receive — the model's arguments through the
tool's ``prepare_arguments`` and validated against its parameters, as the pipeline prepares them
(``read a.py:5-14`` for ``{"offset": "5", "limit": "10"}``, not ``read a.py:5-``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic

from tether.ai import copy_json, validate_arguments
from tether.gate import CONFIRM_PROPERTY
from tether.tools import ToolDefinition

__all__ = ["call_label", "validated_for_display"]


def call_label(definitions: Mapping[str, ToolDefinition], name: str, raw: Any) -> str | None:
    """``render_call`` of the validated arguments; ``None`` when the tool has no renderer."""
    definition = definitions.get(name)
    if definition is None or definition.render_call is None:
        return None
    return definition.render_call(validated_for_display(definition, raw))


def validated_for_display(definition: ToolDefinition, raw: Any) -> Any:
    """The arguments as the tool will receive them (without the ``confirm`` the gate consumes);
    the model's own when they do not validate (the call then fails with the pipeline's error,
    and the label shows what was asked)."""
    governance = definition.governance
    if isinstance(raw, Mapping) and not (governance is not None and governance.owns_confirm):
        raw = {key: value for key, value in raw.items() if key != CONFIRM_PROPERTY}
    try:
        prepared = raw
        if definition.prepare_arguments is not None:
            prepared = definition.prepare_arguments(copy_json(raw))
        value = validate_arguments(definition.name, definition.parameters, prepared)
    except Exception:
        return raw
    return value.model_dump(mode="json") if isinstance(value, pydantic.BaseModel) else value
