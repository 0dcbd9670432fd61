"""A background task's output on disk, capped: the first and the last bytes are kept.

A task may print for an hour; its log must stay bounded and readable by byte offset into the
stream the task produced. :class:`TaskLog` writes every chunk to one file (created ``0600``).
Once the stream passes ``head_bytes``, the file keeps growing until its tail part holds twice
``tail_bytes``; it is then compacted in place: a one-line marker naming the dropped range goes
after the head, followed by the last ``tail_bytes`` of the stream, and the file is truncated.
So the file never exceeds ``head_bytes + marker + 2 * tail_bytes``, each byte is copied at most
once more than it is written, and whatever is on disk is a readable log even when tether is
killed mid-write.

Offsets are absolute positions in the task's output stream (what ``task_output(since=...)``
takes), not positions in the file; :meth:`read` maps them and says how much of a requested
range the cap dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["DEFAULT_LOG_HEAD_BYTES", "DEFAULT_LOG_TAIL_BYTES", "LogSlice", "TaskLog"]

DEFAULT_LOG_HEAD_BYTES = 4 * 1024 * 1024
DEFAULT_LOG_TAIL_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class LogSlice:
    """Part of the stream as the log still holds it."""

    data: bytes
    """The kept bytes of the requested range, in order (the dropped part left out)."""
    dropped: int
    """How many bytes of the requested range the cap dropped (between head and tail)."""


class TaskLog:
    """Append-only from the task's side, readable by stream offset from the tools' side."""

    def __init__(self, path: str, *, head_bytes: int, tail_bytes: int) -> None:
        if head_bytes < 0 or tail_bytes < 1:
            raise ValueError("a task log keeps head_bytes >= 0 and tail_bytes >= 1")
        self.path = path
        self._head = head_bytes
        self._tail = tail_bytes
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        self.total = 0
        """Bytes the task has produced so far."""
        self._file_size = 0
        self._gap_end = 0
        """Stream offset where the kept tail begins once compacted (0: nothing dropped yet)."""
        self._tail_file_pos = 0
        """File position of stream offset ``_gap_end``."""
        self.write_error: str | None = None

    @property
    def dropped(self) -> int:
        """Bytes dropped between head and tail so far."""
        return self._gap_end - self._head if self._gap_end else 0

    def feed(self, chunk: bytes) -> None:
        """Append ``chunk``; a failing disk is kept as :attr:`write_error`, never raised."""
        self.total += len(chunk)
        if self._fd < 0 or self.write_error is not None:
            return
        try:
            os.pwrite(self._fd, chunk, self._file_size)
            self._file_size += len(chunk)
            if self._file_size - self._tail_start_in_file() > 2 * self._tail:
                self._compact()
        except OSError as error:
            self.write_error = error.strerror or str(error)

    def read(self, start: int, end: int) -> LogSlice:
        """The kept bytes of stream range ``[start, end)`` (clamped to what was produced)."""
        end = min(end, self.total)
        start = max(0, min(start, end))
        if start == end:
            return LogSlice(b"", 0)
        if self._fd >= 0:
            return self._read(self._fd, start, end)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return LogSlice(b"", end - start)
        try:
            return self._read(fd, start, end)
        finally:
            os.close(fd)

    def close(self) -> None:
        """Stop writing (reads go on, opening the file for each)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _read(self, fd: int, start: int, end: int) -> LogSlice:
        pieces: list[bytes] = []
        dropped = 0
        if start < self._head or not self._gap_end:
            head_end = end if not self._gap_end else min(end, self._head)
            pieces.append(os.pread(fd, head_end - start, start))
            start = head_end
        if start < end and start < self._gap_end:
            skip_to = min(end, self._gap_end)
            dropped = skip_to - start
            start = skip_to
        if start < end:
            position = self._tail_file_pos + (start - self._gap_end)
            pieces.append(os.pread(fd, end - start, position))
        return LogSlice(b"".join(pieces), dropped)

    def _tail_start_in_file(self) -> int:
        return self._tail_file_pos if self._gap_end else self._head

    def _compact(self) -> None:
        keep_from = self.total - self._tail
        tail_file_pos = self._tail_start_in_file() + (keep_from - self._stream_at_tail_start())
        kept = os.pread(self._fd, self._tail, tail_file_pos)
        marker = (
            f"\n[tether: bytes {self._head}-{keep_from} of this task's output were dropped; "
            f"the log keeps the first {self._head} and the last {self._tail} bytes]\n"
        ).encode()
        os.pwrite(self._fd, marker + kept, self._head)
        self._gap_end = keep_from
        self._tail_file_pos = self._head + len(marker)
        self._file_size = self._tail_file_pos + len(kept)
        os.ftruncate(self._fd, self._file_size)

    def _stream_at_tail_start(self) -> int:
        return self._gap_end if self._gap_end else self._head
