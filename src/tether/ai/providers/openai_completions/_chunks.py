"""A Chat Completions event stream, read as bytes, turned into tether events.

:class:`CompletionsStreamReader` is fed the response body as it arrives: it splits server-sent
events (:class:`~.._wire.SSEDecoder`), parses each ``data:`` payload with jiter (no object per
chunk beyond the parsed dict) and drives a :class:`MessageAssembler`. Per chunk that is a
split, a parse, a few lookups and one assembler call, so a long tool call costs the same per
delta from its first byte to its last.

Tool calls are keyed the way servers actually send them: by ``index`` when the
chunk has one; the same index with a different non-empty ``id`` (or a second ``name`` where
ids are missing) starts a new call; a chunk without an index belongs to the open call. A
missing id is made up; ``""`` or ``null`` arguments are ``{}``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import jiter

from ..._stream import AssistantMessageEvent
from ..._types import StopReason, ThinkingContent
from .._errors import is_context_overflow, is_retryable_status
from .._wire import MessageAssembler, SSEDecoder
from ._request import REASONING_FIELDS

__all__ = ["CompletionsStreamReader", "StreamFault"]

Events = list[AssistantMessageEvent]

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}
_RETRYABLE_KINDS = ("server_error", "overloaded", "rate_limit", "timeout", "unavailable")
_EXCERPT = 300


@dataclass(frozen=True, slots=True)
class StreamFault:
    """What went wrong inside a 200 stream: the server's ``error`` object (``payload``) or the
    reader's own ``message``, and whether another try may succeed."""

    message: str = ""
    payload: Any = None
    retryable: bool = False
    empty: bool = False
    """HTTP 200 and no event at all: a deterministic refusal, diagnosed, never retried."""


