"""Output caps for what a tool sends to a model: at most ``max_lines`` lines and ``max_bytes``
UTF-8 bytes. ``truncate_head`` keeps the beginning (file contents), ``truncate_tail`` the end
(command output, where the last lines matter most). Both cut at line boundaries; only the tail
cut may keep part of a single overlong last line. The result says what was cut so the tool can
tell the model how to get the rest.

The pipeline caps every tool result with these (see :mod:`._result_cap`); the product's tools
cut their own output with them too, each with a notice saying how to get the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_tail",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024


@dataclass(frozen=True, slots=True)
class TruncationResult:
    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    last_line_partial: bool = False
    """Tail cut only: the last line alone exceeded ``max_bytes`` and was cut from the left."""
    first_line_exceeds_limit: bool = False
    """Head cut only: the first line alone exceeds ``max_bytes``, so nothing could be kept."""


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def truncate_head(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start while both caps hold.

    Works on the UTF-8 bytes with ``find``/``rfind`` (no per-line Python work): the cut always
    falls on a newline, so the kept prefix decodes cleanly.
    """
    data = text.encode("utf-8")
    total_bytes = len(data)
    newlines = data.count(b"\n")
    total_lines = (newlines + (0 if data.endswith(b"\n") else 1)) if data else 0
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return TruncationResult(
            text, False, None, total_lines, total_bytes, total_lines, total_bytes, max_lines,
            max_bytes,
        )  # fmt: skip
    first_end = data.find(b"\n")
    if (first_end if first_end >= 0 else total_bytes) > max_bytes:
        return TruncationResult(
            "", True, "bytes", total_lines, total_bytes, 0, 0, max_lines, max_bytes,
            first_line_exceeds_limit=True,
        )  # fmt: skip
    lines_end = _end_of_line(data, max_lines) if total_lines > max_lines else total_bytes
    truncated_by: Literal["lines", "bytes"] = "lines"
    end = lines_end
    if lines_end > max_bytes:
        truncated_by = "bytes"
        end = data.rfind(b"\n", 0, max_bytes + 1)
    kept = data[:end]
    content = kept.decode("utf-8")
    output_lines = kept.count(b"\n") + 1
    if output_lines >= total_lines and end >= total_bytes - 1:
        return TruncationResult(
            content, False, None, total_lines, total_bytes, output_lines, len(kept), max_lines,
            max_bytes,
        )  # fmt: skip
    return TruncationResult(
        content, True, truncated_by, total_lines, total_bytes, output_lines, len(kept), max_lines,
        max_bytes,
    )  # fmt: skip


def _end_of_line(data: bytes, count: int) -> int:
    """Index of the newline that ends line ``count`` (1-based)."""
    position = -1
    for _ in range(count):
        position = data.find(b"\n", position + 1)
    return position


def truncate_tail(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end while both caps hold (a lone overlong line keeps its end)."""
    total_bytes = len(text.encode("utf-8"))
    lines = _split(text)
    total_lines = len(lines) if text else 0
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return TruncationResult(
            text,
            False,
            None,
            total_lines,
            total_bytes,
            total_lines,
            total_bytes,
            max_lines,
            max_bytes,
        )
    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            truncated_by = "lines"
            break
        encoded = line.encode("utf-8")
        size = len(encoded) + (1 if kept else 0)
        if used + size > max_bytes:
            truncated_by = "bytes"
            if not kept and max_bytes > 0:
                tail = encoded[-max_bytes:].decode("utf-8", errors="ignore")
                kept.append(tail)
                partial = True
            break
        kept.append(line)
        used += size
    else:
        kept.reverse()
        return _only_final_newline_dropped(kept, total_lines, total_bytes, max_lines, max_bytes)
    kept.reverse()
    content = "\n".join(kept)
    return TruncationResult(
        content,
        True,
        truncated_by,
        total_lines,
        total_bytes,
        len(kept),
        len(content.encode("utf-8")),
        max_lines,
        max_bytes,
        last_line_partial=partial,
    )


def _only_final_newline_dropped(
    kept: list[str], total_lines: int, total_bytes: int, max_lines: int, max_bytes: int
) -> TruncationResult:
    """Every line fits; only the text's final newline pushed it over the byte cap."""
    content = "\n".join(kept)
    size = len(content.encode("utf-8"))
    return TruncationResult(
        content, False, None, total_lines, total_bytes, len(kept), size, max_lines, max_bytes
    )


def format_size(size: int) -> str:
    """``512B``, ``12.3KB``, ``4.0MB``."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"
