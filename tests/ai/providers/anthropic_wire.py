"""Anthropic Messages stream events as the API sends them, for the loopback server's scripts."""

from __future__ import annotations

from typing import Any

from tether.ai import Model, ModelCost

from .loopback import Reply, sse

Event = dict[str, Any]

KEY = "sk-ant-api03-test-key-0123456789abcdef"


def model(base_url: str, **fields: Any) -> Model:
    values: dict[str, Any] = {
        "id": "claude-test-4",
        "provider": "anthropic",
        "api": "anthropic-messages",
        "base_url": base_url,
        "context_window": 200_000,
        "max_tokens": 32_000,
        "input": ("text", "image"),
        "reasoning": True,
        "cost": ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    }
    values.update(fields)
    return Model(**values)


def message_start(input_tokens: int = 10, cache_read: int = 0, cache_write: int = 0) -> Event:
    usage = {
        "input_tokens": input_tokens,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
        "output_tokens": 1,
    }
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-4",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return {"type": "message_start", "message": message}


def block_start(index: int, block: Event) -> Event:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, value: Event) -> Event:
    return {"type": "content_block_delta", "index": index, "delta": value}


def block_stop(index: int) -> Event:
    return {"type": "content_block_stop", "index": index}


def text_block(index: int, *pieces: str) -> list[Event]:
    return [
        block_start(index, {"type": "text", "text": ""}),
        *(delta(index, {"type": "text_delta", "text": piece}) for piece in pieces),
        block_stop(index),
    ]


def thinking_block(index: int, pieces: list[str], signature: str) -> list[Event]:
    return [
        block_start(index, {"type": "thinking", "thinking": "", "signature": ""}),
        *(delta(index, {"type": "thinking_delta", "thinking": piece}) for piece in pieces),
        delta(index, {"type": "signature_delta", "signature": signature}),
        block_stop(index),
    ]


def redacted_block(index: int, data: str) -> list[Event]:
    return [block_start(index, {"type": "redacted_thinking", "data": data}), block_stop(index)]


def tool_start(index: int, call_id: str, name: str) -> Event:
    return block_start(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}})


def tool_block(index: int, call_id: str, name: str, pieces: list[str]) -> list[Event]:
    return [
        tool_start(index, call_id, name),
        *(delta(index, {"type": "input_json_delta", "partial_json": piece}) for piece in pieces),
        block_stop(index),
    ]


def message_end(stop_reason: str | None, output_tokens: int = 20) -> list[Event]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def error_event(kind: str, message: str) -> Event:
    """An ``error`` event of the stream, and the body of an error status too."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def reply(*events: Event | list[Event], tail: list[Any] | None = None) -> Reply:
    """A 200 event stream of ``events`` (lists flattened), then the ``tail`` pieces."""
    flat: list[Event] = []
    for item in events:
        flat.extend(item if isinstance(item, list) else [item])
    return Reply(200, [*sse(flat, named=True), *(tail or [])])


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]
