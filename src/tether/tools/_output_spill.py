"""Command output in bounded memory: a rolling tail for the model, the full output in a file.

A command may print gigabytes; the model sees at most the last 2000 lines / 50 KiB, cut exactly as
:func:`truncate_tail` would cut the whole output. :class:`SpillingOutput` keeps everything in
memory only while the output is within those caps. The moment it exceeds them, everything
received so far is written to a file that the bash operations make (``tether-bash-*.log`` in the
temp directory of the machine the command runs on) and every later chunk is appended, while
memory keeps only a tail just long enough to reproduce the cut — so the file always holds the
full output from its first byte, and memory stays bounded however much arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_tail,
)
from .operations._protocols import OutputFile

__all__ = ["OutputView", "SpillingOutput"]

_TAIL_MARGIN_BYTES = 4096
"""Bytes kept beyond ``max_bytes``: the newline before the first shown line must still be in
memory (to know that line is whole), and decoding must be settled before the shown part starts."""


@dataclass(frozen=True, slots=True)
class OutputView:
    """What the model may see of the output so far."""

    text: str
    """The output, cut to the caps from the end (invalid UTF-8 replaced)."""
    notice: str | None
    """Says what was cut and where the full output is; ``None`` when nothing was cut."""
    full_output_path: str | None
    total_lines: int
    total_bytes: int

    @property
    def truncated(self) -> bool:
        return self.notice is not None


class SpillingOutput:
    """Collects a command's output chunk by chunk; :meth:`view` renders the model's part of it.

    Call :meth:`close` when the command is done (the spill file is closed; views still work).
    ``create_file(prefix)`` makes the spill file (:meth:`BashOperations.create_output_file`).
    A spill file that cannot be made or written is reported in the notice instead of failing the
    command.
    """

    def __init__(
        self,
        create_file: Callable[[str], OutputFile],
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        file_prefix: str = "tether-bash-",
    ) -> None:
        self._create_file = create_file
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._file_prefix = file_prefix
        self._keep = max_bytes + _TAIL_MARGIN_BYTES
        self._tail = bytearray()
        self._total_bytes = 0
        self._newlines = 0
        self._spilling = False
        self._file: OutputFile | None = None
        self._path: str | None = None
        self._spill_error: str | None = None
        self._closed = False

    @property
    def total_bytes(self) -> int:
        return self._total_bytes

    @property
    def total_lines(self) -> int:
        """Lines as :func:`truncate_tail` counts them (a final newline does not start a line)."""
        if not self._tail:
            return 0
        return self._newlines + (0 if self._tail[-1] == 0x0A else 1)

    def feed(self, chunk: bytes) -> None:
        self._tail += chunk
        self._total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        if self._spilling:
            self._write(chunk)
            if len(self._tail) > 2 * self._keep:
                del self._tail[: -self._keep]
        elif self._total_bytes > self._max_bytes or self.total_lines > self._max_lines:
            self._spill()

    def view(self) -> OutputView:
        raw = bytes(self._tail)
        trimmed = len(raw) < self._total_bytes
        if trimmed:
            newline = raw.find(b"\n")
            if 0 <= newline < len(raw) - 1:
                raw = raw[newline + 1 :]  # the first line in memory is only the end of a line
        cut = truncate_tail(raw.decode("utf-8", errors="replace"), self._max_lines, self._max_bytes)
        content = cut.content
        if trimmed and not cut.truncated and content.endswith("\n"):
            content = content[:-1]  # like truncate_tail on the whole output: a cut drops it
        notice = None
        if trimmed or cut.truncated:
            if not self._spilling:
                self._spill()  # the caps were hit only once invalid bytes were replaced
                if self._closed:
                    self.close()
            notice = self._notice(cut)
        return OutputView(content, notice, self._path, self.total_lines, self._total_bytes)

    def close(self) -> None:
        self._closed = True
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except Exception as error:  # the output it holds may be incomplete: say so
                self._spill_error = str(error) or type(error).__name__
                self._path = None

    def _notice(self, cut: TruncationResult) -> str:
        if self._path is not None:
            where = f"Full output: {self._path}"
        else:
            where = f"The full output could not be saved: {self._spill_error}"
        if cut.last_line_partial:
            return (
                f"[Showing the last {format_size(cut.output_bytes)} of line {self.total_lines}, "
                f"which is longer than {format_size(self._max_bytes)}. {where}]"
            )
        return (
            f"[Showing last {cut.output_lines} lines of {self.total_lines} "
            f"({format_size(self._total_bytes)}). {where}]"
        )

    def _spill(self) -> None:
        """Start the spill file with everything so far (nothing has been trimmed yet)."""
        self._spilling = True
        try:
            self._file = self._create_file(self._file_prefix)
        except Exception as error:  # a backend's failure must not fail the command
            self._spill_error = str(error) or type(error).__name__
            return
        self._path = self._file.path
        self._write(bytes(self._tail))

    def _write(self, data: bytes) -> None:
        if self._file is None:
            return
        try:
            self._file.write(data)
        except Exception as error:  # a backend's failure must not fail the command
            self._spill_error = str(error) or type(error).__name__
            self._path = None
            self.close()
