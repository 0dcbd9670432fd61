"""The unified diff and first changed line the edit tool reports with every successful edit.

Both are computed on LF text, so a CRLF file's diff reads like any other; front ends show the diff,
and ``first_changed_line`` lets them (or a follow-up ``read``) jump to the change.

Neither looks at the whole file: the edit knows which regions it replaced, and outside them the old
and new texts are identical. Each region's lines, with ``DIFF_CONTEXT_LINES`` of context on either
side, form a window; windows that touch or overlap merge (as difflib merges hunks separated by at
most twice the context), and difflib compares only the lines of each window. A window is at least
as wide as the hunks difflib would draw around its changes, so when the file's lines are unique the
diff is the one ``difflib.unified_diff`` gives for the whole file, at a cost that grows with the
size of the edits rather than of the file.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["DIFF_CONTEXT_LINES", "ReplacedRegion", "first_changed_line", "unified_diff"]

DIFF_CONTEXT_LINES = 3
_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True, slots=True)
class ReplacedRegion:
    """``old_text[old_start:old_end]`` became ``new_text[new_start:new_end]``.

    Regions are sorted and disjoint, and the texts are identical outside them; a region never
    starts or ends between the ``\\r`` and ``\\n`` of a CRLF of the old text.
    """

    old_start: int
    old_end: int
    new_start: int
    new_end: int


@dataclass(frozen=True, slots=True)
class _Window:
    """Whole lines of both texts around one group of regions, with CRLF folded to LF."""

    old_first_line: int
    """0-based number of the window's first line in the old text."""
    new_first_line: int
    old_text: str
    new_text: str
    at_end: bool
    """The window runs to the end of both texts (otherwise both end with ``\\n``)."""


def unified_diff(old_text: str, new_text: str, regions: Sequence[ReplacedRegion], path: str) -> str:
    """A ``git diff``-style unified diff (``a/path`` → ``b/path``) of the changes in ``regions``,
    with a marker after a last line that has no newline."""
    output: list[str] = []
    for window in _windows(old_text, new_text, regions):
        old_lines = _lines_with_endings(window.old_text)
        new_lines = _lines_with_endings(window.new_text)
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
        for group in matcher.get_grouped_opcodes(DIFF_CONTEXT_LINES):
            first, last = group[0], group[-1]
            old_range = _hunk_range(
                window.old_first_line + first[1], window.old_first_line + last[2]
            )
            new_range = _hunk_range(
                window.new_first_line + first[3], window.new_first_line + last[4]
            )
            output.append(f"@@ -{old_range} +{new_range} @@\n")
            for tag, old_from, old_to, new_from, new_to in group:
                if tag == "equal":
                    output.extend(" " + line for line in old_lines[old_from:old_to])
                    continue
                output.extend("-" + line for line in old_lines[old_from:old_to])
                output.extend("+" + line for line in new_lines[new_from:new_to])
    if not output:
        return ""
    return f"--- a/{path}\n+++ b/{path}\n" + "".join(
        line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}" for line in output
    )


def first_changed_line(old_text: str, new_text: str, regions: Sequence[ReplacedRegion]) -> int:
    """The 1-based number, in the new text, of the first line that differs from the old text.

    When lines were only removed at the end, that is the new text's last line (1 for an empty text);
    when nothing differs, the last line.
    """
    for window in _windows(old_text, new_text, regions):
        if window.old_text == window.new_text:
            continue
        old_lines = window.old_text.split("\n")
        new_lines = window.new_text.split("\n")
        if window.at_end:
            return window.new_first_line + _first_changed_line_of(old_lines, new_lines)
        # Both end with "\n"; the empty piece after it is the start of a line outside the window.
        changed = _first_differing_line(old_lines[:-1], new_lines[:-1])
        if changed is not None:
            return window.new_first_line + changed
        # One window's lines are the other's first lines (repeated lines): the difference lies
        # beyond the window, so compare the whole texts.
        return _first_changed_line_of(_to_lf(old_text).split("\n"), _to_lf(new_text).split("\n"))
    return old_text.count("\n") + 1


