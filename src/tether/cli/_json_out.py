"""``--mode json``'s stdout, written by a thread of its own.

A consumer that stops reading fills the pipe (64 KiB on Linux); a write from the event loop
would then block it — the run, its tools' timeouts and Ctrl-C with it. Here the loop only
queues each line; a daemon thread writes them to the file descriptor with ``os.write`` (not
through ``sys.stdout``, whose lock a thread blocked at exit would hold). The run goes on while
the consumer is slow, its lines kept in order in memory; at the end the run waits for them to be
written, and Ctrl-C still ends that wait. A reader that leaves (``tether … | head``) is a broken
pipe: the lines after it are dropped, and the command then ends as on any broken pipe.
"""

from __future__ import annotations

import asyncio
import collections
import os
import threading
from typing import TextIO

__all__ = ["JsonLines"]

_DRAIN_POLL_SECONDS = 0.01


class JsonLines:
    """Writes whole lines to ``stream`` in order, without ever blocking the caller."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            self._fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):  # an in-memory stream: written directly
            self._fd = None
        stream.flush()
        self._lines: collections.deque[bytes] = collections.deque()
        self._unwritten = 0
        self._ready = threading.Condition()
        self.broken = False
        """The reader left (a broken pipe): what came after was dropped."""
        if self._fd is not None:
            threading.Thread(target=self._write_out, name="tether-json-out", daemon=True).start()

    def write(self, line: str) -> None:
        if self._fd is None:
            self._stream.write(line)
            self._stream.flush()
            return
        if self.broken:
            return
        with self._ready:
            self._lines.append(line.encode("utf-8"))
            self._unwritten += 1
            self._ready.notify()

    async def drained(self) -> None:
        """Until every line queued so far is written (or the reader has left)."""
        while self._unwritten and not self.broken:
            await asyncio.sleep(_DRAIN_POLL_SECONDS)

    def _write_out(self) -> None:
        assert self._fd is not None
        while True:
            with self._ready:
                while not self._lines:
                    self._ready.wait()
                count = len(self._lines)
                data = memoryview(b"".join(self._lines))
                self._lines.clear()
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
            except OSError:  # EPIPE: the reader left; nothing more can be delivered
                self.broken = True
                return
            with self._ready:
                self._unwritten -= count
