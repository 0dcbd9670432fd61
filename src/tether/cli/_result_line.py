"""The one line a person is shown for a tool result that has no renderer of its own.

A foreign tool's output reaches the model fenced as untrusted data and labelled with its
server; the line a person reads is the first line of the output itself, never a fence marker.
"""

from __future__ import annotations

from tether.gate import sanitize_for_display
from tether.mcp import result_body

__all__ = ["first_result_line"]


def first_result_line(text: str, *, limit: int, empty: str = "done") -> str:
    """The first non-blank line of the output in ``text``, cut to ``limit`` characters and
    safe to print; ``empty`` when there is none."""
    for line in result_body(text).split("\n"):
        if line.strip():
            return sanitize_for_display(line.strip()[:limit])
    return empty
