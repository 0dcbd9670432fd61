"""``tether sessions list|show|export``: what is on disk, readable by a person."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from datetime import datetime
from typing import Any

from tether.ai import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from tether.session import (
    CALL_STARTED,
    TASK_END,
    TASK_START,
    ApprovalEntry,
    CustomEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionError,
    SessionStore,
)

from ._errors import CommandError

__all__ = ["print_session", "run_sessions"]


def run_sessions(args: Any) -> int:
    store = SessionStore()
    try:
        if args.action == "list":
            return _list(store, None if args.all else os.getcwd())
        session = store.open(args.id)
    except SessionError as exc:
        raise CommandError(str(exc)) from None
    if args.action == "show":
        print_session(session)
        return 0
    from tether._home import open_private

    from ._html_export import session_html

    page = session_html(session)
    try:
        with open_private(args.html) as handle:
            handle.write(page)
    except OSError as exc:
        raise CommandError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    print(f"wrote {args.html}")
    return 0


def print_session(session: Any) -> None:
    """A session's branch, one line per entry, on stdout (warnings on stderr)."""
    for warning in session.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for entry in session.path_to():
        if not (isinstance(entry, CustomEntry) and entry.custom_type == CALL_STARTED):
            print(_entry_line(entry))  # a call's start is bookkeeping; its result follows


def _list(store: SessionStore, cwd: str | None) -> int:
    infos = store.list(cwd)
    if not infos:
        where = f" for {cwd}" if cwd else ""
        print(f"no sessions{where} (tether sessions list --all lists every directory)")
        return 0
    for info in infos:
        when = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        first = (info.name or info.first_message).replace("\n", " ")[:60]
        where = "" if cwd else f"  {info.cwd}"
        print(f"{info.id[:8]}  {when}  {info.message_count:>4} msgs  {first}{where}")
    return 0


def _entry_line(entry: Any) -> str:
    if isinstance(entry, MessageEntry):
        return _message_line(entry.message)
    if isinstance(entry, CustomEntry) and entry.custom_type == "hand":
        name = entry.data.get("name") if isinstance(entry.data, dict) else entry.data
        return f"[hand] {name} is the current hand"
    if (
        isinstance(entry, CustomEntry)
        and entry.custom_type in (TASK_START, TASK_END)
        and isinstance(entry.data, dict)
    ):
        return _task_line(entry.custom_type, entry.data)
    if isinstance(entry, ApprovalEntry):
        return (
            f"[approval] {entry.tool_name} {entry.decision} by {entry.decided_by}: {entry.reason}"
        )
    if isinstance(entry, ModelChangeEntry):
        return f"[model_change] {entry.provider}/{entry.model}"
    fields = (
        {
            field.name: getattr(entry, field.name)
            for field in dataclasses.fields(entry)
            if field.name not in ("id", "parent_id", "timestamp")
        }
        if dataclasses.is_dataclass(entry)
        else {}
    )
    shown = " ".join(f"{name}={_short(value)}" for name, value in fields.items())
    return f"[{entry.type}] {shown}" if shown else f"[{entry.type}]"


def _short(value: object, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ran_on(details: Any) -> str:
    """`` on hand NAME (user@host)`` for a call a hand ran."""
    ran_on = details.get("ran_on") if isinstance(details, dict) else None
    if not isinstance(ran_on, dict):
        return ""
    name, address = ran_on.get("hand"), ran_on.get("address")
    return f" on hand {name} ({address})" if name else f" on {address}"


def _task_line(kind: str, data: dict[str, Any]) -> str:
    task = f"task {data.get('task_id')}"
    if kind == TASK_START:
        approval = data.get("approval") or "not recorded"
        return (
            f"[{task} started] {data.get('command')} (pid {data.get('pid')}; {approval}; "
            f"log {data.get('log_path')})"
        )
    status = data.get("status")
    code = f" {data.get('exit_code')}" if status == "exited" else ""
    runtime = data.get("runtime_s")
    after = f" after {runtime:.1f} s" if isinstance(runtime, int | float) else ""
    note = f"; {data['note']}" if data.get("note") else ""
    return f"[{task} {status}{code}{after}] log {data.get('log_path')}{note}"


def _message_line(message: Any) -> str:
    if isinstance(message, AssistantMessage):
        parts = []
        for block in message.content:
            if isinstance(block, TextContent):
                parts.append(block.text)
            elif isinstance(block, ThinkingContent):
                parts.append(f"(thinking) {block.thinking[:200]}")
            elif isinstance(block, ToolCall):
                parts.append(f"-> {block.name} {block.arguments}")
        suffix = (
            f" [{message.stop_reason}: {message.error_message}]" if message.error_message else ""
        )
        return "assistant: " + "\n  ".join(parts) + suffix
    if isinstance(message, ToolResultMessage):
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        mark = " (error)" if message.is_error else ""
        return f"tool_result {message.tool_name}{_ran_on(message.details)}{mark}: {text[:500]}"
    content = message.content
    text = (
        content
        if isinstance(content, str)
        else " ".join(b.text for b in content if isinstance(b, TextContent))
    )
    return f"user: {text}"
