"""StreamingArguments: tool-call arguments parsed incrementally while they stream in.

After every delta ``value`` is what :func:`parse_streaming_json` reads from the whole text so far
(the same parser fed at once: so the cuts between deltas never change the value); ``finish`` is
the strict parse.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ai import parse_streaming_json
from tether.ai._incremental_json import IncrementalObjectParser
from tether.ai.providers._wire import StreamingArguments


def _expected(prefix: str) -> dict[str, Any]:
    """parse_streaming_json of ``prefix``: the text so far read at once."""
    return parse_streaming_json(prefix)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(cut, len(text)) for cut in cuts} | {0, len(text)})
    return [text[start:end] for start, end in itertools.pairwise(points)]


def _feed_checking(text: str, deltas: list[str]) -> StreamingArguments:
    arguments = StreamingArguments()
    received = ""
    for delta in deltas:
        received += delta
        value = arguments.feed(delta)
        assert value is arguments.value
        assert value == _expected(received), received
    assert arguments.text == text
    return arguments


_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
_json_values = st.recursive(
    _leaves,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=16,
)
_json_objects = st.dictionaries(st.text(max_size=8), _json_values, max_size=5)
_layouts = st.sampled_from(
    [
        {"ensure_ascii": True},
        {"ensure_ascii": False},
        {"ensure_ascii": False, "separators": (",", ":")},
        {"ensure_ascii": True, "indent": 2},
    ]
)
_cuts = st.lists(st.integers(min_value=0, max_value=2_000), max_size=60)


@settings(max_examples=300, deadline=None)
@given(_json_objects, _layouts, _cuts)
def test_value_after_every_delta_matches_the_partial_parse_of_the_text_so_far(
    obj: dict[str, Any], layout: dict[str, Any], cuts: list[int]
) -> None:
    text = json.dumps(obj, **layout)
    arguments = _feed_checking(text, _split(text, cuts))
    assert arguments.value == obj
    assert arguments.finish() == (json.loads(text), None)


@settings(max_examples=60, deadline=None)
@given(_json_objects, st.booleans())
def test_one_character_per_delta(obj: dict[str, Any], ensure_ascii: bool) -> None:
    text = json.dumps(obj, ensure_ascii=ensure_ascii)
    arguments = _feed_checking(text, list(text))
    assert arguments.finish() == (obj, None)


# --- sloppy strings: raw control characters and invalid escapes kept ------------------------

_sloppy_pieces = st.sampled_from(
    [
        "a",
        "é",
        "😀",
        " ",
        "\n",
        "\t",
        "\r",
        "\x01",
        "\\d",
        "\\.",
        "\\n",
        "\\\\",
        '\\"',
        "\\/",
        "\\u00e9",
        "\\u20AC",
        "\\ud83d\\ude00",
        "\\uzz",
        "\\u12",
        "\\u",
    ]
)
_sloppy_bodies = st.lists(_sloppy_pieces, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(_sloppy_bodies, _sloppy_bodies, _cuts)
def test_sloppy_strings_read_the_same_whatever_the_deltas(
    body: str, other: str, cuts: list[int]
) -> None:
    text = f'{{"code": "{body}", "list": ["{other}", 1], "k{other}": true}}'
    arguments = _feed_checking(text, _split(text, cuts))
    assert arguments.value == parse_streaming_json(text)


def test_raw_control_characters_and_invalid_escapes_are_kept_but_never_final() -> None:
    arguments = StreamingArguments()
    arguments.feed('{"pattern": "\\d+\tx\n')
    assert arguments.value == {"pattern": "\\d+\tx\n"}
    arguments.feed('"}')
    assert arguments.value == {"pattern": "\\d+\tx\n"}
    value, problem = arguments.finish()
    assert value == {"pattern": "\\d+\tx\n"}
    assert problem is not None and "not valid JSON" in problem


@pytest.mark.parametrize(
    ("deltas", "values"),
    [
        (['{"s": "a\\', 'nb"}'], [{"s": "a"}, {"s": "a\nb"}]),
        (['{"s": "a\\u0', "0e", '9"}'], [{"s": "a"}, {"s": "a"}, {"s": "aé"}]),
        (['{"s": "\\ud83d', "\\ud", 'e00x"}'], [{"s": ""}, {"s": ""}, {"s": "😀x"}]),
        (['{"s": "x\\ud83d\\', 'ude00"}'], [{"s": "x"}, {"s": "x😀"}]),
        (['{"n": 1', "2", '3, "m": -', "0.5e", "1}"], [{}, {}, {"n": 123}, {"n": 123}]),
        (['{"t": tr', "ue", ', "f": fals', "e}"], [{}, {"t": True}, {"t": True}]),
        (['{"a": [', '{"b": [', "null"], [{"a": []}, {"a": [{"b": []}]}, {"a": [{"b": [None]}]}]),
        (['{"ke', 'y": "v', 'alue"'], [{}, {"key": "v"}, {"key": "value"}]),
    ],
)
def test_tokens_split_across_deltas(deltas: list[str], values: list[dict[str, Any]]) -> None:
    arguments = StreamingArguments()
    seen = [copy.deepcopy(arguments.feed(delta)) for delta in deltas]
    assert seen == values[: len(seen)] + seen[len(values) :]
    assert seen[: len(values)] == values


def test_value_is_one_dict_updated_in_place() -> None:
    arguments = StreamingArguments()
    first = arguments.feed('{"path": "a')
    second = arguments.feed('b", "n": 1}')
    assert first is second
    assert second == {"path": "ab", "n": 1}
    final, problem = arguments.finish()
    assert problem is None and final == {"path": "ab", "n": 1}


# --- long strings: the lag rule ------------------------------------------------------------------


def _assert_lags_within(value: Any, expected: Any, limit: int, divisor: int) -> None:
    """``value`` is ``expected`` except strings beyond ``limit`` that lag by under 1/(d+1)."""
    if isinstance(expected, dict):
        assert isinstance(value, dict) and value.keys() == expected.keys()
        for key, item in expected.items():
            _assert_lags_within(value[key], item, limit, divisor)
    elif isinstance(expected, list):
        assert isinstance(value, list) and len(value) == len(expected)
        for item, wanted in zip(value, expected, strict=True):
            _assert_lags_within(item, wanted, limit, divisor)
    elif isinstance(expected, str) and value != expected:
        assert isinstance(value, str) and expected.startswith(value)
        assert len(expected) > limit
        assert len(value) * (divisor + 1) > len(expected) * divisor
    else:
        assert value == expected


@settings(max_examples=200, deadline=None)
@given(_json_objects, st.booleans(), _cuts, st.integers(0, 12), st.integers(1, 8))
def test_long_open_strings_lag_by_a_bounded_fraction_and_end_exact(
    obj: dict[str, Any], ensure_ascii: bool, cuts: list[int], limit: int, divisor: int
) -> None:
    text = json.dumps(obj, ensure_ascii=ensure_ascii)
    parser = IncrementalObjectParser(exact_limit=limit, lag_divisor=divisor)
    received = ""
    for delta in _split(text, cuts):
        received += delta
        parser.feed(delta)
        _assert_lags_within(parser.value, _expected(received), limit, divisor)
    assert parser.value == obj


def test_a_100_kb_write_lags_at_most_a_33rd_and_is_exact_when_the_string_closes() -> None:
    content = "".join(f"line {number}: {'x' * (number % 50)}; " for number in range(3_000))
    head = '{"path": "big.txt", "content": "'
    text = f'{head}{content}"}}'
    assert json.loads(text)["content"] == content  # nothing to escape: text and value align
    arguments = StreamingArguments()
    exact_deltas = 0
    for start in range(0, len(text), 10):
        value = arguments.feed(text[start : start + 10])
        received = content[: max(0, start + 10 - len(head))]
        shown = value.get("content", "")
        assert received.startswith(shown)
        if len(received) <= 4_096:
            assert shown == received
        else:
            assert len(shown) * 33 > len(received) * 32
        exact_deltas += shown == received
    assert value == {"path": "big.txt", "content": content}
    assert 400 < exact_deltas < 2_000  # the first 4 KB, and after every refresh
    assert arguments.finish() == ({"path": "big.txt", "content": content}, None)


# --- what is not JSON ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(), _cuts)
def test_arbitrary_text_never_raises_and_finish_refuses_what_json_refuses(
    text: str, cuts: list[int]
) -> None:
    arguments = StreamingArguments()
    for delta in _split(text, cuts):
        assert isinstance(arguments.feed(delta), dict)
    value, problem = arguments.finish()
    assert isinstance(value, dict)
    stripped = text.strip(" \t\n\r")
    if stripped in ("", "null"):
        assert (value, problem) == ({}, None)
        return
    try:
        reference = json.loads(text)
    except ValueError:
        assert problem is not None
        return
    if not isinstance(reference, dict):
        assert problem is not None
    elif problem is None:
        assert value == reference


@settings(max_examples=300, deadline=None)
@given(_json_objects, st.data())
def test_once_the_text_is_not_json_the_last_good_value_stays(
    obj: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(obj, ensure_ascii=data.draw(st.booleans()))
    at = data.draw(st.integers(0, len(text)))
    broken = (
        text[:at]
        + data.draw(st.sampled_from(["}", "]", "x", ",,", "{{", "\x0b", '"}x']))
        + text[at:]
    )
    parser = IncrementalObjectParser()
    good: dict[str, Any] | None = None
    for delta in _split(broken, data.draw(_cuts)):
        parser.feed(delta)
        if parser.failed:
            if good is None:
                good = copy.deepcopy(parser.value)
            assert parser.value == good
    arguments = StreamingArguments()
    arguments.feed(broken)
    if parser.failed:
        assert arguments.finish()[1] is not None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1} x', {"a": 1}),
        ('{"a": 1}{"b": 2}', {"a": 1}),
        ('{"a": "ok", "s": "\\ude00"}', {"a": "ok", "s": ""}),
        ('{"a": "ok", "s": "x\\ud83dy"}', {"a": "ok", "s": "x"}),
        ('{"a": "ok", "s": "\\ud83d\\u0041"}', {"a": "ok", "s": ""}),
        ('{"a": NaN}', {}),
        ('{"a": 01}', {}),
        ('{"a": 1,}', {"a": 1}),
        ("[1, 2]", {}),
        ('"text"', {}),
    ],
)
def test_not_json_keeps_the_last_good_value_and_finish_says_why(
    text: str, value: dict[str, Any]
) -> None:
    arguments = StreamingArguments()
    for char in text:
        arguments.feed(char)
    assert arguments.value == value
    final, problem = arguments.finish()
    assert final == value
    assert problem is not None and "its arguments are not" in problem


def test_a_lone_surrogate_character_is_an_error_not_an_exception() -> None:
    arguments = StreamingArguments()
    arguments.feed('{"s": "\ud800"}')
    assert arguments.finish()[1] is not None


@pytest.mark.parametrize("text", ["", "  ", "null", " null\n"])
def test_empty_or_null_arguments_are_an_empty_dict(text: str) -> None:
    arguments = StreamingArguments()
    arguments.feed(text)
    assert arguments.finish() == ({}, None)


def test_replace_starts_over() -> None:
    arguments = StreamingArguments()
    arguments.feed('{"a": "partial')
    assert arguments.replace('{"b": 2}') == {"b": 2}
    assert arguments.text == '{"b": 2}'
    assert arguments.finish() == ({"b": 2}, None)
