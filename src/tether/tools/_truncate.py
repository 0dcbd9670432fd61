"""Truncation as the product's tools use it: the caps and cuts of :mod:`tether.agent` (which
caps every tool result with them too), and grep's cap on the length of one matching line.
"""

from __future__ import annotations

from tether.agent import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_tail,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_CHARS",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]

GREP_MAX_LINE_CHARS = 500


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_CHARS) -> tuple[str, bool]:
    """Cap one line at ``max_chars`` characters; returns the text and whether it was cut."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
