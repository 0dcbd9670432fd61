"""Where the edit tool's edits land, and the text that results.

Every ``old_text`` is located in the *original* text, never in the result of an earlier edit, so
the outcome does not depend on the order of the edits. An exact match is tried first; when there
is none, a tolerant match compares line by line after :func:`normalize_line` (Unicode NFKC,
trailing whitespace, smart quotes, Unicode dashes and spaces), because models often retype a
file's curly quotes as straight ones or drop a trailing space. A tolerant match replaces only the
characters it covers: the rest of the file, the rest of the touched lines included, stays
byte-identical.

Matching runs on the text with CRLF folded to LF; replacement positions are mapped back to the
original, so every untouched byte (including a mixed file's other line endings) is kept, and the
replacement text is written with the file's own line ending.
"""

from __future__ import annotations

import bisect
import itertools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ._edit_diff import ReplacedRegion

__all__ = ["EditOutcome", "EditProblem", "EditsRejected", "apply_edits", "normalize_line"]

_TOLERANT_CHARACTERS = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a", " "),
        **dict.fromkeys("\u202f\u205f\u3000", " "),
    }
)


def _normalize_characters(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_TOLERANT_CHARACTERS)


def normalize_line(line: str) -> str:
    """One line as the tolerant match compares it: NFKC, ASCII quotes/dashes/spaces, no trailing
    whitespace."""
    if line.isascii():
        return line.rstrip()
    return _normalize_characters(line).rstrip()


@dataclass(frozen=True, slots=True)
class EditProblem:
    """Why one edit cannot be applied; ``index`` is 0-based, ``reason`` has no edit/path prefix."""

    index: int
    reason: str


