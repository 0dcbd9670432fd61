"""Output caps: ``truncate_head`` keeps whole lines from the start,
``truncate_tail`` whole lines from the end (or the end of one overlong last line), both within a
line cap and a UTF-8 byte cap, and the result says what was cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.tools import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)

TRUNCATORS = pytest.mark.parametrize("truncate", [truncate_head, truncate_tail])


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def test_defaults_are_2000_lines_and_50_kib() -> None:
    assert DEFAULT_MAX_LINES == 2000
    assert DEFAULT_MAX_BYTES == 50 * 1024 == 51200
    result = truncate_head("x")
    assert (result.max_lines, result.max_bytes) == (2000, 51200)
    result = truncate_tail("x")
    assert (result.max_lines, result.max_bytes) == (2000, 51200)


# --- no truncation ------------------------------------------------------------------------------


@TRUNCATORS
def test_no_truncation_keeps_text_and_reports_totals(truncate) -> None:
    text = "one\ntwo\nthrée\n"

    result = truncate(text, max_lines=3, max_bytes=utf8_len(text))

    assert isinstance(result, TruncationResult)
    assert result.content == text
    assert result.truncated is False
    assert result.truncated_by is None
    assert result.total_lines == 3
    assert result.output_lines == 3
    assert result.total_bytes == result.output_bytes == utf8_len(text) == 15
    assert (result.max_lines, result.max_bytes) == (3, 15)
    assert result.last_line_partial is False
    assert result.first_line_exceeds_limit is False


@TRUNCATORS
def test_empty_text(truncate) -> None:
    result = truncate("", max_lines=5, max_bytes=10)

    assert result.content == ""
    assert result.truncated is False
    assert result.truncated_by is None
    assert result.total_lines == result.output_lines == 0
    assert result.total_bytes == result.output_bytes == 0


@TRUNCATORS
def test_trailing_newline_does_not_count_as_a_line(truncate) -> None:
    with_newline = truncate("a\nb\n", max_lines=2)
    without = truncate("a\nb", max_lines=2)

    assert with_newline.total_lines == without.total_lines == 2
    assert with_newline.truncated is without.truncated is False
    assert with_newline.content == "a\nb\n"
    # a blank last line before the final newline is a real line
    assert truncate("a\n\n", max_lines=5).total_lines == 2


@TRUNCATORS
def test_exactly_at_both_caps_is_not_truncated(truncate) -> None:
    text = "\n".join(["abcd"] * 4)  # 4 lines, 19 bytes

    result = truncate(text, max_lines=4, max_bytes=19)

    assert result.truncated is False
    assert result.content == text


# --- truncate_head ------------------------------------------------------------------------------


def test_head_line_cap_keeps_first_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 11)) + "\n"

    result = truncate_head(text, max_lines=3)

    assert result.content == "line 1\nline 2\nline 3"
    assert result.truncated is True
    assert result.truncated_by == "lines"
    assert result.total_lines == 10
    assert result.output_lines == 3
    assert result.output_bytes == utf8_len(result.content)
    assert result.total_bytes == utf8_len(text)
    assert result.first_line_exceeds_limit is False
    assert result.last_line_partial is False


def test_head_byte_cap_counts_utf8_bytes() -> None:
    # each line is 4 characters but 8 bytes; 5 lines = 20 characters, 44 bytes
    text = "\n".join(["éééé"] * 5)
    assert len(text) < 30 < utf8_len(text)

    result = truncate_head(text, max_lines=100, max_bytes=30)

    assert result.truncated is True
    assert result.truncated_by == "bytes"
    assert result.content == "éééé\néééé\néééé"  # 26 bytes; a fourth line would need 35
    assert result.output_lines == 3
    assert result.output_bytes == 26
    assert result.total_bytes == 44
    assert result.total_lines == 5


def test_head_cuts_at_line_boundaries_only() -> None:
    text = "short\n" + "a much longer second line\n" + "third\n"

    result = truncate_head(text, max_bytes=12)

    assert result.content == "short"
    assert result.truncated_by == "bytes"
    assert result.output_lines == 1


def test_head_line_cap_hit_before_byte_cap() -> None:
    text = "\n".join("x" * 10 for _ in range(50))

    result = truncate_head(text, max_lines=5, max_bytes=1000)

    assert result.truncated_by == "lines"
    assert result.output_lines == 5


def test_head_byte_cap_hit_before_line_cap() -> None:
    text = "\n".join("x" * 10 for _ in range(50))

    result = truncate_head(text, max_lines=40, max_bytes=100)

    assert result.truncated_by == "bytes"
    assert result.output_lines == 9  # 9 * 10 + 8 newlines = 98 bytes
    assert result.output_bytes == 98


def test_head_first_line_exceeds_limit() -> None:
    text = "y" * 200 + "\nsecond\n"

    result = truncate_head(text, max_bytes=100)

    assert result.first_line_exceeds_limit is True
    assert result.truncated is True
    assert result.truncated_by == "bytes"
    assert result.content == ""
    assert result.output_lines == 0
    assert result.output_bytes == 0
    assert result.total_lines == 2
    assert result.last_line_partial is False


def test_head_first_line_exceeds_limit_in_bytes_not_characters() -> None:
    text = "€" * 40  # 40 characters, 120 bytes

    result = truncate_head(text, max_bytes=100)

    assert result.first_line_exceeds_limit is True
    assert result.content == ""


# --- truncate_tail ------------------------------------------------------------------------------


def test_tail_line_cap_keeps_last_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 11))

    result = truncate_tail(text, max_lines=3)

    assert result.content == "line 8\nline 9\nline 10"
    assert result.truncated is True
    assert result.truncated_by == "lines"
    assert result.total_lines == 10
    assert result.output_lines == 3
    assert result.output_bytes == utf8_len(result.content)
    assert result.last_line_partial is False
    assert result.first_line_exceeds_limit is False


def test_tail_with_trailing_newline_keeps_last_real_lines() -> None:
    result = truncate_tail("a\nb\nc\n", max_lines=2)

    assert result.content.rstrip("\n") == "b\nc"
    assert result.total_lines == 3
    assert result.output_lines == 2


def test_tail_byte_cap_counts_utf8_bytes() -> None:
    text = "\n".join(["日本語"] * 5)  # 9 bytes a line, 49 bytes in all

    result = truncate_tail(text, max_bytes=20)

    assert result.truncated_by == "bytes"
    assert result.content == "日本語\n日本語"  # 19 bytes
    assert result.output_bytes == 19
    assert result.output_lines == 2
    assert result.total_bytes == 49
    assert result.last_line_partial is False


def test_tail_single_huge_line_keeps_its_end() -> None:
    text = "".join(str(i % 10) for i in range(1000))

    result = truncate_tail(text, max_bytes=100)

    assert result.last_line_partial is True
    assert result.truncated is True
    assert result.truncated_by == "bytes"
    assert result.content == text[-100:]
    assert result.output_lines == 1
    assert result.output_bytes == 100
    assert result.total_lines == 1


def test_tail_huge_last_line_after_short_lines() -> None:
    text = "first\nsecond\n" + "z" * 500

    result = truncate_tail(text, max_bytes=50)

    assert result.last_line_partial is True
    assert result.content == "z" * 50
    assert result.output_lines == 1
    assert result.total_lines == 3


@pytest.mark.parametrize(("char", "max_bytes"), [("é", 9), ("€", 10), ("😀", 11), ("€", 9)])
def test_tail_partial_line_is_valid_utf8_after_cutting_inside_a_character(
    char: str, max_bytes: int
) -> None:
    text = char * 100

    result = truncate_tail(text, max_bytes=max_bytes)

    assert result.last_line_partial is True
    encoded = result.content.encode("utf-8")  # would fail on a lone surrogate
    assert encoded.decode("utf-8") == result.content
    assert "\ufffd" not in result.content
    assert set(result.content) == {char}
    assert result.output_bytes == len(encoded) <= max_bytes
    # only the broken character is lost
    assert max_bytes - len(encoded) < utf8_len(char)
    assert text.endswith(result.content)


def test_tail_earlier_overlong_line_stops_the_cut_without_partial() -> None:
    text = "w" * 500 + "\nend"

    result = truncate_tail(text, max_bytes=50)

    assert result.content == "end"
    assert result.last_line_partial is False
    assert result.truncated_by == "bytes"


def test_head_never_reports_partial_and_tail_never_first_line_exceeds() -> None:
    huge = "q" * 300

    assert truncate_head(huge, max_bytes=10).last_line_partial is False
    assert truncate_tail(huge, max_bytes=10).first_line_exceeds_limit is False


@TRUNCATORS
def test_only_trailing_newline_over_byte_cap_is_not_labelled_a_line_cut(truncate) -> None:
    result = truncate("abc\n", max_lines=10, max_bytes=3)

    assert result.truncated_by != "lines"


def test_tail_zero_byte_cap_keeps_nothing() -> None:
    result = truncate_tail("abc", max_bytes=0)

    assert result.output_bytes <= 0


# --- property -----------------------------------------------------------------------------------

TEXT = st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "é", "€", "😀"]), max_size=300)


def check_common(text: str, result: TruncationResult, max_lines: int, max_bytes: int) -> None:
    assert result.output_lines <= max_lines
    assert result.output_bytes <= max_bytes
    assert result.output_bytes == utf8_len(result.content)
    assert result.total_bytes == utf8_len(text)
    assert result.output_lines <= result.total_lines
    if not result.truncated:
        # nothing is cut; at most the final newline is left out to respect the byte cap
        assert result.content == text or result.content + "\n" == text
        assert result.truncated_by is None
    else:
        assert result.truncated_by in ("lines", "bytes")
    if result.truncated_by == "bytes":
        assert result.total_bytes > max_bytes


@settings(max_examples=200, deadline=None)
@given(text=TEXT, max_lines=st.integers(1, 20), max_bytes=st.integers(1, 200))
def test_head_property(text: str, max_lines: int, max_bytes: int) -> None:
    result = truncate_head(text, max_lines=max_lines, max_bytes=max_bytes)

    check_common(text, result, max_lines, max_bytes)
    assert text.startswith(result.content)
    assert result.last_line_partial is False
    if result.first_line_exceeds_limit:
        assert result.content == ""
        assert utf8_len(text.split("\n", maxsplit=1)[0]) > max_bytes


@settings(max_examples=200, deadline=None)
@given(text=TEXT, max_lines=st.integers(1, 20), max_bytes=st.integers(1, 200))
def test_tail_property(text: str, max_lines: int, max_bytes: int) -> None:
    result = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)

    check_common(text, result, max_lines, max_bytes)
    assert result.first_line_exceeds_limit is False
    # a cut (or a cap reached only by the final newline) drops that newline
    body = text[:-1] if text.endswith("\n") and result.content != text else text
    if result.last_line_partial:
        last_line = body.split("\n")[-1]
        assert last_line.endswith(result.content)
        assert result.output_lines == 1
        assert "\n" not in result.content
    else:
        assert body.endswith(result.content)


@settings(max_examples=200, deadline=None)
@given(text=TEXT, max_bytes=st.integers(1, 200))
def test_tail_never_keeps_more_than_max_bytes(text: str, max_bytes: int) -> None:
    result = truncate_tail(text, max_bytes=max_bytes)

    if result.truncated:
        assert utf8_len(result.content) <= max_bytes


# --- truncate_line and format_size --------------------------------------------------------------


def test_truncate_line_at_500_characters() -> None:
    exactly = "a" * 500
    assert truncate_line(exactly) == (exactly, False)

    longer = "b" * 500 + "TAIL"
    text, cut = truncate_line(longer)
    assert cut is True
    assert text.startswith("b" * 500)
    assert "TAIL" not in text
    assert "truncated" in text
    assert len(text) < len(longer) + 50


def test_truncate_line_counts_characters_not_bytes() -> None:
    line = "é" * 500  # 1000 bytes, 500 characters

    assert truncate_line(line) == (line, False)
    text, cut = truncate_line("é" * 501)
    assert cut is True
    assert text.startswith("é" * 500)
    assert not text.startswith("é" * 501)


def test_truncate_line_custom_limit() -> None:
    assert truncate_line("abcdef", 6) == ("abcdef", False)
    text, cut = truncate_line("abcdefg", 3)
    assert cut is True
    assert text.startswith("abc")
    assert "d" not in text.replace("truncated", "")


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0B"),
        (512, "512B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (1536, "1.5KB"),
        (12_595, "12.3KB"),
        (51_200, "50.0KB"),
        (1024 * 1024, "1.0MB"),
        (4 * 1024 * 1024, "4.0MB"),
    ],
)
def test_format_size(size: int, expected: str) -> None:
    assert format_size(size) == expected
