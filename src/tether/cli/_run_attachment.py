"""The interactive terminal attached to a durable run (``/runs RUN``).

While attached, the terminal follows the run as a worker — in any process, on any host that
reaches the database — carries it on: the run's messages are printed as its session log grows
(it is written again from the durable record after a recovery, so messages are counted, not
bytes), the status line names the run, its status, the engine and the database, and a call the
run waits on a person for is asked here with the same card and keys as the terminal's own
approvals. The answer goes to the run as ``tether runs approve`` sends it: bound to the digest
the card showed, once. A durable run takes one answer per call, so ``a`` is allow once and ``d``
deny once. Esc detaches (the run goes on); the attachment ends by itself when the run ends.

The database is reached in a thread, so the screen stays live while it is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tether.ai import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tether.gate import ApprovalRequest, Decision, render_request
from tether.session import MessageEntry, Session, SessionError

from ._result_line import first_result_line
from ._terminal_approver import ApprovalSurface
from ._terminal_output import Transcript

__all__ = ["ENDED_STATUSES", "AttachedRun", "RunAttachment"]

ENDED_STATUSES: Final = frozenset(
    {"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"}
)
POLL_SECONDS: Final = 0.5
_ONE_ANSWER: Final[dict[Decision, str]] = {
    "allow_once": "allow_once",
    "allow_session": "allow_once",
    "deny_once": "deny_once",
    "deny_session": "deny_once",
}
_SHOWN_RESULT_CHARS: Final = 100


@dataclass
class AttachedRun:
    """What the status line shows of the run the terminal is attached to."""

    run_id: str
    engine: str
    status: str = "connecting"
    waiting: bool = False

    def run_text(self) -> str:
        waits = ", waits for you" if self.waiting else ""
        return f"run {self.run_id} {self.status.lower()}{waits}"


class RunAttachment:
    """Follows one run until it ends or :meth:`detach` is called."""

    def __init__(
        self,
        run_id: str,
        client: Any,
        transcript: Transcript,
        surface: ApprovalSurface,
        session_path: str,
        on_change: Callable[[], None],
    ) -> None:
        self.client = client
        """A :class:`tether.durable.RunsClient` (closed by :meth:`follow` when it returns)."""
        self.transcript = transcript
        self.surface = surface
        self.session_path = session_path
        self.on_change = on_change
        self.state = AttachedRun(run_id, _short_engine(client.info.engine, client.info.database))
        self._shown = 0
        self._answered: set[tuple[str, str]] = set()
        self._detached = asyncio.Event()

    def detach(self) -> None:
        self._detached.set()
        self.surface.cancel_asking()

    async def follow(self) -> str:
        """Show the run until it ends (its final status) or the person detaches (``""``)."""
        run_id = self.state.run_id
        try:
            while not self._detached.is_set():
                info = await asyncio.to_thread(self.client.show, run_id)
                self._set(info.status, info.pending is not None)
                self._show_new_messages()
                if info.status in ENDED_STATUSES:
                    return str(info.status)
                if info.pending is not None:
                    await self._ask(info.pending)
                    continue
                await self._pause()
            return ""
        finally:
            await asyncio.to_thread(self.client.close)

    async def _pause(self) -> None:
        """Until the next poll, or until the person detaches."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._detached.wait(), POLL_SECONDS)

    # -- asking ----------------------------------------------------------------------------------

    async def _ask(self, pending: dict[str, Any]) -> None:
        call, digest = str(pending.get("tool_call_id")), str(pending.get("digest"))
        if (call, digest) in self._answered:  # answered; the run has not taken it in yet
            await self._pause()
            return
        request = ApprovalRequest(
            tool_name=str(pending.get("tool_name")),
            args=pending.get("args") or {},
            reason=str(pending.get("reason")),
            digest=digest,
            tool_call_id=call,
        )
        text = render_request(request).split("\n")
        lines = [f"Run {self.state.run_id} waits for approval — {text[0]}", *text[1:]]
        lines.append(
            f"  {_expiry(pending.get('expires_at'))} · a durable run takes one answer per call: "
            "a counts as y, d as n"
        )
        decision = await self.surface.ask(lines)
        if self._detached.is_set():
            return  # Esc: detached, the run keeps waiting for an answer
        answer = _ONE_ANSWER[decision]
        self._answered.add((call, digest))
        try:
            await asyncio.to_thread(self.client.approve, self.state.run_id, call, answer, digest)
        except Exception as exc:  # a DurableError says why (answered elsewhere, another digest)
            self.transcript.note(f"  The answer was not taken: {exc}", "red")
            return
        said = "✓ allowed once" if answer == "allow_once" else "✗ denied once"
        style = "green" if answer == "allow_once" else "red"
        self.transcript.note(f"  {said} — sent to run {self.state.run_id}", style)

    # -- showing ---------------------------------------------------------------------------------

    def _set(self, status: str, waiting: bool) -> None:
        if (status, waiting) != (self.state.status, self.state.waiting):
            self.state.status, self.state.waiting = status, waiting
            self.on_change()

    def _show_new_messages(self) -> None:
        messages = _session_messages(self.session_path)
        for message in messages[self._shown :]:
            self._show(message)
        self._shown = max(self._shown, len(messages))

    def _show(self, message: Message) -> None:
        if isinstance(message, UserMessage):
            content = message.content
            text = content if isinstance(content, str) else _text(content)
            self.transcript.user(text or "(no text)", "from the run")
        elif isinstance(message, ToolResultMessage):
            text = first_result_line(_text(message.content), limit=_SHOWN_RESULT_CHARS)
            mark, style = ("✗", "red") if message.is_error else ("✓", "dim")
            self.transcript.note(f"  {mark} {message.tool_name}: {text}", style)
        elif isinstance(message, AssistantMessage):
            if message.text().strip():
                self.transcript.write(self.transcript.styler.markdown(message.text().strip()))
            for block in message.content:
                if isinstance(block, ToolCall):
                    arguments = json.dumps(block.arguments, ensure_ascii=False)
                    self.transcript.note(f"  → {block.name} {arguments[:200]}", "cyan")
            if message.failed:
                self.transcript.note(f"  !! {message.error_message or message.stop_reason}", "red")


def _short_engine(engine: str, database: str) -> str:
    """``DBOS · SQLite durable.sqlite``: the engine without its version and the database file's
    name without its path (``/runs`` shows both in full)."""
    kind, _, where = database.partition(" ")
    if kind == "SQLite":
        where = os.path.basename(where)
    return f"{engine.split(maxsplit=1)[0]} · {kind} {where}"


def _session_messages(path: str) -> list[Message]:
    """The messages of the run's session log so far (none while it does not exist yet; a line
    being written is read on the next poll)."""
    try:
        session = Session.load(path)
    except SessionError:
        return []
    return [entry.message for entry in session.path_to() if isinstance(entry, MessageEntry)]


def _text(blocks: Sequence[object]) -> str:
    return " ".join(b.text for b in blocks if isinstance(b, TextContent) and b.text.strip())


def _expiry(expires_at: Any) -> str:
    if not isinstance(expires_at, int | float):
        return "no expiry recorded"
    left = expires_at - time.time()
    if left <= 0:
        return "expired: the run takes it as a denial"
    hours, minutes = int(left // 3600), int(left % 3600 // 60)
    return f"expires in {hours} h {minutes} min" if hours else f"expires in {minutes} min"