class CompletionsStreamReader:
    """Feeds one response's bytes to ``assembler``; returns the events to yield."""

    __slots__ = (
        "_decoder",
        "_head",
        "_last_key",
        "_unindexed",
        "_wire_ids",
        "assembler",
        "done",
        "fault",
        "finish_reason",
    )

    def __init__(self, assembler: MessageAssembler) -> None:
        self.assembler = assembler
        self._decoder = SSEDecoder()
        self._head = b""  # the body's first bytes, to quote when it is not an event stream
        self._wire_ids: dict[Hashable, str | None] = {}
        self._last_key: Hashable | None = None
        self._unindexed = 0
        self.done = False
        """``data: [DONE]`` arrived."""
        self.fault: StreamFault | None = None
        self.finish_reason: str | None = None

    @property
    def finished(self) -> bool:
        """Nothing more is to be read: the stream said ``[DONE]`` or reported a fault."""
        return self.done or self.fault is not None

    def feed(self, data: bytes) -> Events:
        """Take the next bytes of the body; the events of every server-sent event they end."""
        if not self.assembler.started and len(self._head) < _EXCERPT:
            self._head += data[:_EXCERPT]
        events: Events = []
        for name, payload in self._decoder.feed(data):
            self._dispatch(name, payload, events)
            if self.done or self.fault is not None:
                break
        return events

    def end(self) -> Events:
        """The body ended (or said ``[DONE]``): the last event, then the message closed.

        With a fault recorded nothing is closed: the caller decides between retry and failure.
        """
        events: Events = []
        if not self.finished:
            for name, payload in self._decoder.flush():
                self._dispatch(name, payload, events)
        if self.fault is not None:
            return events
        assembler = self.assembler
        reason = self.finish_reason
        if not assembler.started:
            self.fault = self._not_a_stream()
        elif reason is None and not self.done:
            self.fault = StreamFault(
                "the stream ended before the model finished (no finish_reason, no [DONE])"
            )
        elif reason is None or reason in _STOP_REASONS:
            events.extend(assembler.done(_STOP_REASONS.get(reason or "stop", "stop")))
        elif reason == "content_filter":
            message = "The provider's content filter stopped the response"
            events.extend(assembler.done("error", message))
        else:
            message = f"The model stopped for an unknown reason: {reason!r}"
            events.extend(assembler.done("error", message))
        return events

    # -- one event -------------------------------------------------------------------------------

    def _dispatch(self, name: str, data: bytes, events: Events) -> None:
        if data == b"[DONE]":
            self.done = True
            return
        try:
            chunk = jiter.from_json(data)
        except ValueError as exc:
            self.fault = StreamFault(f"an event is not valid JSON ({exc}): {_excerpt(data)}")
            return
        if type(chunk) is not dict:
            self.fault = StreamFault(f"an event is not a JSON object: {_excerpt(data)}")
            return
        if name == "error" or chunk.get("error") is not None:
            self.fault = _fault_from(chunk)
            return
        assembler = self.assembler
        if not assembler.started:
            events.extend(assembler.start())
        choices = chunk.get("choices")
        if choices:
            choice = choices[0]
            delta = choice.get("delta")
            if delta:
                for field in REASONING_FIELDS:
                    reasoning = delta.get(field)
                    if reasoning and type(reasoning) is str:
                        self._thinking(reasoning, field, events)
                        break
                content = delta.get("content")
                if content:
                    if type(content) is str:
                        events.extend(assembler.text(content))
                    elif type(content) is list:
                        self._content_parts(content, events)
                calls = delta.get("tool_calls")
                if calls:
                    self._tool_calls(calls, events)
            reason = choice.get("finish_reason")
            if reason:
                self.finish_reason = str(reason)
        usage = chunk.get("usage") or _groq_usage(chunk)
        if usage:
            self._usage(usage)

    def _not_a_stream(self) -> StreamFault:
        head = self._head.decode("utf-8", "replace").strip()
        if not head or self.done:
            return StreamFault("the response carried no events", empty=True)
        try:
            body = json.loads(head)
        except ValueError:
            body = None
        if isinstance(body, dict) and "error" in body:
            return _fault_from(body)
        return StreamFault(f"the reply is not an event stream; it began: {head}")

    # -- content ---------------------------------------------------------------------------------

    def _thinking(self, text: str, field: str, events: Events) -> None:
        assembler = self.assembler
        events.extend(assembler.thinking(text))
        block = assembler.partial.content[-1]
        if isinstance(block, ThinkingContent) and block.signature is None:
            block.signature = field  # replayed to the same model in the field it came in

    def _content_parts(self, parts: list[Any], events: Events) -> None:
        """Content as a list of parts (Mistral's reasoning models): text, and thinking whose
        own parts hold the text."""
        for part in parts:
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "text" and type(part.get("text")) is str:
                events.extend(self.assembler.text(part["text"]))
            elif kind == "thinking" and type(part.get("thinking")) is list:
                for piece in part["thinking"]:
                    if type(piece) is dict and type(piece.get("text")) is str:
                        events.extend(self.assembler.thinking(piece["text"]))

    def _tool_calls(self, entries: Any, events: Events) -> None:
        assembler = self.assembler
        for entry in entries:
            if type(entry) is not dict:
                continue
            index = entry.get("index")
            wire_id = entry.get("id") or None
            function = entry.get("function") or {}
            name = function.get("name") or ""
            arguments = function.get("arguments")
            key: Hashable | None
            if index is None:
                key = self._last_key
                if key is not None and not assembler.has_call(key):
                    key = None
            else:
                key = index
                if not assembler.has_call(key):
                    key = None
            if key is not None and self._starts_another(key, wire_id, name):
                key = None
            if key is None:
                key = index if index is not None else ("unindexed", self._next_unindexed())
                events.extend(assembler.tool_call_start(key, wire_id or _made_up_id(), name))
                self._wire_ids[key] = wire_id
                self._last_key = key
            elif name and not assembler.call_block(key).name:
                assembler.call_block(key).name = name
            if arguments:
                if type(arguments) is str:
                    events.extend(assembler.tool_call_delta(key, arguments))
                else:
                    events.extend(assembler.tool_call_arguments(key, json.dumps(arguments)))

    def _starts_another(self, key: Hashable, wire_id: str | None, name: str) -> bool:
        """A different id under the open call's key, or a second name for it."""
        known = self._wire_ids.get(key)
        if wire_id is not None and known is not None:
            return wire_id != known
        block = self.assembler.call_block(key)
        if name and block.name:
            return True
        if wire_id is not None:
            self._wire_ids[key] = wire_id
            block.id = wire_id
        return False

    def _next_unindexed(self) -> int:
        self._unindexed += 1
        return self._unindexed

    def _usage(self, usage: Any) -> None:
        if type(usage) is not dict:
            return
        prompt = _count(usage.get("prompt_tokens"))
        details = usage.get("prompt_tokens_details")
        details = details if type(details) is dict else {}
        cached = _count(details.get("cached_tokens")) or _count(
            usage.get("prompt_cache_hit_tokens")
        )
        written = _count(details.get("cache_write_tokens"))
        self.assembler.set_usage(
            input=max(prompt - cached - written, 0),
            output=_count(usage.get("completion_tokens")),
            cache_read=cached,
            cache_write=written,
        )


def _groq_usage(chunk: dict[str, Any]) -> Any:
    """Groq reports usage under ``x_groq`` in its last chunk."""
    extra = chunk.get("x_groq")
    return extra.get("usage") if type(extra) is dict else None


def _fault_from(chunk: dict[str, Any]) -> StreamFault:
    """A server's error inside the stream; worth a retry when it says it is transient."""
    error = chunk.get("error", chunk)
    if not isinstance(error, dict):
        text = str(error)
        return StreamFault(payload=chunk, retryable=_transient(text))
    message = error.get("message")
    text = message if isinstance(message, str) else ""
    code = error.get("code")
    status = code if isinstance(code, int) else error.get("status")
    described = " ".join(str(error.get(key) or "") for key in ("type", "code")) + " " + text
    retryable = (isinstance(status, int) and is_retryable_status(status)) or _transient(described)
    return StreamFault(payload=chunk, retryable=retryable and not is_context_overflow(text))


def _transient(text: str) -> bool:
    words = text.lower().replace(" ", "_")
    return any(word in words for word in _RETRYABLE_KINDS)


def _count(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def _made_up_id() -> str:
    return f"call_{secrets.token_hex(12)}"


def _excerpt(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text if len(text) <= _EXCERPT else f"{text[:_EXCERPT]}... ({len(text)} characters)"
