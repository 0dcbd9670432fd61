"""OpenAI Responses stream events as the API sends them, for scripting the loopback server."""

from __future__ import annotations

import json
from typing import Any

from .loopback import Reply, sse

Event = dict[str, Any]


def reply(*events: Event, status: int = 200) -> Reply:
    """Each event with an ``event:`` line naming its type, as OpenAI sends them."""
    return Reply(status, [piece for e in events for piece in sse([e], named="type" in e)])


def created(response_id: str = "resp_1") -> Event:
    response = {"id": response_id, "object": "response", "status": "in_progress", "output": []}
    return {"type": "response.created", "response": response}


def message_added(index: int, item_id: str = "msg_1") -> Event:
    item = {"id": item_id, "type": "message", "role": "assistant", "status": "in_progress"}
    return {
        "type": "response.output_item.added",
        "output_index": index,
        "item": item | {"content": []},
    }


def text_delta(index: int, delta: str, item_id: str = "msg_1") -> Event:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": 0,
        "delta": delta,
    }


def message_done(index: int, text: str, item_id: str = "msg_1") -> Event:
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"id": item_id, "type": "message", "role": "assistant", "status": "completed"}
    return {
        "type": "response.output_item.done",
        "output_index": index,
        "item": item | {"content": [part]},
    }


def text_message(index: int, *deltas: str, item_id: str = "msg_1") -> list[Event]:
    return [
        message_added(index, item_id),
        *(text_delta(index, d, item_id) for d in deltas),
        message_done(index, "".join(deltas), item_id),
    ]


def reasoning_item(item_id: str, *summary: str, encrypted: str = "gAAAA-opaque") -> Event:
    return {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
        "encrypted_content": encrypted,
    }


def reasoning(index: int, item: Event, *, deltas_per_part: int = 2) -> list[Event]:
    """A reasoning item whose summary parts stream in a few deltas each."""
    added = {"id": item["id"], "type": "reasoning", "summary": []}
    events: list[Event] = [
        {"type": "response.output_item.added", "output_index": index, "item": added}
    ]
    for summary_index, part in enumerate(item["summary"]):
        text = part["text"]
        step = max(1, len(text) // deltas_per_part)
        base = {"item_id": item["id"], "output_index": index, "summary_index": summary_index}
        events.append(
            {
                "type": "response.reasoning_summary_part.added",
                **base,
                "part": {"type": "summary_text", "text": ""},
            }
        )
        events.extend(
            {"type": "response.reasoning_summary_text.delta", **base, "delta": text[i : i + step]}
            for i in range(0, len(text), step)
        )
        events.append({"type": "response.reasoning_summary_text.done", **base, "text": text})
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def call_item(call_id: str, item_id: str, name: str, arguments: str, status: str) -> Event:
    return {
        "id": item_id,
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def call_added(index: int, call_id: str, item_id: str, name: str) -> Event:
    item = call_item(call_id, item_id, name, "", "in_progress")
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def arguments_delta(index: int, item_id: str, delta: str) -> Event:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": delta,
    }


def arguments_done(index: int, item_id: str, arguments: str) -> Event:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": arguments,
    }


def call_done(index: int, call_id: str, item_id: str, name: str, arguments: str) -> Event:
    item = call_item(call_id, item_id, name, arguments, "completed")
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def function_call(
    index: int, call_id: str, item_id: str, name: str, arguments: Any, *, pieces: int = 1
) -> list[Event]:
    """A whole function-call item whose argument text streams in ``pieces`` deltas."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    step = max(1, -(-len(text) // pieces))
    deltas = [
        arguments_delta(index, item_id, text[i : i + step]) for i in range(0, len(text), step)
    ]
    return [
        call_added(index, call_id, item_id, name),
        *deltas,
        arguments_done(index, item_id, text),
        call_done(index, call_id, item_id, name, text),
    ]


def usage(input_tokens: int = 10, output_tokens: int = 5, cached: int = 0) -> Event:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def completed(used: Event | None = None) -> Event:
    response = {"id": "resp_1", "status": "completed", "usage": used or usage()}
    return {"type": "response.completed", "response": response}


def incomplete(reason: str = "max_output_tokens") -> Event:
    response = {
        "id": "resp_1",
        "status": "incomplete",
        "incomplete_details": {"reason": reason},
        "usage": usage(),
    }
    return {"type": "response.incomplete", "response": response}


def failed(code: str, message: str) -> Event:
    response = {"id": "resp_1", "status": "failed", "error": {"code": code, "message": message}}
    return {"type": "response.failed", "response": response}
