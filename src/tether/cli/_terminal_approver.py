"""Approvals in the interactive terminal: the gate's request shown inline, under its call.

The request is rendered by :func:`tether.gate.render_request` (arguments as JSON, secrets masked,
escape sequences stripped), with the reason the gate asks — the rule that wants a person. The
answers are single keys: ``y`` allow once, ``a`` allow for this session, ``n`` deny once, ``d``
deny for this session. Requests are asked one at a time (a parallel batch waits in turn), each
only after its call line is on screen, and keys pressed before the prompt is armed are dropped:
type-ahead never answers a prompt. Every decision is then printed, so none is hidden.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Final, Protocol

from tether.gate import ApprovalRequest, Decision, render_request

from ._terminal_output import Transcript

__all__ = ["ANSWER_KEYS", "ApprovalSurface", "InlineApprover"]

ANSWER_KEYS: Final[Mapping[str, Decision]] = {
    "y": "allow_once",
    "a": "allow_session",
    "n": "deny_once",
    "d": "deny_session",
}
ANSWER_HINT: Final = "y allow once · a allow this session · n deny · d deny this session"
_SAID: Final[Mapping[Decision, tuple[str, str]]] = {
    "allow_once": ("✓ allowed once", "green"),
    "allow_session": ("✓ allowed for this session (calls that do the same run unasked)", "green"),
    "deny_once": ("✗ denied once", "red"),
    "deny_session": ("✗ denied for this session", "red"),
}
_CALL_LINE_WAIT_SECONDS: Final = 2.0


class ApprovalSurface(Protocol):
    """Where a request is shown and answered (the prompt_toolkit UI, or a plain terminal)."""

    async def ask(self, lines: list[str]) -> Decision:
        """Show ``lines`` with :data:`ANSWER_HINT` and return the person's answer."""
        ...

    def cancel_asking(self) -> None:
        """Answer a request being shown with ``deny_once`` (the turn was aborted)."""
        ...


class InlineApprover:
    """The gate's :class:`~tether.gate.Approver` for the interactive terminal."""

    def __init__(self, surface: ApprovalSurface, transcript: Transcript) -> None:
        self.surface = surface
        self.transcript = transcript
        self.aborted = False
        """Set while a turn is being aborted: requests still coming are denied unasked."""
        self._lock = asyncio.Lock()

    async def confirm(self, request: ApprovalRequest) -> Decision:
        async with self._lock:
            if self.aborted:
                return "deny_once"
            await self._call_line_shown(request.tool_name)
            text = render_request(request)
            lines = ["Approval needed — " + text.split("\n")[0], *text.split("\n")[1:]]
            self.transcript.asking(request.tool_call_id, request.tool_name, True)
            try:
                decision = await self.surface.ask(lines)
            finally:
                self.transcript.asking(request.tool_call_id, request.tool_name, False)
            said, style = _SAID[decision]
            self.transcript.note(f"  {said} — asked because {request.reason}", style)
            return decision

    def abort(self) -> None:
        """Deny the request being shown, and any that follow until :meth:`resume`."""
        self.aborted = True
        self.surface.cancel_asking()

    def resume(self) -> None:
        self.aborted = False

    async def _call_line_shown(self, tool_name: str) -> None:
        """The gate runs ahead of the listeners: wait until the call line is printed."""
        deadline = time.monotonic() + _CALL_LINE_WAIT_SECONDS
        while not self.transcript.has_shown_call(tool_name) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
