"""parse_streaming_json: tool-call arguments while they stream in, always a dict, never a raise
(the incremental parser reading a whole text at once)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ai import parse_streaming_json

REALISTIC: dict[str, Any] = {
    "path": "src/app/main.py",
    "old_text": 'def main():\n\tprint("héllo")\n',
    "new_text": "def main() -> None:\n    print(r'\\d+ \\u00e9')  # ✓\n",
    "pattern": "^\\s*(\\w+)\\.py$",
    "line": 42,
    "ratio": -0.125,
    "dry_run": False,
    "backup": None,
    "tags": ["edit", "python", "ünïcode"],
    "options": {"encoding": "utf-8", "limits": [1, 2, 3], "nested": {"deep": True}},
}


def _assert_prefix_of(partial: Any, full: Any, where: str = "(root)") -> None:
    """Every string in ``partial`` is a prefix of the string at the same place in ``full``."""
    if isinstance(partial, dict):
        assert isinstance(full, dict), where
        for key, value in partial.items():
            assert key in full, f"{where}: unexpected key {key!r}"
            _assert_prefix_of(value, full[key], f"{where}.{key}")
    elif isinstance(partial, list):
        assert isinstance(full, list), where
        assert len(partial) <= len(full), where
        for index, value in enumerate(partial):
            _assert_prefix_of(value, full[index], f"{where}[{index}]")
    elif isinstance(partial, str):
        assert isinstance(full, str), where
        assert full.startswith(partial), f"{where}: {partial!r} is not a prefix of {full!r}"


def _assert_growing(text: str, full: dict[str, Any]) -> None:
    previous: dict[str, Any] = {}
    for end in range(len(text) + 1):
        value = parse_streaming_json(text[:end])
        assert isinstance(value, dict), text[:end]
        _assert_prefix_of(value, full)
        for key, item in previous.items():  # a string, once seen, only grows
            if isinstance(item, str):
                assert isinstance(value.get(key), str), f"{key!r} vanished at {text[:end]!r}"
                assert value[key].startswith(item), text[:end]
        previous = value


def test_complete_object() -> None:
    assert parse_streaming_json('{"a": 1, "b": [true, null], "c": {"d": "e"}}') == {
        "a": 1,
        "b": [True, None],
        "c": {"d": "e"},
    }


def test_complete_realistic_object_round_trips() -> None:
    assert parse_streaming_json(json.dumps(REALISTIC)) == REALISTIC
    assert parse_streaming_json(json.dumps(REALISTIC, ensure_ascii=False)) == REALISTIC
    assert parse_streaming_json(json.dumps(REALISTIC, indent=2)) == REALISTIC


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_every_prefix_of_realistic_arguments_parses_and_grows(ensure_ascii: bool) -> None:
    text = json.dumps(REALISTIC, ensure_ascii=ensure_ascii)
    _assert_growing(text, REALISTIC)
    assert parse_streaming_json(text) == REALISTIC


def test_every_prefix_of_compact_arguments_parses_and_grows() -> None:
    text = json.dumps(REALISTIC, separators=(",", ":"), ensure_ascii=False)
    _assert_growing(text, REALISTIC)


def test_open_string_keeps_its_partial_text() -> None:
    assert parse_streaming_json('{"path": "src/ma') == {"path": "src/ma"}
    assert parse_streaming_json('{"path": "') == {"path": ""}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{", {}),
        ('{"a', {}),
        ('{"a"', {}),
        ('{"a":', {}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": [1, 2', {"a": [1]}),  # a number at the very end may still grow
        ('{"a": {"b": "c', {"a": {"b": "c"}}),
        ('{"x": "ok", "n": -', {"x": "ok"}),
        ('{"x": "ok", "n": tr', {"x": "ok"}),
        ('{"x": "ok", "n": nul', {"x": "ok"}),
        ('{"x": "ab\\', {"x": "ab"}),
    ],
)
def test_unfinished_prefixes(text: str, expected: dict[str, Any]) -> None:
    assert parse_streaming_json(text) == expected


def test_raw_newline_and_tab_inside_strings_are_repaired() -> None:
    assert parse_streaming_json('{"code": "line one\nline\ttwo", "n": 1}') == {
        "code": "line one\nline\ttwo",
        "n": 1,
    }


def test_raw_control_characters_in_an_unfinished_string() -> None:
    assert parse_streaming_json('{"code": "a\nb\r\tc') == {"code": "a\nb\r\tc"}


def test_other_raw_control_characters_are_repaired() -> None:
    assert parse_streaming_json('{"s": "a\x01b\x1f"}') == {"s": "a\x01b\x1f"}


def test_invalid_escape_keeps_the_backslash() -> None:
    assert parse_streaming_json('{"pattern": "\\d+\\.\\w"}') == {"pattern": "\\d+\\.\\w"}


def test_invalid_escape_together_with_a_raw_newline() -> None:
    assert parse_streaming_json('{"p": "\\d\n"}') == {"p": "\\d\n"}


def test_valid_escapes_still_decode_in_repaired_text() -> None:
    # the raw tab forces the repair path; the valid escapes must survive it
    assert parse_streaming_json('{"s": "\t\\n\\"q\\" \\u00e9 \\\\d"}') == {"s": '\t\n"q" é \\d'}


def test_incomplete_unicode_escape_at_the_end_is_dropped() -> None:
    assert parse_streaming_json('{"s": "ab\\u12') == {"s": "ab"}
    assert parse_streaming_json('{"s": "ab\\u') == {"s": "ab"}


def test_invalid_unicode_escape_in_a_finished_string_is_kept_literally() -> None:
    assert parse_streaming_json('{"s": "ab\\u12"}') == {"s": "ab\\u12"}
    assert parse_streaming_json('{"s": "\\uzzzz"}') == {"s": "\\uzzzz"}


def test_surrogate_pair_escapes() -> None:
    assert parse_streaming_json('{"s": "\\ud83d\\ude00"}') == {"s": "😀"}
    assert parse_streaming_json('{"s": "x\\ud83d') == {"s": "x"}


def test_unfinished_unicode_escape_after_a_raw_newline_is_dropped() -> None:
    assert parse_streaming_json('{"s": "a\nb \\u00e') == {"s": "a\nb "}


@pytest.mark.parametrize("text", ["[1, 2, 3]", "[{}]", "42", '"text"', "true", "null"])
def test_non_object_json_gives_an_empty_dict(text: str) -> None:
    assert parse_streaming_json(text) == {}


@pytest.mark.parametrize("text", ["", " ", "\n\t  ", b"", b"  "])
def test_empty_or_whitespace_gives_an_empty_dict(text: str | bytes) -> None:
    assert parse_streaming_json(text) == {}


@pytest.mark.parametrize("text", ["}", "{{", "garbage", '{"a" 1}', "{'a': 1}", "\x00"])
def test_unreadable_text_gives_an_empty_dict(text: str) -> None:
    assert parse_streaming_json(text) == {}


def test_bytes_input() -> None:
    assert parse_streaming_json(b'{"a": "b", "n": [1]}') == {"a": "b", "n": [1]}
    assert parse_streaming_json('{"s": "é"}'.encode()) == {"s": "é"}
    assert parse_streaming_json(b'{"s": "ab') == {"s": "ab"}


def test_bytes_cut_inside_a_multibyte_character() -> None:
    data = '{"s": "aé", "t": 1}'.encode()
    cut = data.index("é".encode()) + 1  # between the two bytes of é
    result = parse_streaming_json(data[:cut])
    assert isinstance(result, dict)
    assert result.get("s", "").startswith("a")


def test_a_lone_surrogate_character_is_kept_not_raised() -> None:
    assert parse_streaming_json('{"a": "x\ud800y", "b": 1}') == {"a": "x\ud800y", "b": 1}


def test_returns_a_new_dict_each_call() -> None:
    first = parse_streaming_json('{"a": [1]}')
    first["a"].append(2)
    assert parse_streaming_json('{"a": [1]}') == {"a": [1]}


# --- properties ---------------------------------------------------------------------------------

_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_json_values = st.recursive(
    _leaves,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
_json_objects = st.dictionaries(st.text(max_size=6), _json_values, max_size=5)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_always_gives_a_dict(text: str) -> None:
    assert isinstance(parse_streaming_json(text), dict)


@settings(max_examples=150, deadline=None)
@given(st.binary())
def test_arbitrary_bytes_always_give_a_dict(data: bytes) -> None:
    assert isinstance(parse_streaming_json(data), dict)


@settings(max_examples=100, deadline=None)
@given(_json_objects, st.booleans())
def test_every_prefix_of_a_json_object_parses_to_a_dict(
    obj: dict[str, Any], ensure_ascii: bool
) -> None:
    text = json.dumps(obj, ensure_ascii=ensure_ascii)
    for end in range(len(text)):
        partial = parse_streaming_json(text[:end])
        assert isinstance(partial, dict)
        _assert_prefix_of(partial, obj)
    assert parse_streaming_json(text) == obj
    assert parse_streaming_json(text.encode()) == obj
