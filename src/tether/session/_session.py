"""One session: an append-only JSONL file whose entries form a tree, and its current leaf.

Every append writes one line and flushes it before returning, so a process killed at any moment
loses at most the line being written; loading skips a torn or malformed line and says so in
:attr:`Session.warnings`. The context a model is sent is the path from the root to the leaf
(:meth:`Session.messages`); moving the leaf (:meth:`Session.branch`) starts a branch in the same
file, and :meth:`Session.fork` copies a path into a new file that names its parent. The file
is 0600 and a folder made for it 0700: a transcript holds whatever the tools printed.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import IO, Any

import jiter

from tether.ai import Message, ToolResultMessage, UserMessage

from ._entries import (
    SESSION_VERSION,
    CompactionEntry,
    CustomEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    entry_from_json,
    entry_to_json,
    new_entry_id,
    now_iso,
)
from ._errors import SessionError

__all__ = [
    "BRANCH_MARK",
    "Session",
    "compaction_message",
    "new_session_id",
    "session_file_name",
]

BRANCH_MARK = "branch"
"""``custom_type`` of the entry :meth:`Session.branch` writes so that a moved leaf persists."""


def compaction_message(summary: str) -> UserMessage:
    """How a compaction's summary enters the context: a user message that says what it is."""
    return UserMessage(
        "The earlier part of this conversation was summarised to fit the context window:\n\n"
        f"<summary>\n{summary}\n</summary>"
    )


