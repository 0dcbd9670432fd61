"""The interactive session on a dumb terminal (``TERM=dumb``): plain lines, no escape codes.

Lines are read by a thread; a line typed while the agent works is queued as steering, and while
an approval is asked the first line typed after the request was printed answers it (``y``, ``a``,
``n`` or ``d``; anything else denies once) — lines typed before it are dropped, so type-ahead
never answers. Finished text is printed line by line as it settles. Ctrl-C aborts the running
turn, and twice on an idle session quits, as does Ctrl-D (the end of input).
"""

from __future__ import annotations

import asyncio
import shutil
import signal
import sys
import threading
import time
from typing import Protocol

from tether.gate import Decision

from ._terminal_approver import ANSWER_HINT, ANSWER_KEYS

__all__ = ["PlainScreen"]

_QUIT_WINDOW_SECONDS = 2.0


class _Session(Protocol):
    def submit(self, text: str, kind: str) -> None: ...
    def interrupt(self) -> bool: ...
    def is_running(self) -> bool: ...
    def quit(self) -> None: ...

    @property
    def transcript(self) -> _Ticking: ...


class _Ticking(Protocol):
    def tick(self) -> None: ...


class PlainScreen:
    def __init__(self, session: _Session) -> None:
        self.session = session
        self._asking: tuple[asyncio.Future[Decision], float] | None = None
        self._done = asyncio.Event()
        self._ctrl_c_at = -1e9

    def width(self) -> int:
        return shutil.get_terminal_size().columns

    def write(self, lines: list[str]) -> None:
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

    def invalidate(self) -> None:
        return None

    def put_back(self, text: str) -> None:
        self.write([f"(not sent: {line})" for line in text.split("\n")])

    async def ask(self, lines: list[str]) -> Decision:
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.write([*lines, f"  {ANSWER_HINT}"])
        self._asking = (answer, time.monotonic())
        try:
            return await answer
        finally:
            self._asking = None

    def cancel_asking(self) -> None:
        if self._asking is not None and not self._asking[0].done():
            self._asking[0].set_result("deny_once")

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self._ctrl_c)

        def read() -> None:
            for line in sys.stdin:
                loop.call_soon_threadsafe(self._line, line.rstrip("\n"), time.monotonic())
            loop.call_soon_threadsafe(self._done.set)

        threading.Thread(target=read, name="tether-plain-input", daemon=True).start()
        while not self._done.is_set():
            try:
                await asyncio.wait_for(self._done.wait(), 0.1)
            except TimeoutError:
                self.session.transcript.tick()
        loop.remove_signal_handler(signal.SIGINT)

    def _ctrl_c(self) -> None:
        """Ctrl-C aborts the running turn; on an idle session, twice within 2 s quits."""
        if self.session.interrupt():
            return
        now = time.monotonic()
        if now - self._ctrl_c_at < _QUIT_WINDOW_SECONDS:
            self.session.quit()
            return
        self._ctrl_c_at = now
        self.write(["Press Ctrl-C again to quit (or Ctrl-D)."])

    def exit(self) -> None:
        self._done.set()

    def _line(self, line: str, read_at: float) -> None:
        asking = self._asking
        if asking is not None:
            answer, shown_at = asking
            if read_at >= shown_at and not answer.done():
                answer.set_result(ANSWER_KEYS.get(line.strip().lower()[:1], "deny_once"))
            return
        if line.strip():
            self.session.submit(line, "send")
