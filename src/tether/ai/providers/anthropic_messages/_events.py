"""Anthropic's streamed events, as they come off the wire, turned into tether's events.

:class:`EventTranslator` takes each event's payload, parsed to a plain dict (every payload
carries its own ``type``, the same as the event's name), and drives a
:class:`MessageAssembler`: content blocks are keyed by their wire ``index``; usage arrives in
``message_start`` (input, cache read, cache write) and ``message_delta`` (output, cumulative);
the stop reason in ``message_delta``. An ``error`` event raises
:class:`~.._wire.WireFailure`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..._types import StopReason
from .._errors import failure_text, is_context_overflow
from .._wire import Events, MessageAssembler, WireFailure

__all__ = ["EventTranslator", "error_detail"]

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
}
_RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error"})


def error_detail(body: object) -> tuple[str | None, str | None]:
    """``(error type, message)`` of an Anthropic error body ``{"error": {"type", "message"}}``."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None
    kind, message = error.get("type"), error.get("message")
    return (kind if isinstance(kind, str) else None, message if isinstance(message, str) else None)


class EventTranslator:
    """One attempt's wire events applied to the assembler (which a retry reuses, so ``start``
    reaches the caller once)."""

    __slots__ = (
        "_api_key",
        "_closing",
        "_handlers",
        "_initial_input",
        "_name",
        "_signed",
        "_usage",
        "assembler",
        "finished",
        "stop_reason",
    )

    def __init__(
        self, assembler: MessageAssembler, api_key: str | None, name: str = "Anthropic"
    ) -> None:
        self.assembler = assembler
        self._api_key = api_key
        self._name = name  # the provider as errors name it
        self.finished = False
        self.stop_reason: str | None = None
        self._usage = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
        self._closing: int | None = None  # a tool call whose block ended; closed on the next event
        self._initial_input: dict[int, dict[str, Any]] = {}
        self._signed: set[int] = set()  # thinking blocks that exist in the assembler already
        self._handlers: dict[str, Callable[[dict[str, Any]], Events]] = {
            "content_block_delta": self._block_delta,
            "content_block_start": self._block_start,
            "content_block_stop": self._block_stop,
            "message_start": self._message_start,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "error": self._error,
        }

    def handle(self, event: dict[str, Any]) -> Events:
        kind = event.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if self._closing is not None and kind != "message_delta":
            events = self._close_call(cut_off=False)
            if handler is not None:
                events.extend(handler(event))
            return events
        return handler(event) if handler is not None else []  # ping, and events not known yet

    def end_of_stream(self) -> Events:
        """The body ended: a message whose stop reason came finishes; anything else failed."""
        if self.finished:
            return []
        if self.stop_reason is None:
            raise WireFailure(
                f"{self._name}: the stream ended before the response was complete", retryable=True
            )
        return self._message_stop({})

    # -- the message -----------------------------------------------------------------------------

    def _message_start(self, event: dict[str, Any]) -> Events:
        message = event.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if isinstance(usage, dict):
            self._record_usage(usage)
        return self.assembler.start()

    def _message_delta(self, event: dict[str, Any]) -> Events:
        delta = event.get("delta")
        if isinstance(delta, dict) and delta.get("stop_reason"):
            self.stop_reason = str(delta["stop_reason"])
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._record_usage(usage)
        if self._closing is not None:
            return self._close_call(cut_off=_STOP_REASONS.get(self.stop_reason or "") == "length")
        return []

    def _message_stop(self, _event: dict[str, Any]) -> Events:
        self.finished = True
        raw = self.stop_reason
        stop = _STOP_REASONS.get(raw or "end_turn")
        if stop is None:
            problem = (
                "the model declined to answer (stop reason 'refusal')"
                if raw == "refusal"
                else f"the response stopped for an unknown reason: {raw!r}"
            )
            return self.assembler.done("error", f"{self._name}: {problem}")
        note = None
        if raw == "model_context_window_exceeded":
            note = f"{self._name}: the response filled the model's context window"
        return self.assembler.done(stop, note)

    def _error(self, event: dict[str, Any]) -> Events:
        kind, message = error_detail(event)
        text = failure_text(self._name, kind=kind, message=message, api_key=self._api_key)
        retryable = kind in _RETRYABLE_ERRORS and not is_context_overflow(message or "")
        raise WireFailure(text, retryable=retryable)

    def _record_usage(self, usage: dict[str, Any]) -> None:
        counts = self._usage
        for field, bucket in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        ):
            value = usage.get(field)
            if isinstance(value, int) and value > counts[bucket]:  # counts only ever grow
                counts[bucket] = value
        self.assembler.set_usage(**counts)

    # -- content blocks --------------------------------------------------------------------------

    def _block_start(self, event: dict[str, Any]) -> Events:
        index = event.get("index", 0)
        block = event.get("content_block")
        if not isinstance(block, dict):
            return []
        kind = block.get("type")
        assembler = self.assembler
        if kind == "text":
            return assembler.text(block.get("text") or "")
        if kind == "thinking":
            events = self._thinking(index, block.get("thinking") or "")
            if block.get("signature"):
                events.extend(self._signature(index, block["signature"]))
            return events
        if kind == "redacted_thinking":
            self._signed.add(index)
            return assembler.thinking_block("", str(block.get("data") or ""), redacted=True)
        if kind == "tool_use":
            given = block.get("input")
            if isinstance(given, dict) and given:
                self._initial_input[index] = given
            return assembler.tool_call_start(
                index, str(block.get("id") or ""), str(block.get("name") or "")
            )
        return []  # server tools and blocks not known yet are not part of the answer

    def _block_delta(self, event: dict[str, Any]) -> Events:
        delta = event.get("delta")
        if not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        index = event.get("index", 0)
        assembler = self.assembler
        if kind == "input_json_delta":
            if not assembler.has_call(index):
                return []
            self._initial_input.pop(index, None)
            return assembler.tool_call_delta(index, delta.get("partial_json") or "")
        if kind == "text_delta":
            return assembler.text(delta.get("text") or "")
        if kind == "thinking_delta":
            return self._thinking(index, delta.get("thinking") or "")
        if kind == "signature_delta":
            return self._signature(index, str(delta.get("signature") or ""))
        return []

    def _block_stop(self, event: dict[str, Any]) -> Events:
        index = event.get("index", 0)
        if self.assembler.has_call(index):
            given = self._initial_input.pop(index, None)
            events = self.assembler.tool_call_arguments(index, json.dumps(given)) if given else []
            self._closing = index
            return events
        return self.assembler.close_text()

    def _thinking(self, index: int, text: str) -> Events:
        """Thinking text of block ``index``; once the block has shown some, its signature is
        the signature of that thinking (see :meth:`_signature`)."""
        events = self.assembler.thinking(text)
        if events:
            self._signed.add(index)
        return events

    def _signature(self, index: int, signature: str) -> Events:
        """A signature belongs to this block's thinking; a block with no thinking text (the
        model's reasoning not shown) becomes a thinking block of its own here."""
        if index in self._signed:
            return self.assembler.thinking_signature(signature)
        self._signed.add(index)
        return self.assembler.thinking_block("", signature, redacted=False)

    def _close_call(self, *, cut_off: bool) -> Events:
        index = self._closing
        self._closing = None
        return self.assembler.tool_call_end(index, cut_off=cut_off)