class Session:
    """A session file, loaded: its header, entries (file order) and current leaf."""

    def __init__(self, path: str, header: SessionHeader, entries: list[Entry]) -> None:
        self.path = path
        self.header = header
        self.entries: list[Entry] = entries
        self.warnings: list[str] = []
        self._by_id: dict[str, Entry] = {entry.id: entry for entry in entries}
        self.leaf_id: str | None = entries[-1].id if entries else None
        self._file: IO[str] | None = None
        self._header_written = True
        self.write_error: str | None = None
        """Set when an append failed (``path: OS error``); nothing more is written after it."""
        self._lock_key: tuple[int, int] | None = None

    # -- identity ------------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def cwd(self) -> str:
        return self.header.cwd

    @property
    def name(self) -> str | None:
        """The newest ``session_info`` name, if any."""
        for entry in reversed(self.entries):
            if isinstance(entry, SessionInfoEntry):
                return entry.name
        return None

    # -- files -----------------------------------------------------------------------------------

    @classmethod
    def create(cls, path: str, cwd: str, session_id: str, parent: str | None = None) -> Session:
        """A new session whose file is written with its first entry (header first), so a run
        that never starts — a usage error, a missing key — leaves no empty session behind."""
        header = SessionHeader(id=session_id, cwd=cwd, timestamp=now_iso(), parent_session=parent)
        session = cls(path, header, [])
        session._header_written = False
        return session

    @classmethod
    def load(cls, path: str) -> Session:
        """Read a session file; torn or malformed entry lines are skipped with a warning."""
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().split("\n")
        except FileNotFoundError:
            raise SessionError(f"No session file at {path}") from None
        except OSError as exc:
            raise SessionError(f"Cannot read session file {path}: {exc.strerror}") from None
        header = _parse_header(path, lines[0] if lines else "")
        entries: list[Entry] = []
        warnings: list[str] = []
        seen: set[str] = set()
        for number, text in enumerate(lines[1:], start=2):
            if not text.strip():
                continue
            try:
                raw = jiter.from_json(text.encode())
                if not isinstance(raw, dict):
                    raise ValueError("not a JSON object")
                entry = entry_from_json(raw)
            except (ValueError, TypeError) as exc:
                torn = number == len(lines) or (number == len(lines) - 1 and not lines[-1])
                what = "torn last line" if torn else "malformed line"
                warnings.append(f"{path}:{number}: skipped a {what} ({_short(str(exc))})")
                continue
            if entry.id in seen:
                warnings.append(f"{path}:{number}: skipped an entry with a duplicate id {entry.id}")
                continue
            seen.add(entry.id)
            entries.append(entry)
        if header.version > SESSION_VERSION:
            warnings.insert(
                0,
                f"{path}: written by a newer tether (session format {header.version}; this one"
                f" reads {SESSION_VERSION}): entries it does not know are kept as they are",
            )
        session = cls(path, header, entries)
        session.warnings = warnings
        return session

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:  # the last flush failed: say so, never claim it was saved
                self.write_error = self.write_error or _write_error(self.path, exc)
            self._file = None
            _release_lock(self._lock_key)
            self._lock_key = None

    def ensure_writable(self) -> None:
        """Raise :class:`SessionError` now if this session's file cannot be written (a
        read-only or missing directory), before a run spends anything on it."""
        if self._header_written:
            target, what = self.path, "file"
        else:
            target, what = os.path.dirname(self.path), "directory"
            while target and not os.path.exists(target):
                target = os.path.dirname(target)
        if not os.access(target or ".", os.W_OK):
            raise SessionError(
                f"Cannot write the session {what} {target}: it is read-only or not yours"
            )
        if self._header_written:
            try:
                self._handle()  # takes the writer's lock now: a second writer is told at once
            except OSError as exc:
                raise SessionError(
                    f"Cannot write the session: {_write_error(self.path, exc)}"
                ) from None

    # -- writing ---------------------------------------------------------------------------------

    def append(self, entry: Entry) -> str:
        """Write ``entry`` as a child of the leaf (its id and timestamp filled in when empty),
        flushed before returning; the entry becomes the leaf. Returns its id."""
        if not entry.id or entry.id in self._by_id:
            entry.id = self._fresh_id()
        if not entry.timestamp:
            entry.timestamp = now_iso()
        entry.parent_id = self.leaf_id
        if self.write_error is not None:
            raise SessionError(f"The session is no longer written: {self.write_error}")
        try:
            handle = self._handle()
            handle.write(_line(entry_to_json(entry)))
            handle.flush()
        except OSError as exc:
            self.write_error = _write_error(self.path, exc)
            raise SessionError(f"Cannot write the session: {self.write_error}") from None
        self.entries.append(entry)
        self._by_id[entry.id] = entry
        self.leaf_id = entry.id
        return entry.id

    def append_message(self, message: Message) -> str:
        """Append a ``message`` entry; returns its id."""
        return self.append(MessageEntry(message=message))

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf to ``entry_id`` (``None``: before the first entry); the next entry is its
        child. The move is written as a ``custom`` entry, so it survives reopening."""
        if entry_id is not None and entry_id not in self._by_id:
            raise KeyError(f"No entry {entry_id!r} in session {self.id}")
        self.leaf_id = entry_id
        self.append(CustomEntry(custom_type=BRANCH_MARK, data={"target_id": entry_id}))

    def fork(self, entry_id: str | None = None) -> Session:
        """A new session file beside this one holding the path to ``entry_id`` (default: the
        leaf), ids kept; its header names this session as ``parent_session``."""
        if entry_id is not None and entry_id not in self._by_id:
            raise KeyError(f"No entry {entry_id!r} in session {self.id}")
        session_id = new_session_id()
        path = os.path.join(os.path.dirname(self.path), session_file_name(session_id))
        forked = Session.create(path, self.cwd, session_id, parent=self.id)
        forked._copy(self.path_to(entry_id))
        return forked

    # -- reading ---------------------------------------------------------------------------------

    def get(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    def path_to(self, entry_id: str | None = None) -> list[Entry]:
        """The entries from the root to ``entry_id`` (default: the leaf), in order."""
        chain: list[Entry] = []
        current = self._by_id.get(entry_id or self.leaf_id or "")
        guard = len(self._by_id) + 1
        while current is not None and guard:
            chain.append(current)
            current = self._by_id.get(current.parent_id) if current.parent_id else None
            guard -= 1
        chain.reverse()
        return chain

    def messages(
        self, preserve: Callable[[Sequence[Message]], list[Message]] | None = None
    ) -> list[Message]:
        """The context along the branch: the last compaction on the path contributes its summary
        (and what ``preserve`` keeps of the messages it replaced, as a :class:`Compactor` with
        the same ``preserve`` does), then the messages from its ``first_kept_entry_id`` on;
        without one, every message."""
        path = self.path_to()
        start = 0
        prefix: list[Message] = []
        for position in range(len(path) - 1, -1, -1):
            entry = path[position]
            if isinstance(entry, CompactionEntry):
                kept = _index_of(path, entry.first_kept_entry_id)
                start = kept if kept is not None and kept < position else position + 1
                older = [e.message for e in path[:start] if isinstance(e, MessageEntry)]
                prefix = [compaction_message(entry.summary)]
                prefix += preserve(older) if preserve is not None else []
                break
        return prefix + [entry.message for entry in path[start:] if isinstance(entry, MessageEntry)]

    def model_ref(self) -> str | None:
        """``provider/model`` of the newest model change on the branch."""
        for entry in reversed(self.path_to()):
            if isinstance(entry, ModelChangeEntry):
                return f"{entry.provider}/{entry.model}"
        return None

    def thinking_level(self) -> str | None:
        """The newest thinking level on the branch."""
        for entry in reversed(self.path_to()):
            if isinstance(entry, ThinkingLevelChangeEntry):
                return entry.level
        return None

    def active_tool_names(self) -> list[str]:
        """Tools activated along the branch (each ``added_tool_names`` anchor), in order."""
        names: list[str] = []
        for message in self.messages():
            if isinstance(message, ToolResultMessage) and message.added_tool_names:
                names.extend(n for n in message.added_tool_names if n not in names)
        return names

    # -- agents ----------------------------------------------------------------------------------

    def attach(self, agent: Any, gate: Any = None) -> Callable[[], None]:
        """Record every message of ``agent`` as it ends (the prompt before the request goes out),
        and, with ``gate``, every decision a person or the reviewer made. Returns unsubscribe."""
        from ._recording import record_agent

        return record_agent(self, agent, gate)

    # -- internals -------------------------------------------------------------------------------

    def _fresh_id(self) -> str:
        while True:
            candidate = new_entry_id()
            if candidate not in self._by_id:
                return candidate

    def _copy(self, entries: Iterable[Entry]) -> None:
        """Write ``entries`` keeping their ids and parents (a fork's path)."""
        handle = self._handle()
        for entry in entries:
            handle.write(_line(entry_to_json(entry)))
            self.entries.append(entry)
            self._by_id[entry.id] = entry
            self.leaf_id = entry.id
        handle.flush()

    def _handle(self) -> IO[str]:
        if self._file is None:
            from tether._home import open_private

            if not self._header_written:
                self._file = _locked(open_private(self.path, "x"), self)
                self._file.write(_line(_header_json(self.header)))
                self._header_written = True
            else:
                self._file = _locked(open_private(self.path, "a"), self)
                self._repair_torn_tail()
        return self._file

    def _repair_torn_tail(self) -> None:
        """A file that ends mid-line (a killed writer) gets a newline, so the next line is whole."""
        with open(self.path, "rb") as reader:
            reader.seek(0, os.SEEK_END)
            if reader.tell() == 0:
                return
            reader.seek(-1, os.SEEK_END)
            last = reader.read(1)
        if last != b"\n" and self._file is not None:
            self._file.write("\n")

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, path={self.path!r}, entries={len(self.entries)})"


