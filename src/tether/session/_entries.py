"""The lines of a session file: one header, then entries that form a tree by ``parent_id``.

Each entry type is a small dataclass; :func:`entry_to_json` and :func:`entry_from_json` convert
between them and the JSON objects on disk (messages as :func:`tether.ai.to_json` writes them).
An entry of a type this version does not know is kept as a :class:`CustomEntry`-like
:class:`UnknownEntry`, so a newer file still loads and its tree stays whole.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeAlias

from pydantic import TypeAdapter

from tether.ai import Message

__all__ = [
    "ApprovalEntry",
    "CompactionEntry",
    "CustomEntry",
    "Entry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "entry_from_json",
    "entry_to_json",
    "new_entry_id",
    "now_iso",
]

SESSION_VERSION = 1

_messages: TypeAdapter[Message] = TypeAdapter(Message)


def now_iso() -> str:
    """The current time as ISO 8601 UTC with milliseconds (``2026-12-01T21:35:44.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_entry_id() -> str:
    """A short random id (collisions within one file are checked by the session)."""
    return secrets.token_hex(4)


@dataclass(slots=True)
class SessionHeader:
    id: str
    cwd: str
    timestamp: str
    parent_session: str | None = None
    version: int = SESSION_VERSION
    type: str = "session"


@dataclass(slots=True, kw_only=True)
class _EntryBase:
    id: str = ""
    parent_id: str | None = None
    timestamp: str = ""


@dataclass(slots=True, kw_only=True)
class MessageEntry(_EntryBase):
    message: Message
    type: ClassVar[str] = "message"


@dataclass(slots=True, kw_only=True)
class ModelChangeEntry(_EntryBase):
    provider: str
    model: str
    type: ClassVar[str] = "model_change"


@dataclass(slots=True, kw_only=True)
class ThinkingLevelChangeEntry(_EntryBase):
    level: str
    type: ClassVar[str] = "thinking_level_change"


@dataclass(slots=True, kw_only=True)
class CompactionEntry(_EntryBase):
    summary: str
    first_kept_entry_id: str | None
    tokens_before: int
    type: ClassVar[str] = "compaction"


@dataclass(slots=True, kw_only=True)
class ApprovalEntry(_EntryBase):
    tool_call_id: str
    tool_name: str
    digest: str
    decision: str
    decided_by: str
    reason: str = ""
    type: ClassVar[str] = "approval"


@dataclass(slots=True, kw_only=True)
class LabelEntry(_EntryBase):
    target_id: str
    label: str
    type: ClassVar[str] = "label"


@dataclass(slots=True, kw_only=True)
class SessionInfoEntry(_EntryBase):
    name: str
    type: ClassVar[str] = "session_info"


@dataclass(slots=True, kw_only=True)
class CustomEntry(_EntryBase):
    custom_type: str
    data: Any = None
    type: ClassVar[str] = "custom"


@dataclass(slots=True, kw_only=True)
class UnknownEntry(_EntryBase):
    """An entry of a type this version does not know; kept as read, written back unchanged."""

    raw_type: str
    raw: dict[str, Any] = field(default_factory=dict)
    type: ClassVar[str] = "unknown"


Entry: TypeAlias = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | ApprovalEntry
    | LabelEntry
    | SessionInfoEntry
    | CustomEntry
    | UnknownEntry
)

_KINDS: dict[str, type[Any]] = {
    kind.type: kind
    for kind in (
        MessageEntry,
        ModelChangeEntry,
        ThinkingLevelChangeEntry,
        CompactionEntry,
        ApprovalEntry,
        LabelEntry,
        SessionInfoEntry,
        CustomEntry,
    )
}


def entry_to_json(entry: Entry) -> dict[str, Any]:
    """The JSON object of one entry line (``type`` first)."""
    if isinstance(entry, UnknownEntry):
        return dict(entry.raw)
    if isinstance(entry, MessageEntry):
        return {
            "type": entry.type,
            "id": entry.id,
            "parent_id": entry.parent_id,
            "timestamp": entry.timestamp,
            "message": _messages.dump_python(entry.message, mode="json"),
        }
    return {"type": entry.type, **asdict(entry)}


def entry_from_json(raw: dict[str, Any]) -> Entry:
    """An entry from its JSON object; raises ``ValueError`` (or ``TypeError``) when malformed."""
    kind_name = raw.get("type")
    if not isinstance(kind_name, str):
        raise ValueError("entry has no 'type'")
    if not isinstance(raw.get("id"), str) or not raw["id"]:
        raise ValueError("entry has no 'id'")
    parent = raw.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        raise ValueError("entry 'parent_id' is not a string")
    kind = _KINDS.get(kind_name)
    if kind is None:
        return UnknownEntry(
            id=raw["id"],
            parent_id=parent,
            timestamp=str(raw.get("timestamp", "")),
            raw_type=kind_name,
            raw=raw,
        )
    if kind is MessageEntry:
        return MessageEntry(
            id=raw["id"],
            parent_id=parent,
            timestamp=str(raw.get("timestamp", "")),
            message=_messages.validate_python(raw.get("message")),
        )
    names = {f.name for f in fields(kind)}
    return kind(**{key: value for key, value in raw.items() if key in names})  # type: ignore[no-any-return]
