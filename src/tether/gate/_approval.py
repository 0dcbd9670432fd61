"""Approval: asking a person whether one frozen action may run.

An :class:`Approver` answers one :class:`ApprovalRequest` with a :data:`Decision`. The gate treats
anything but a valid decision (an error, a timeout, no approver at all) as ``deny_once``, and each
approver here fails closed on its own as well: no terminal, closed input, silence or nonsense all
mean ``deny_once``.

- :class:`TerminalApprover` asks on a terminal without blocking the event loop.
- :class:`ScriptedApprover` plays back decisions and records what it was asked (tests, headless
  runs); :class:`DenyAllApprover` refuses everything.

:func:`render_request` is the one way a request becomes text for a person: secrets masked, control
characters and escape sequences removed, so the arguments of a call cannot spoof the prompt.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import json
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TextIO, TypeAlias, get_args

from ._redaction import redact_secrets, sanitize_for_display

__all__ = [
    "ApprovalRequest",
    "Approver",
    "Decision",
    "DenyAllApprover",
    "ScriptedApprover",
    "TerminalApprover",
    "persons_answer_reason",
    "render_request",
]

Decision: TypeAlias = Literal["allow_once", "allow_session", "deny_once", "deny_session"]
"""``*_once`` applies to this call only; ``*_session`` is remembered for calls that do the same."""

DECISIONS: Final[frozenset[str]] = frozenset(get_args(Decision))


def persons_answer_reason(answer: Decision, why: str) -> str:
    """What the audit trail says of a person's answer to a call asked about because ``why``;
    for a denial, also the result the model sees."""
    if answer in ("allow_once", "allow_session"):
        return f"{answer}; asked because {why}"
    return f"Denied by a person ({answer}): {why}."


MAX_SHOWN_VALUE_CHARS: Final = 400
"""A rendered argument longer than this is shortened, with a note of its full length."""

DIGEST_SHOWN_CHARS: Final = 12

PROMPT: Final = "Allow? [y]es once / [a]lways this session / [n]o / [d]eny this session: "
MAX_ATTEMPTS: Final = 3

_ANSWERS: Final[Mapping[str, Decision]] = {
    "y": "allow_once",
    "yes": "allow_once",
    "a": "allow_session",
    "always": "allow_session",
    "n": "deny_once",
    "no": "deny_once",
    "d": "deny_session",
    "deny": "deny_session",
}


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One action waiting for a person.

    ``args`` are the arguments as the person may see them (already projected by the gate);
    ``digest`` identifies the exact frozen arguments the decision binds to (the validated ones,
    as the tool will receive them), and ``tool_call_id`` the call it is about: a front end finds
    the call by its id and shows this digest, never one of its own.
    """

    tool_name: str
    args: Mapping[str, Any]
    reason: str
    digest: str
    tool_call_id: str | None = None


class Approver(Protocol):
    """Decides one request; anything but a valid :data:`Decision` is treated as a denial."""

    async def confirm(self, request: ApprovalRequest) -> Decision: ...


def render_request(request: ApprovalRequest) -> str:
    """The text a person sees for ``request``: tool, arguments, reason and a short digest.

    Every piece goes through :func:`redact_secrets` and then :func:`sanitize_for_display`, so
    secrets are masked and escape sequences, carriage returns and other control characters from
    the arguments cannot redraw or overwrite the prompt. Each argument is rendered as JSON;
    values longer than :data:`MAX_SHOWN_VALUE_CHARS` are shortened with a note of their length.
    """
    lines = [f"Tool: {_clean(request.tool_name)}"]
    if request.args:
        lines.append("Arguments:")
        lines.extend(
            f"  {_clean(str(name))}: {_render_value(value)}" for name, value in request.args.items()
        )
    else:
        lines.append("Arguments: (none)")
    lines.append(f"Reason: {_clean(request.reason)}")
    lines.append(f"Digest: {_clean(_short_digest(request.digest))}")
    return "\n".join(lines)


def _clean(text: str) -> str:
    """Mask secrets, strip control sequences and keep ``text`` on one line.

    One line, so that no field can forge another (a reason cannot add its own ``Digest:`` line).
    """
    return " ".join(sanitize_for_display(redact_secrets(text)).splitlines())


def _render_value(value: Any) -> str:
    rendered = json.dumps(_redact_strings(value), ensure_ascii=False, default=_unrenderable)
    if len(rendered) <= MAX_SHOWN_VALUE_CHARS:
        return _clean(rendered)
    shortened = rendered[:MAX_SHOWN_VALUE_CHARS]
    return f"{_clean(shortened)}… (shortened; {len(rendered):,} characters in full)"