# One writer process per session file: the first Session of this process to write a file takes
# an exclusive flock on a descriptor of its own; later ones in this process share it (a library
# user may hold two Session objects of one file); another process is refused.
_held_locks: dict[tuple[int, int], list[int]] = {}  # (device, inode) -> [fd, users]
_locks_guard = threading.Lock()


def _locked(handle: IO[str], session: Session) -> IO[str]:
    """``handle``, with this process holding the file's writer lock."""
    status = os.fstat(handle.fileno())
    key = (status.st_dev, status.st_ino)
    with _locks_guard:
        held = _held_locks.get(key)
        if held is None:
            lock_fd = os.open(session.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(lock_fd)
                handle.close()
                raise SessionError(
                    f"Session {session.id[:8]} is in use by another tether process"
                    f" ({session.path} is locked): wait for it to end, or start a new session"
                    " (without -c), or branch off with /fork once it is free"
                ) from None
            held = _held_locks[key] = [lock_fd, 0]
        held[1] += 1
    session._lock_key = key
    return handle


def _release_lock(key: tuple[int, int] | None) -> None:
    with _locks_guard:
        held = _held_locks.get(key) if key is not None else None
        if held is None:
            return
        held[1] -= 1
        if held[1] <= 0:
            del _held_locks[key]  # type: ignore[arg-type]
            os.close(held[0])


def _write_error(path: str, exc: OSError) -> str:
    return f"{path}: {exc.strerror or exc}"


def new_session_id() -> str:
    return uuid.uuid4().hex


def session_file_name(session_id: str) -> str:
    """``<UTC time>_<id>.jsonl``: files sort by creation time."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{stamp}_{session_id}.jsonl"


def _index_of(path: list[Entry], entry_id: str | None) -> int | None:
    for position, entry in enumerate(path):
        if entry.id == entry_id:
            return position
    return None


def _header_json(header: SessionHeader) -> dict[str, Any]:
    return {
        "type": "session",
        "version": header.version,
        "id": header.id,
        "cwd": header.cwd,
        "timestamp": header.timestamp,
        "parent_session": header.parent_session,
    }


def _parse_header(path: str, text: str) -> SessionHeader:
    try:
        raw = json.loads(text)
    except ValueError:
        raw = None
    if not isinstance(raw, dict) or raw.get("type") != "session":
        raise SessionError(
            f"{path} is not a tether session: its first line is not a session header"
        )
    if not isinstance(raw.get("id"), str) or not isinstance(raw.get("cwd"), str):
        raise SessionError(f"{path}: the session header lacks an 'id' or 'cwd'")
    version = raw.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise SessionError(
            f"{path}:1: the session header's 'version' must be a positive integer, not"
            f" {json.dumps(version)}"
        )
    parent = raw.get("parent_session")
    if parent is not None and not isinstance(parent, str):
        raise SessionError(f"{path}:1: the session header's 'parent_session' must be a string")
    return SessionHeader(
        id=raw["id"],
        cwd=raw["cwd"],
        timestamp=str(raw.get("timestamp", "")),
        parent_session=parent,
        version=version,
    )


def _line(raw: dict[str, Any]) -> str:
    return json.dumps(raw, ensure_ascii=False, separators=(",", ":")) + "\n"


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
