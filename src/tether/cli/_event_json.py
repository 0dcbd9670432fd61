"""Agent events as JSON objects: ``type`` first, fields in snake_case, messages as
:func:`tether.ai.to_json` writes them. A ``message_update`` carries the message once: its
streaming ``event`` is sent without the ``partial`` copy of the same message."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

from tether.agent import AgentEvent, MessageUpdate
from tether.tools import TaskEvent

__all__ = ["dumps", "event_to_json", "task_event_to_json"]


def event_to_json(event: AgentEvent) -> dict[str, Any]:
    data: dict[str, Any] = to_jsonable_python(event, fallback=repr)
    if isinstance(event, MessageUpdate) and isinstance(data.get("event"), dict):
        data["event"].pop("partial", None)
    return {"type": event.type, **{k: v for k, v in data.items() if k != "type"}}


def task_event_to_json(event: TaskEvent) -> dict[str, Any]:
    """``task_start`` / ``task_output`` / ``task_end`` as the json and rpc modes write them."""
    task = event.task
    data: dict[str, Any] = {"type": event.type, "task_id": task.id}
    if event.type == "task_start":
        data.update(command=task.command, pid=task.pid, log_path=task.log_path)
    elif event.type == "task_output":
        data.update(offset=event.offset, text=event.text)
    else:
        data.update(
            status=task.status,
            exit_code=task.exit_code,
            runtime_s=round(task.runtime(), 3),
            output_bytes=task.output_bytes,
            log_path=task.log_path,
        )
    return data


def dumps(data: Any) -> str:
    """One line of JSON (no newlines inside)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=repr)