def _first_changed_line_of(old_lines: list[str], new_lines: list[str]) -> int:
    """``first_changed_line`` for the lines of two whole texts (or of their ends)."""
    changed = _first_differing_line(old_lines, new_lines)
    if changed is not None:
        return changed
    return min(len(old_lines), len(new_lines)) + (1 if len(new_lines) > len(old_lines) else 0)


def _first_differing_line(old_lines: list[str], new_lines: list[str]) -> int | None:
    """1-based index of the first line that differs where both lists have one."""
    for number, (old_line, new_line) in enumerate(zip(old_lines, new_lines, strict=False), 1):
        if old_line != new_line:
            return number
    return None


def _windows(old_text: str, new_text: str, regions: Sequence[ReplacedRegion]) -> Iterator[_Window]:
    """The windows around ``regions``, in order, their lines numbered by counting ``\\n`` from one
    window to the next (so up to the last window only, once)."""
    counted_to = old_line = line_shift = 0
    for bounds in _window_bounds(old_text, regions):
        old_line += old_text.count("\n", counted_to, bounds.start)
        window = _Window(
            old_line,
            old_line + line_shift,
            _to_lf(old_text[bounds.start : bounds.end]),
            _to_lf(new_text[bounds.start + bounds.start_shift : bounds.end + bounds.end_shift]),
            at_end=bounds.end == len(old_text),
        )
        yield window
        old_newlines = window.old_text.count("\n")
        old_line += old_newlines
        line_shift += window.new_text.count("\n") - old_newlines
        counted_to = bounds.end


@dataclass(slots=True)
class _WindowBounds:
    """A window's whole lines in the old text, and the offset of the new text at either end."""

    start: int
    end: int
    start_shift: int
    end_shift: int


def _window_bounds(old_text: str, regions: Sequence[ReplacedRegion]) -> Iterator[_WindowBounds]:
    """Each region's lines (from the line its start is on to the line its end is on) plus
    ``DIFF_CONTEXT_LINES`` on either side, merged when they touch or overlap.

    A window starts and ends where the texts agree, so there the new text is the old one shifted.
    """
    bounds: _WindowBounds | None = None
    for region in regions:
        start = _line_start(old_text, region.old_start, lines_before=DIFF_CONTEXT_LINES)
        end = _line_end(old_text, region.old_end, lines_after=DIFF_CONTEXT_LINES)
        end_shift = region.new_end - region.old_end
        if bounds is not None and start <= bounds.end:
            bounds.end = max(bounds.end, end)
            bounds.end_shift = end_shift
            continue
        if bounds is not None:
            yield bounds
        bounds = _WindowBounds(start, end, region.new_start - region.old_start, end_shift)
    if bounds is not None:
        yield bounds


def _line_start(text: str, position: int, *, lines_before: int) -> int:
    """Where the line holding ``position`` starts, moved back by up to ``lines_before`` lines."""
    start = text.rfind("\n", 0, position) + 1
    for _ in range(lines_before):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _line_end(text: str, position: int, *, lines_after: int) -> int:
    """Just past the ``\\n`` ending the line that holds ``position`` (a position at a line's
    start is on that line), moved on by up to ``lines_after`` lines; the text's end at the last."""
    end = position
    for _ in range(lines_after + 1):
        newline = text.find("\n", end)
        if newline < 0:
            return len(text)
        end = newline + 1
    return end


def _hunk_range(start: int, stop: int) -> str:
    """A hunk header's ``start,length`` for 0-based lines ``[start, stop)``, as difflib has it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _lines_with_endings(text: str) -> list[str]:
    """Lines split at LF only (``str.splitlines`` also splits at form feeds, U+2028, ...)."""
    lines = text.split("\n")
    with_endings = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        with_endings.append(lines[-1])
    return with_endings
