"""Transcript repair: the transcript as one particular model may be sent it.

A transcript may hold what another model wrote, a turn that failed half-way, or a call whose
result was never recorded; every API refuses some of that. :func:`transform_messages` returns
the transcript that model accepts, leaving the given messages untouched (a changed message is a
new object):

- first the structural repair every request gets (:func:`tether.ai.repair_transcript`): an
  assistant message that ended in ``error`` or ``aborted`` is left out, and so are tool results
  that answer no call of the assistant message they follow; a call without a result gets an
  error result ("no result was recorded for this call");
- thinking is replayed as it is only to the model that wrote it (same provider, api and model);
  to any other model it becomes plain text, and redacted or empty thinking is left out;
- an image reaches only a model with ``"image"`` in ``model.input``; others read a short note;
- tool-call ids are made to fit the target (letters, digits, ``_`` and ``-``; at most 40
  characters for Chat Completions, 64 elsewhere) and unique, the same way on every request so
  a server's prompt cache keeps matching; results follow their call's new id. Ids written by
  the target's own provider and api are its own and pass unchanged (a protocol may encode more
  than the bare call id in them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .._repair import NO_RESULT_RECORDED, repair_transcript
from .._types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

__all__ = [
    "IMAGE_OMITTED",
    "NO_RESULT_RECORDED",
    "tool_call_id_limit",
    "transform_messages",
]

IMAGE_OMITTED = "(image omitted: this model does not accept images)"

_ID_CHARACTER_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_ID_LIMITS = {"openai-completions": 40}
_DEFAULT_ID_LIMIT = 64
_DIGEST_LENGTH = 8


def tool_call_id_limit(api: str) -> int:
    """The longest tool-call id that ``api`` accepts (after :func:`transform_messages`)."""
    return _ID_LIMITS.get(api, _DEFAULT_ID_LIMIT)


def transform_messages(messages: list[Message], model: Model) -> list[Message]:
    """The transcript as ``model`` may be sent it (see the module's rules)."""
    ids = _ToolCallIds(tool_call_id_limit(model.api))
    images = "image" in model.input
    out: list[Message] = []
    calls: list[_Call] = []
    for message in repair_transcript(messages):
        if isinstance(message, ToolResultMessage):
            call = next((c for c in calls if c.original_id == message.tool_call_id), None)
            if call is not None:  # always, on a repaired transcript
                calls.remove(call)
                out.append(_result_for(message, call.id, images))
        elif isinstance(message, UserMessage):
            calls = []
            out.append(_user_for(message, images))
        else:
            assistant, calls = _assistant_for(message, model, ids)
            if assistant.content:
                out.append(assistant)
    return out


@dataclass(slots=True)
class _Call:
    """A call of the last assistant message sent, waiting for its result."""

    original_id: str
    id: str
    name: str
    timestamp: float


class _ToolCallIds:
    """New ids for the calls of one transcript: fitted, unique, and the same on every request."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used: set[str] = set()

    def assign(self, original: str, *, own: bool) -> str:
        candidate = original if own and original else self.fit(original)
        attempt = 0
        while candidate in self.used:
            attempt += 1
            candidate = self.with_digest(original, f"{original}#{attempt}")
        self.used.add(candidate)
        return candidate

    def fit(self, original: str) -> str:
        cleaned = _ID_CHARACTER_NOT_ALLOWED.sub("_", original)
        if cleaned and len(cleaned) <= self.limit:
            return cleaned
        return self.with_digest(original, original)

    def with_digest(self, original: str, seed: str) -> str:
        digest = hashlib.sha256(seed.encode()).hexdigest()[:_DIGEST_LENGTH]
        stem = _ID_CHARACTER_NOT_ALLOWED.sub("_", original)[: self.limit - _DIGEST_LENGTH - 1]
        return f"{stem or 'call'}_{digest}"


def _assistant_for(
    message: AssistantMessage, model: Model, ids: _ToolCallIds
) -> tuple[AssistantMessage, list[_Call]]:
    own_ids = message.provider == model.provider and message.api == model.api
    same_model = own_ids and message.model == model.id
    content: list[AssistantContent] = []
    calls: list[_Call] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            new_id = ids.assign(block.id, own=own_ids)
            calls.append(_Call(block.id, new_id, block.name, message.timestamp))
            content.append(block if new_id == block.id else replace(block, id=new_id))
        elif isinstance(block, ThinkingContent):
            content.extend(_thinking_for(block, same_model))
        else:
            content.append(block)
    if _same_blocks(content, message.content):
        return message, calls
    return replace(message, content=content), calls


def _thinking_for(block: ThinkingContent, same_model: bool) -> list[AssistantContent]:
    if same_model:
        replayable = block.signature is not None or block.thinking.strip()
        return [block] if replayable else []
    if block.redacted or not block.thinking.strip():
        return []
    return [TextContent(block.thinking)]


def _user_for(message: UserMessage, images: bool) -> UserMessage:
    if images or isinstance(message.content, str):
        return message
    content: list[UserContent] = _without_images(message.content)
    return message if _same_blocks(content, message.content) else replace(message, content=content)


def _result_for(message: ToolResultMessage, new_id: str, images: bool) -> ToolResultMessage:
    content = message.content if images else _without_images(message.content)
    if new_id == message.tool_call_id and _same_blocks(content, message.content):
        return message
    return replace(message, tool_call_id=new_id, content=content)


def _without_images(content: list[ToolResultContent]) -> list[ToolResultContent]:
    """Each run of images becomes one note (both user and tool-result content allow text)."""
    out: list[ToolResultContent] = []
    for block in content:
        if not isinstance(block, ImageContent):
            out.append(block)
        elif not (out and isinstance(out[-1], TextContent) and out[-1].text == IMAGE_OMITTED):
            out.append(TextContent(IMAGE_OMITTED))
    return out


def _same_blocks(new: Sequence[object], old: Sequence[object]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True))
