"""The OpenAI Responses stream, event by event, as calls on a :class:`MessageAssembler`.

Events arrive as plain dicts (parsed with jiter from the raw stream; no SDK object per event):

- ``response.output_text.delta`` / ``response.refusal.delta`` stream text; a message item that
  streamed none gives its text at ``response.output_item.done``;
- ``response.reasoning_summary_text.delta`` (and ``response.reasoning_text.delta`` from servers
  that stream raw reasoning) stream thinking, summary parts separated by a blank line; when the
  reasoning item is done, the whole item becomes the block's ``signature`` as JSON (an item
  with no readable text is a ``redacted`` block: replay data only);
- a ``function_call`` item opens a tool call (id ``"<call_id>|<item_id>"``) under its output
  index; ``response.function_call_arguments.delta`` streams its arguments, ``.done`` and the
  item's ``.done`` carry the whole text (servers that send only those work the same);
- ``response.completed`` ends with ``stop`` (``tool_use`` when the message holds calls),
  ``response.incomplete`` with ``length`` (the reason in ``error_message``; open calls are cut
  off), ``response.failed`` and an ``error`` event with ``error`` and the server's message.
  Usage (cached input apart from fresh input) comes with the final response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from ..._stream import AssistantMessageEvent
from .._openai_client import error_payload_text
from .._wire import MessageAssembler
from ._request import tool_call_id

__all__ = ["ResponsesEvents"]

Events = list[AssistantMessageEvent]
Event = dict[str, Any]


class ResponsesEvents:
    """Reads one response's events; ``finished`` once a final event was handled."""

    __slots__ = (
        "_api_key",
        "_handlers",
        "_provider",
        "_summary_index",
        "_text_streamed",
        "_thinking_streamed",
        "assembler",
        "finished",
    )

    def __init__(self, assembler: MessageAssembler, provider: str, api_key: str | None) -> None:
        self.assembler = assembler
        self.finished = False
        self._provider = provider
        self._api_key = api_key
        self._text_streamed = False
        self._thinking_streamed = False
        self._summary_index: Any = None
        self._handlers: dict[str, Callable[[Event], Events]] = {
            "response.output_text.delta": self._text_delta,
            "response.refusal.delta": self._text_delta,
            "response.reasoning_summary_text.delta": self._summary_delta,
            "response.reasoning_text.delta": self._reasoning_delta,
            "response.function_call_arguments.delta": self._arguments_delta,
            "response.function_call_arguments.done": self._arguments_done,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.created": self._created,
            "response.completed": self._finished,
            "response.incomplete": self._finished,
            "response.failed": self._finished,
            "response.cancelled": self._finished,
            "error": self._error,
        }

    def handle(self, name: str, event: Any) -> Events:
        """The tether events for one server event (``name`` from its ``event:`` line)."""
        if not isinstance(event, dict):
            return []
        kind = event.get("type") or name
        handler = self._handlers.get(kind)
        if handler is not None:
            return handler(event)
        if event.get("error") and kind not in ("response.in_progress", "response.queued"):
            return self._error(event)
        return []

    def stream_ended(self) -> Events:
        """The stream closed before a final event."""
        self.finished = True
        return self.assembler.fail(
            "error",
            f"{self._provider}: the stream ended before the response was complete "
            "(no response.completed event)",
        )

    # -- text and reasoning --------------------------------------------------------------------

    def _text_delta(self, event: Event) -> Events:
        self._text_streamed = True
        return self.assembler.text(_text(event.get("delta")))

    def _summary_delta(self, event: Event) -> Events:
        index = event.get("summary_index")
        events: Events = []
        if self._thinking_streamed and index != self._summary_index:
            events = self.assembler.thinking("\n\n")
        self._summary_index = index
        return events + self._reasoning_delta(event)

    def _reasoning_delta(self, event: Event) -> Events:
        delta = _text(event.get("delta"))
        if delta:
            self._thinking_streamed = True
        return self.assembler.thinking(delta)

    def _reasoning_done(self, item: Event) -> Events:
        signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        streamed, self._thinking_streamed = self._thinking_streamed, False
        if streamed:
            events = self.assembler.thinking_signature(signature)
            return events + self.assembler.close_text()
        text = _reasoning_text(item)
        return self.assembler.thinking_block(text, signature, redacted=not text)

    def _message_done(self, item: Event) -> Events:
        events: Events = []
        streamed, self._text_streamed = self._text_streamed, False
        if not streamed:
            events = self.assembler.text(_message_text(item))
        return events + self.assembler.close_text()

    # -- tool calls ----------------------------------------------------------------------------

    def _call_start(self, key: Hashable, item: Event) -> Events:
        call_id = _text(item.get("call_id")) or _text(item.get("id"))
        events = self.assembler.tool_call_start(
            key, tool_call_id(call_id, _text(item.get("id")) or None), _text(item.get("name"))
        )
        arguments = item.get("arguments")
        if isinstance(arguments, str) and arguments:
            events += self.assembler.tool_call_arguments(key, arguments)
        return events

    def _open_call(self, event: Event) -> tuple[Hashable, Events]:
        """The key of the event's call, opened from what the event knows when it is new."""
        key = _call_key(event)
        if self.assembler.has_call(key):
            return key, []
        item = {"id": event.get("item_id"), "name": event.get("name")}
        return key, self._call_start(key, item)

    def _arguments_delta(self, event: Event) -> Events:
        key, events = self._open_call(event)
        return events + self.assembler.tool_call_delta(key, _text(event.get("delta")))

    def _arguments_done(self, event: Event) -> Events:
        arguments = event.get("arguments")
        if not isinstance(arguments, str):
            return []
        key, events = self._open_call(event)
        return events + self.assembler.tool_call_arguments(key, arguments)

    def _call_done(self, event: Event, item: Event) -> Events:
        key = _call_key(event, item)
        if not self.assembler.has_call(key):
            events = self._call_start(key, item)
        else:
            events = []
            block = self.assembler.call_block(key)
            if item.get("name") and not block.name:
                block.name = _text(item["name"])
            if item.get("call_id"):
                block.id = tool_call_id(_text(item["call_id"]), _text(item.get("id")) or None)
            arguments = item.get("arguments")
            if isinstance(arguments, str) and arguments:
                events += self.assembler.tool_call_arguments(key, arguments)
        return events + self.assembler.tool_call_end(key)

    # -- items ---------------------------------------------------------------------------------

    def _item_added(self, event: Event) -> Events:
        item = event.get("item")
        if not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "message":
            self._text_streamed = False
        elif kind == "reasoning":
            self._thinking_streamed = False
            self._summary_index = None
        elif kind == "function_call":
            return self._call_start(_call_key(event, item), item)
        return []

    def _item_done(self, event: Event) -> Events:
        item = event.get("item")
        if not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "message":
            return self._message_done(item)
        if kind == "reasoning":
            return self._reasoning_done(item)
        if kind == "function_call":
            return self._call_done(event, item)
        return []

    # -- the end -------------------------------------------------------------------------------

    def _created(self, _event: Event) -> Events:
        return self.assembler.start()

    def _finished(self, event: Event) -> Events:
        """A final event: the response's own status decides (its event type when it has none)."""
        response = self._final_usage(event)
        status = response.get("status") or _text(event.get("type")).removeprefix("response.")
        if status == "completed":
            return self.assembler.done("stop")
        if status == "incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            return self.assembler.done(
                "length", f"The response is incomplete: {reason or 'unknown'}"
            )
        error = response.get("error")
        if isinstance(error, dict):
            return self.assembler.fail("error", self._error_text(error))
        if status in ("failed", "cancelled"):
            return self.assembler.fail("error", f"{self._provider}: the response {status}")
        return self.assembler.fail(
            "error", f"{self._provider}: the response ended with status {status!r}"
        )

    def _error(self, event: Event) -> Events:
        self.finished = True
        return self.assembler.fail("error", self._error_text(event))

    def _error_text(self, payload: Any) -> str:
        return error_payload_text(self._provider, payload, self._api_key)

    def _final_usage(self, event: Event) -> Event:
        """Marks the end; records the final response's usage; returns that response."""
        self.finished = True
        response = event.get("response")
        if not isinstance(response, dict):
            return {}
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details")
            cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else 0
            total_input = _count(usage.get("input_tokens"))
            self.assembler.set_usage(
                input=max(total_input - cached, 0),
                output=_count(usage.get("output_tokens")),
                cache_read=cached,
            )
        return response


def _call_key(event: Event, item: Event | None = None) -> Hashable:
    """Calls are keyed by output index (every official event has it), else by item id."""
    index = event.get("output_index")
    if isinstance(index, int):
        return index
    return _text(event.get("item_id") or (item or {}).get("id"))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _parts_text(parts: Any, kind: str, field: str) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [
        _text(part.get(field))
        for part in parts
        if isinstance(part, dict) and part.get("type") == kind
    ]


def _reasoning_text(item: Event) -> str:
    summary = _parts_text(item.get("summary"), "summary_text", "text")
    if any(summary):
        return "\n\n".join(summary)
    return "\n\n".join(_parts_text(item.get("content"), "reasoning_text", "text"))


def _message_text(item: Event) -> str:
    content = item.get("content")
    return "".join(
        _parts_text(content, "output_text", "text") + _parts_text(content, "refusal", "refusal")
    )