def _redact_strings(value: Any) -> Any:
    """Mask secrets in every string of a JSON-like value before it is escaped into JSON text."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, Mapping):
        return {redact_secrets(str(k)): _redact_strings(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_strings(item) for item in value]
    return value


def _unrenderable(value: object) -> str:
    return f"<{type(value).__name__}>"


def _short_digest(digest: str) -> str:
    """The first hex characters of the digest, after an ``algorithm:`` prefix if there is one."""
    return digest.rpartition(":")[2][:DIGEST_SHOWN_CHARS]


class TerminalApprover:
    """Asks a person at a terminal, one request at a time.

    Prompts only when ``input`` is a terminal; otherwise denies at once and says why. The answer
    is read without blocking the event loop (a reader on the input's file descriptor, or a
    background thread when the input cannot be watched). Input typed before the request was shown
    is discarded, so type-ahead cannot answer a prompt nobody saw. Closed input, no answer within
    ``timeout`` seconds (``None``: wait forever) or three unrecognised answers deny once.
    Concurrent requests are asked in turn.
    """

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        timeout: float | None = 120.0,
    ) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stderr
        self.timeout = timeout
        self._lock = asyncio.Lock()
        self._buffered = b""
        self._thread_read: concurrent.futures.Future[str] | None = None

    async def confirm(self, request: ApprovalRequest) -> Decision:
        if not _is_terminal(self.input):
            self._say(
                f"Approval needed for {_clean(request.tool_name)}, but the input is not a "
                "terminal: denied once."
            )
            return "deny_once"
        async with self._lock:
            self._discard_type_ahead()
            self._say(render_request(request))
            try:
                async with asyncio.timeout(self.timeout):
                    return await self._ask()
            except TimeoutError:
                plural = "" if self.timeout == 1 else "s"
                self._say(f"\nNo answer within {self.timeout:g} second{plural}: denied once.")
                return "deny_once"

    async def _ask(self) -> Decision:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self.output.write(PROMPT)
            self.output.flush()
            line = await self._read_line()
            if line is None:
                self._say("\nInput closed: denied once.")
                return "deny_once"
            decision = _ANSWERS.get(line.strip().lower())
            if decision is not None:
                return decision
            if attempt < MAX_ATTEMPTS:
                self._say("Please answer y, a, n or d.")
        self._say(f"No valid answer after {MAX_ATTEMPTS} tries: denied once.")
        return "deny_once"

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def _discard_type_ahead(self) -> None:
        self._buffered = b""
        if self._thread_read is not None and self._thread_read.done():
            self._thread_read = None
        fd = _fileno(self.input)
        if fd is None:
            return
        try:
            import termios

            termios.tcflush(fd, termios.TCIFLUSH)
        except (ImportError, OSError):
            return

    async def _read_line(self) -> str | None:
        """One line without its newline, or ``None`` at end of input."""
        fd = _fileno(self.input)
        if fd is not None:
            try:
                return await self._read_line_from_fd(fd)
            except _NotSelectable:
                pass
        return await self._read_line_in_thread()

    async def _read_line_from_fd(self, fd: int) -> str | None:
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buffered:
            readable: asyncio.Future[None] = loop.create_future()
            try:
                loop.add_reader(fd, _resolve, readable)
            except (NotImplementedError, OSError, ValueError) as exc:
                raise _NotSelectable from exc
            try:
                await readable
            finally:
                loop.remove_reader(fd)
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                continue
            except OSError:  # EIO: the other side of a pseudo-terminal has gone
                chunk = b""
            if not chunk:
                self._buffered = b""
                return None
            self._buffered += chunk
        line, _, self._buffered = self._buffered.partition(b"\n")
        return line.decode(errors="replace")

    async def _read_line_in_thread(self) -> str | None:
        """Read with a daemon thread; a read still blocked after a timeout is reused later."""
        if self._thread_read is None:
            pending: concurrent.futures.Future[str] = concurrent.futures.Future()
            threading.Thread(target=_readline_into, args=(self.input, pending), daemon=True).start()
            self._thread_read = pending
        line = await asyncio.shield(asyncio.wrap_future(self._thread_read))
        self._thread_read = None
        if not line:
            return None
        return line.removesuffix("\n").removesuffix("\r")


class _NotSelectable(Exception):
    """The input's descriptor cannot be watched by this event loop."""


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _readline_into(stream: TextIO, result: concurrent.futures.Future[str]) -> None:
    try:
        result.set_result(stream.readline())
    except Exception as exc:
        result.set_exception(exc)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (ValueError, OSError):  # closed or detached
        return False


def _fileno(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (io.UnsupportedOperation, AttributeError, ValueError, OSError):
        return None


class ScriptedApprover:
    """Plays back ``decisions`` in order and records every request in :attr:`requests`.

    Once the decisions run out every further request is denied once. ``decisions`` may be any
    iterable, infinite ones included (``itertools.repeat("allow_once")``). A value that is not a
    :data:`Decision` raises ``ValueError`` when it is reached. Product, not a fixture: use it for
    tests, demos and headless runs with a fixed policy.
    """

    def __init__(self, decisions: Iterable[Decision] = ()) -> None:
        self._decisions: Iterator[Decision] = iter(decisions)
        self.requests: list[ApprovalRequest] = []

    async def confirm(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        decision = next(self._decisions, None)
        if decision is None:
            return "deny_once"
        if decision not in DECISIONS:
            raise ValueError(f"ScriptedApprover got {decision!r}, which is not a decision")
        return decision


class DenyAllApprover:
    """Denies every request once; for runs where no person is there to ask."""

    async def confirm(self, request: ApprovalRequest) -> Decision:
        return "deny_once"
