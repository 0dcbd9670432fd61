"""The unified diff and first changed line the edit tool reports with every successful edit.

Both are computed on LF text, so a CRLF file's diff reads like any other; front ends show the diff,
and ``first_changed_line`` lets them (or a follow-up ``read``) jump to the change.
"""

from __future__ import annotations

import difflib

__all__ = ["DIFF_CONTEXT_LINES", "first_changed_line", "unified_diff"]

DIFF_CONTEXT_LINES = 3
_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old_text: str, new_text: str, path: str) -> str:
    """A ``git diff``-style unified diff (``a/path`` → ``b/path``), with a marker after a last line
    that has no newline."""
    old_lines = _lines_with_endings(old_text)
    new_lines = _lines_with_endings(new_text)
    output: list[str] = []
    for line in difflib.unified_diff(
        old_lines, new_lines, f"a/{path}", f"b/{path}", n=DIFF_CONTEXT_LINES
    ):
        output.append(line)
        if not line.endswith("\n"):
            output.append("\n" + _NO_NEWLINE)
    return "".join(output)


def _lines_with_endings(text: str) -> list[str]:
    """Lines split at LF only (``str.splitlines`` also splits at form feeds, U+2028, ...)."""
    lines = text.replace("\r\n", "\n").split("\n")
    with_endings = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        with_endings.append(lines[-1])
    return with_endings


def first_changed_line(old_text: str, new_text: str) -> int:
    """The 1-based number, in the new text, of the first line that differs from the old text.

    When lines were only removed at the end, that is the new text's last line (1 for an empty text).
    """
    old_lines = old_text.replace("\r\n", "\n").split("\n")
    new_lines = new_text.replace("\r\n", "\n").split("\n")
    for number, (old_line, new_line) in enumerate(zip(old_lines, new_lines, strict=False), 1):
        if old_line != new_line:
            return number
    return min(len(old_lines), len(new_lines)) + (1 if len(new_lines) > len(old_lines) else 0)