class EditsRejected(Exception):
    """At least one edit cannot be applied; nothing was changed."""

    def __init__(self, problems: list[EditProblem]) -> None:
        super().__init__("; ".join(f"edit {p.index + 1}: {p.reason}" for p in problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class EditOutcome:
    text: str
    """The new text, in the original's line endings."""
    unchanged: list[bool]
    """Per edit: its replacement equals the text it replaced."""
    regions: list[ReplacedRegion]
    """Where the edits landed, in the original and the new text, in file order."""


@dataclass(frozen=True, slots=True)
class _Replacement:
    index: int
    start: int
    end: int
    text: str


def apply_edits(text: str, edits: Sequence[tuple[str, str]]) -> EditOutcome:
    """Apply ``(old_text, new_text)`` pairs to ``text``, each located in the original ``text``.

    Raises :class:`EditsRejected` listing every edit that is empty, not found or not unique, or
    (once all are located) every pair of edits whose regions overlap.
    """
    source = _LineEndings(text)
    located: list[_Replacement] = []
    problems: list[EditProblem] = []
    tolerant_view: _TolerantView | None = None
    for index, (old_text, new_text) in enumerate(edits):
        if old_text == "":
            problems.append(
                EditProblem(index, "old_text is empty; give the exact text to replace.")
            )
            continue
        old_lf = _to_lf(old_text)
        new_lf = _to_lf(new_text)
        start, count = _locate(source.lf, old_lf)
        if count == 1:
            located.append(_Replacement(index, start, start + len(old_lf), new_lf))
            continue
        if count > 1:
            problems.append(_not_unique(index, count, tolerant=False))
            continue
        if tolerant_view is None:
            tolerant_view = _TolerantView(source.lf)
        replacement, count = tolerant_view.locate(index, old_lf, new_lf)
        if replacement is not None:
            located.append(replacement)
        elif count > 1:
            problems.append(_not_unique(index, count, tolerant=True))
        else:
            problems.append(
                EditProblem(
                    index,
                    "old_text was not found. It must match the file exactly, including "
                    "whitespace and indentation; re-read the file and copy the text from it.",
                )
            )
    if problems:
        raise EditsRejected(problems)
    located.sort(key=lambda r: (r.start, r.end))
    _reject_overlaps(source.lf, located)
    return _assemble(source, located, len(edits))


def _not_unique(index: int, count: int, *, tolerant: bool) -> EditProblem:
    how = (
        " (comparing with quotes, dashes, spaces and trailing whitespace normalised)"
        if tolerant
        else ""
    )
    return EditProblem(
        index,
        f"old_text was found {count} times{how}; it must match exactly one place. "
        "Add surrounding lines to old_text to make it unique.",
    )


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _locate(haystack: str, needle: str) -> tuple[int, int]:
    """First position of ``needle`` and how many times it occurs.

    The count (for the error message) is only taken when there is a second occurrence, so a unique
    match costs one pass over ``haystack``. Occurrences that do not overlap are counted; when they
    all overlap one another, each one counts.
    """
    first = haystack.find(needle)
    if first < 0:
        return -1, 0
    position = haystack.find(needle, first + 1)
    if position < 0:
        return first, 1
    count = haystack.count(needle)
    if count == 1:  # each occurrence overlaps the next: count them one by one
        while position >= 0:
            count += 1
            position = haystack.find(needle, position + 1)
    return first, count


class _LineEndings:
    """The original text with CRLF folded to LF, and the way back to original positions."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.lf = _to_lf(text) if "\r" in text else text
        self.eol = _first_line_ending(text)
        self._folded: list[int] = []
        """LF-text positions of the ``\\n`` of every folded ``\\r\\n``."""
        if len(self.lf) != len(text):
            position = text.find("\r\n")
            while position >= 0:
                self._folded.append(position - len(self._folded))
                position = text.find("\r\n", position + 2)

    def to_original(self, position: int) -> int:
        """An LF-text position in the original; a position at a folded ``\\n`` lands before
        its ``\\r``, so a region never splits a CRLF."""
        return position + bisect.bisect_left(self._folded, position)

    def with_file_endings(self, text_lf: str) -> str:
        return text_lf.replace("\n", self.eol) if self.eol != "\n" else text_lf


def _first_line_ending(text: str) -> str:
    newline = text.find("\n")
    return "\r\n" if newline > 0 and text[newline - 1] == "\r" else "\n"


class _TolerantView:
    """The LF text with every line normalised, and the way back to positions in the LF text."""

    def __init__(self, text_lf: str) -> None:
        self.lines = text_lf.split("\n")
        self.normalized_lines = [normalize_line(line) for line in self.lines]
        self.text = "\n".join(self.normalized_lines)
        self.line_starts: list[int] = []
        self.normalized_starts: list[int] = []
        source_start = normalized_start = 0
        for line, normalized in zip(self.lines, self.normalized_lines, strict=True):
            self.line_starts.append(source_start)
            self.normalized_starts.append(normalized_start)
            source_start += len(line) + 1
            normalized_start += len(normalized) + 1

    def locate(self, index: int, old_lf: str, new_lf: str) -> tuple[_Replacement | None, int]:
        """The replacement for a tolerant match of ``old_lf`` (when unique) and the match count."""
        needle = "\n".join(normalize_line(line) for line in old_lf.split("\n"))
        if needle.strip() == "":
            return None, 0
        start, count = _locate(self.text, needle)
        if count != 1:
            return None, count
        first_line, first_column = self._line_and_column(start)
        last_line, last_column = self._line_and_column(start + len(needle))
        region_start, prefix = self._source_position(first_line, first_column, at_end=False)
        region_end, suffix = self._source_position(last_line, last_column, at_end=True)
        return _Replacement(index, region_start, region_end, prefix + new_lf + suffix), 1

    def _line_and_column(self, position: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.normalized_starts, position) - 1
        return line, position - self.normalized_starts[line]

    def _source_position(self, line: int, column: int, *, at_end: bool) -> tuple[int, str]:
        """Where a normalised ``(line, column)`` lies in the LF text, and the text to keep.

        A column at the end of the normalised line is the end of the source line (its trailing
        whitespace belongs to the match). A column inside a character whose normalisation is
        several characters (``ﬁ`` → ``fi``) has no source position: the region then widens to
        the whole line, and the normalised remainder of the line is returned to be kept.
        """
        source = self.lines[line]
        normalized = self.normalized_lines[line]
        line_start = self.line_starts[line]
        if column == 0:
            return line_start, ""
        if column >= len(normalized):
            return line_start + len(source), ""
        if source.isascii():
            return line_start + column, ""
        offsets = _character_offsets(source, normalized)
        if offsets is not None and column in offsets:
            return line_start + offsets[column], ""
        if at_end:
            return line_start + len(source), normalized[column:]
        return line_start, normalized[:column]


def _character_offsets(source: str, normalized: str) -> dict[int, int] | None:
    """Normalised-line column → source-line column, at every character boundary.

    A character and the combining marks after it are normalised together; ``None`` when that
    piecewise normalisation does not reproduce the whole line's (a rare composition across
    characters), so no column can be trusted.
    """
    offsets = {0: 0}
    pieces: list[str] = []
    length = 0
    start = 0
    for end in range(1, len(source) + 1):
        if end < len(source) and unicodedata.combining(source[end]):
            continue
        piece = _normalize_characters(source[start:end])
        pieces.append(piece)
        length += len(piece)
        offsets.setdefault(length, end)
        start = end
    if "".join(pieces).rstrip() != normalized:
        return None
    return offsets


def _reject_overlaps(text_lf: str, located: list[_Replacement]) -> None:
    problems: list[EditProblem] = []
    for earlier, later in itertools.pairwise(located):
        if earlier.end > later.start:
            first, second = sorted((earlier, later), key=lambda r: r.index)
            lines = _line_span(text_lf, max(earlier.start, later.start), earlier.end)
            problems.append(
                EditProblem(
                    second.index,
                    f"its old_text overlaps that of edit {first.index + 1} ({lines}). "
                    "Merge the two into one edit, or make their old_text regions disjoint.",
                )
            )
    if problems:
        raise EditsRejected(problems)


def _line_span(text_lf: str, start: int, end: int) -> str:
    first = text_lf.count("\n", 0, start) + 1
    last = first + text_lf.count("\n", start, max(start, end - 1))
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _assemble(source: _LineEndings, located: list[_Replacement], edit_count: int) -> EditOutcome:
    """The new text, joined once from the untouched stretches and the replacements."""
    unchanged = [False] * edit_count
    regions: list[ReplacedRegion] = []
    parts: list[str] = []
    cursor = new_length = 0
    for replacement in located:
        start = source.to_original(replacement.start)
        end = source.to_original(replacement.end)
        new_text = source.with_file_endings(replacement.text)
        unchanged[replacement.index] = new_text == source.original[start:end]
        new_start = new_length + start - cursor
        new_length = new_start + len(new_text)
        regions.append(ReplacedRegion(start, end, new_start, new_length))
        parts.append(source.original[cursor:start])
        parts.append(new_text)
        cursor = end
    parts.append(source.original[cursor:])
    return EditOutcome("".join(parts), unchanged, regions)
