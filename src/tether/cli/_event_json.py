"""Agent events as JSON objects: ``type`` first, fields in snake_case, messages as
:func:`tether.ai.to_json` writes them. A ``message_update`` carries the message once: its
streaming ``event`` is sent without the ``partial`` copy of the same message."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

from tether.agent import AgentEvent, MessageUpdate

__all__ = ["dumps", "event_to_json"]


def event_to_json(event: AgentEvent) -> dict[str, Any]:
    data: dict[str, Any] = to_jsonable_python(event, fallback=repr)
    if isinstance(event, MessageUpdate) and isinstance(data.get("event"), dict):
        data["event"].pop("partial", None)
    return {"type": event.type, **{k: v for k, v in data.items() if k != "type"}}


def dumps(data: Any) -> str:
    """One line of JSON (no newlines inside)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=repr)
