"""The edit tool's diff and first changed line, computed from the replaced regions alone, against
difflib run over the whole file (and the first changed line found by comparing every line)."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tether.tools._edit_diff import first_changed_line, unified_diff
from tether.tools._edit_matching import apply_edits

NO_NEWLINE = "\\ No newline at end of file\n"
HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def lf_lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def whole_file_diff(old_text: str, new_text: str, path: str) -> str:
    """difflib over every line of both texts, with the no-newline marker."""
    output: list[str] = []
    for line in difflib.unified_diff(
        lf_lines(old_text), lf_lines(new_text), f"a/{path}", f"b/{path}", n=3
    ):
        output.append(line if line.endswith("\n") else f"{line}\n{NO_NEWLINE}")
    return "".join(output)


def first_changed_line_by_comparing_every_line(old_text: str, new_text: str) -> int:
    old_lines = old_text.replace("\r\n", "\n").split("\n")
    new_lines = new_text.replace("\r\n", "\n").split("\n")
    for number, (old_line, new_line) in enumerate(zip(old_lines, new_lines, strict=False), 1):
        if old_line != new_line:
            return number
    return min(len(old_lines), len(new_lines)) + (1 if len(new_lines) > len(old_lines) else 0)


def patch(old_text: str, diff: str) -> str:
    """Apply a unified diff to the LF lines of ``old_text``, checking every hunk as it goes."""
    old_lines = lf_lines(old_text)
    if not diff:
        return "".join(old_lines)
    lines = [line + "\n" for line in diff.split("\n")[:-1]]
    assert lines[0].startswith("--- a/")
    assert lines[1].startswith("+++ b/")
    output: list[str] = []
    cursor = 0
    index = 2
    while index < len(lines):
        header = HUNK_HEADER.fullmatch(lines[index])
        assert header is not None, lines[index]
        old_start, old_count = int(header[1]), int(header[2] or 1)
        new_count = int(header[4] or 1)
        first = old_start - 1 if old_count else old_start
        assert first >= cursor, "hunks out of order"
        output += old_lines[cursor:first]
        cursor = first
        index += 1
        seen_old = seen_new = 0
        while index < len(lines) and not lines[index].startswith("@@"):
            line = lines[index]
            index += 1
            if index < len(lines) and lines[index] == NO_NEWLINE:
                line = line[:-1]
                index += 1
            kind, body = line[0], line[1:]
            if kind in " -":
                assert old_lines[cursor] == body
                cursor += 1
                seen_old += 1
            if kind in " +":
                output.append(body)
                seen_new += 1
        assert (seen_old, seen_new) == (old_count, new_count)
    return "".join(output + old_lines[cursor:])


# --- random files and edits -----------------------------------------------------------------------


@st.composite
def edited_files(draw: st.DrawFn, *, unique_lines: bool) -> tuple[str, list[tuple[str, str]]]:
    """A file (LF or CRLF, with or without a final newline) and disjoint edits of it, each
    ``old_text`` occurring once. With ``unique_lines`` every line differs from every other and no
    new line repeats an old one; otherwise lines come from a tiny alphabet and repeat a lot."""
    line_count = draw(st.integers(0, 80))
    if unique_lines:
        words = draw(st.lists(st.text("abcxyz", max_size=4), min_size=line_count))
        lines = [f"{n:03d} {word} {n:03d}" for n, word in enumerate(words[:line_count])]
    else:
        kinds = draw(st.lists(st.sampled_from(["a", "b", "", "a b", "#"]), min_size=line_count))
        lines = [f"#{n}" if kind == "#" else kind for n, kind in enumerate(kinds[:line_count])]
    final_newline = draw(st.booleans())
    text_lf = "\n".join(lines) + ("\n" if final_newline and lines else "")
    if not text_lf:
        text_lf = "only"
    starts = sorted(set(draw(st.lists(st.integers(0, len(text_lf) - 1), min_size=1, max_size=8))))
    edits: list[tuple[str, str]] = []
    fresh = 0
    for start, limit in zip(starts, [*starts[1:], len(text_lf)], strict=True):
        old_text = text_lf[start : min(limit, start + draw(st.integers(1, 40)))]
        first = text_lf.find(old_text)
        if text_lf.find(old_text, first + 1) >= 0:
            continue
        pieces = draw(st.lists(st.sampled_from(["word", "\n"]), max_size=5))
        new_text = ""
        for piece in pieces:
            if piece == "word":
                fresh += 1
                word = f"+{fresh}+" if unique_lines else draw(st.sampled_from(["a", "b", "c"]))
                new_text += word
            else:
                new_text += piece
        edits.append((old_text, new_text))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return text_lf.replace("\n", eol), edits


def check_diff_of(text: str, edits: list[tuple[str, str]]) -> tuple[str, str, str]:
    """The file, its edited text and the diff from the regions; the first changed line checked."""
    outcome = apply_edits(text, edits)
    diff = unified_diff(text, outcome.text, outcome.regions, "dir/f.txt")
    assert first_changed_line(
        text, outcome.text, outcome.regions
    ) == first_changed_line_by_comparing_every_line(text, outcome.text)
    return text, outcome.text, diff


@settings(max_examples=400)
@given(edited_files(unique_lines=True))
def test_diff_of_a_file_of_unique_lines_is_difflibs_diff_of_the_whole_file(
    case: tuple[str, list[tuple[str, str]]],
) -> None:
    old_text, new_text, diff = check_diff_of(*case)
    assert diff == whole_file_diff(old_text, new_text, "dir/f.txt")


@settings(max_examples=400)
@given(edited_files(unique_lines=False))
def test_diff_of_a_file_of_repeated_lines_turns_the_old_text_into_the_new(
    case: tuple[str, list[tuple[str, str]]],
) -> None:
    old_text, new_text, diff = check_diff_of(*case)
    assert patch(old_text, diff) == "".join(lf_lines(new_text))


# --- cases named one by one -----------------------------------------------------------------------


def numbered(count: int, eol: str = "\n") -> str:
    return "".join(f"line {n}{eol}" for n in range(1, count + 1))


def test_edits_six_lines_apart_share_a_hunk_and_seven_lines_apart_do_not() -> None:
    text = numbered(30)
    for gap, hunks in ((6, 1), (7, 2)):
        edits = [("line 5\n", "FIVE\n"), (f"line {5 + gap + 1}\n", "LATER\n")]
        old_text, new_text, diff = check_diff_of(text, edits)
        assert diff == whole_file_diff(old_text, new_text, "dir/f.txt")
        assert diff.count("@@ -") == hunks


def test_edits_at_both_ends_of_a_file_without_a_final_newline() -> None:
    text = numbered(20).rstrip("\n")
    old_text, new_text, diff = check_diff_of(text, [("line 1\n", ""), ("line 20", "last")])
    assert diff == whole_file_diff(old_text, new_text, "dir/f.txt")
    assert diff.endswith(f"-line 20\n{NO_NEWLINE}+last\n{NO_NEWLINE}")


def test_a_crlf_file_diffs_like_its_lf_twin() -> None:
    _, _, crlf_diff = check_diff_of(numbered(12, "\r\n"), [("line 6\nline 7", "six")])
    _, _, lf_diff = check_diff_of(numbered(12), [("line 6\nline 7", "six")])
    assert crlf_diff == lf_diff
    assert "\r" not in crlf_diff


def test_an_edit_whose_carriage_return_meets_the_files_newline() -> None:
    text = "a\nb\nc\n"
    old_text, new_text, diff = check_diff_of(text, [("b", "B\r")])
    assert new_text == "a\nB\r\nc\n"
    assert diff == whole_file_diff(old_text, new_text, "dir/f.txt")


def test_an_edit_that_restores_its_text_leaves_no_hunk() -> None:
    text = numbered(40)
    edits = [("line 3\n", "line 3\n"), ("line 30\n", "x\n")]
    old_text, new_text, diff = check_diff_of(text, edits)
    assert diff == whole_file_diff(old_text, new_text, "dir/f.txt")
    assert diff.count("@@ -") == 1
    assert first_changed_line_by_comparing_every_line(old_text, new_text) == 30


def test_first_changed_line_when_repeated_lines_hide_the_change_beyond_the_window() -> None:
    text = "a\n" + "x\n" * 30
    outcome = apply_edits(text, [("a\n", "a\nx\n")])
    assert first_changed_line(text, outcome.text, outcome.regions) == 32
    assert first_changed_line_by_comparing_every_line(text, outcome.text) == 32
