"""``StreamOptions.tool_choice`` in each protocol's own form, and the request extras merged in.

A choice is ``"auto"``, ``"required"``, ``"none"`` or the name of one offered tool; it is sent
only with tools (servers reject a ``tool_choice`` without them). :func:`merged_extras` is what a
request adds to the body it built: ``Model.extra_body`` (from ``models.toml``), the tool choice,
then ``StreamOptions.extra`` — the later wins.
"""

from __future__ import annotations

from typing import Any

from .._stream import StreamOptions
from .._types import Context, Model

__all__ = ["TOOL_CHOICES", "merged_extras", "tool_choice_field"]

TOOL_CHOICES = ("auto", "required", "none")
"""The choices that are not a tool's name."""


def tool_choice_field(api: str, choice: str, tool_names: list[str]) -> Any:
    """``choice`` as ``api`` spells it; :class:`ValueError` for a name no offered tool has."""
    if choice not in TOOL_CHOICES and choice not in tool_names:
        offered = ", ".join(tool_names) or "none"
        raise ValueError(
            f"tool_choice {choice!r} is not auto, required, none or an offered tool "
            f"(offered: {offered})"
        )
    if api == "anthropic-messages":
        kind = {"required": "any"}.get(choice, choice)
        return {"type": kind} if choice in TOOL_CHOICES else {"type": "tool", "name": choice}
    if choice in TOOL_CHOICES:
        return choice
    if api == "openai-responses":
        return {"type": "function", "name": choice}
    return {"type": "function", "function": {"name": choice}}  # chat completions, local


def merged_extras(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """What goes into the body over tether's own fields: the model's extras, the tool choice
    (with tools only) and the request's ``extra``, later keys winning."""
    extras = dict(model.extra_body)
    if not context.tools:
        extras.pop("tool_choice", None)
    elif options.tool_choice is not None:
        names = [tool.name for tool in context.tools]
        extras["tool_choice"] = tool_choice_field(model.api, options.tool_choice, names)
    extras.update(options.extra)
    return extras
