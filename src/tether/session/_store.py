"""Where sessions live: one folder per working directory under the sessions directory.

:class:`SessionStore` creates, opens (by path, id or unique id prefix), lists and finds the
newest session of a directory. Listing reads each file once and keeps what a picker shows.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import re
from dataclasses import dataclass

from tether.ai import TextContent, UserMessage

from ._entries import MessageEntry
from ._errors import SessionError
from ._session import Session, new_session_id, session_file_name

__all__ = ["SessionInfo", "SessionStore", "default_sessions_dir"]


def default_sessions_dir() -> str:
    """``$TETHER_HOME/sessions`` when set, else ``sessions`` in the user data directory."""
    from tether._home import data_dir

    return os.path.join(data_dir(), "sessions")


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    path: str
    cwd: str
    created: str
    modified: float
    message_count: int
    first_message: str
    name: str | None


class SessionStore:
    """Sessions on disk; ``directory`` defaults to :func:`default_sessions_dir`."""

    def __init__(self, directory: str | None = None) -> None:
        self.directory = os.path.abspath(directory or default_sessions_dir())

    def create(self, cwd: str) -> Session:
        """A new, empty session for ``cwd``."""
        cwd = os.path.abspath(cwd)
        session_id = new_session_id()
        path = os.path.join(self.folder_for(cwd), session_file_name(session_id))
        return Session.create(path, cwd, session_id)

    def folder_for(self, cwd: str) -> str:
        """The folder holding ``cwd``'s sessions: a readable slug plus a short hash."""
        cwd = os.path.abspath(cwd)
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", cwd).strip("-")[-60:] or "root"
        digest = hashlib.sha256(cwd.encode()).hexdigest()[:8]
        return os.path.join(self.directory, f"{slug}-{digest}")

    def open(self, id_or_path: str) -> Session:
        """Open by file path, full id or unique id prefix."""
        if os.sep in id_or_path or id_or_path.endswith(".jsonl"):
            return Session.load(id_or_path)
        matches = [path for path in self._files() if _id_of(path).startswith(id_or_path)]
        exact = [path for path in matches if _id_of(path) == id_or_path]
        if exact:
            return Session.load(exact[0])
        if not matches:
            raise SessionError(f"No session with id {id_or_path!r} in {self.directory}")
        if len(matches) > 1:
            ids = ", ".join(sorted(_id_of(path)[:12] for path in matches)[:5])
            raise SessionError(f"Session id prefix {id_or_path!r} is ambiguous: {ids}")
        return Session.load(matches[0])

    def list(self, cwd: str | None = None) -> builtins.list[SessionInfo]:
        """Sessions (of ``cwd``, or all), newest first by last modification."""
        paths = self._files(self.folder_for(cwd) if cwd is not None else None)
        infos = []
        for path in paths:
            info = _info(path)
            if info is not None:
                infos.append(info)
        infos.sort(key=lambda info: info.modified, reverse=True)
        return infos

    def most_recent(self, cwd: str) -> Session | None:
        """The newest session of ``cwd`` (by modification time), or ``None``."""
        paths = self._files(self.folder_for(cwd))
        if not paths:
            return None
        newest = max(paths, key=_modified)
        return Session.load(newest)

    def _files(self, folder: str | None = None) -> builtins.list[str]:
        roots = [folder] if folder is not None else _subfolders(self.directory)
        found: builtins.list[str] = []
        for root in roots:
            try:
                names = os.listdir(root)
            except OSError:
                continue
            found.extend(os.path.join(root, name) for name in names if name.endswith(".jsonl"))
        return found


def _subfolders(directory: str) -> list[str]:
    try:
        return [entry.path for entry in os.scandir(directory) if entry.is_dir()]
    except OSError:
        return []


def _id_of(path: str) -> str:
    stem = os.path.basename(path)[: -len(".jsonl")]
    return stem.split("_", 1)[1] if "_" in stem else stem


def _modified(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def _info(path: str) -> SessionInfo | None:
    try:
        session = Session.load(path)
    except SessionError:
        return None
    messages = [entry.message for entry in session.entries if isinstance(entry, MessageEntry)]
    first = next((m for m in messages if isinstance(m, UserMessage)), None)
    return SessionInfo(
        id=session.id,
        path=path,
        cwd=session.cwd,
        created=session.header.timestamp,
        modified=_modified(path),
        message_count=len(messages),
        first_message=_text_of(first) if first is not None else "",
        name=session.name,
    )


def _text_of(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return " ".join(block.text for block in message.content if isinstance(block, TextContent))
