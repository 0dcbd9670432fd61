"""Lossless JSON for transcripts: ``to_json`` any tether value, ``from_json`` it back.

``from_json`` infers what it reads from the discriminators (``role`` for messages, ``type`` for
content blocks, a list of either) unless told the type explicitly.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, TypeVar, overload

from pydantic import TypeAdapter

from ._types import (
    AssistantContent,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
)

__all__ = ["from_json", "to_json"]

T = TypeVar("T")

ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCall | AssistantContent


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def to_json(value: Any, *, indent: int | None = None) -> str:
    """Serialise a message, content block, model, list of them, or any JSON-able value."""
    return _adapter(Any).dump_json(value, indent=indent).decode()


@overload
def from_json(data: str | bytes, kind: type[T]) -> T: ...
@overload
def from_json(data: str | bytes, kind: None = None) -> Any: ...
def from_json(data: str | bytes, kind: Any = None) -> Any:
    """Rebuild tether values from JSON text written by :func:`to_json`.

    Without ``kind``: an object with a ``role`` becomes a message, one with a ``type`` a content
    block, and a list becomes a list of those.
    """
    if kind is not None:
        return _adapter(kind).validate_json(data)
    raw = json.loads(data)
    return _adapter(_infer_kind(raw)).validate_python(raw)


def _infer_kind(raw: Any) -> Any:
    if isinstance(raw, list):
        if raw and all(isinstance(item, dict) and "role" in item for item in raw):
            return list[Message]
        if raw and all(isinstance(item, dict) and "type" in item for item in raw):
            return list[ContentBlock]
        return list[Any]
    if isinstance(raw, dict):
        if "role" in raw:
            return Message
        if "type" in raw:
            return ContentBlock
    return Any
