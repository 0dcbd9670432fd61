"""Decoding outside input totally: lone surrogates become U+FFFD, too-deep JSON is a ValueError."""

from __future__ import annotations

import json

import pytest

from tether.ai import clean_text, decode_json_line


def test_lone_surrogates_become_replacement_characters_and_are_counted() -> None:
    assert clean_text("ok \ud800 and \udcff") == ("ok \ufffd and \ufffd", 2)
    assert clean_text("fine, ünïcode 🙂") == ("fine, ünïcode 🙂", 0)


def test_every_string_of_a_json_line_is_cleaned_keys_included() -> None:
    line = json.dumps({"text": "x \ud800", "list": ["\udc80", {"k\ud801": "v"}]})

    value, replaced = decode_json_line(line)

    assert value == {"text": "x \ufffd", "list": ["\ufffd", {"k\ufffd": "v"}]}
    assert replaced == 3
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # writable anywhere now


def test_bytes_that_are_not_utf8_are_replaced_and_counted() -> None:
    assert decode_json_line(b'{"a": "caf\xe9"}') == ({"a": "caf\ufffd"}, 1)


def test_json_nested_deeper_than_the_parser_can_go_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        decode_json_line("[" * 100_000 + "]" * 100_000)
    deep, _ = decode_json_line("[" * 500 + '"\ud800"' + "]" * 500)  # deep but parseable
    while isinstance(deep, list):
        (deep,) = deep
    assert deep == "\ufffd"
