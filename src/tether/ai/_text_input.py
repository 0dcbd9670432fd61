"""Decoding what comes in from outside — a command line, a JSON line on a pipe — totally.

Text that is not valid Unicode (bytes that are not UTF-8, which Python keeps as lone surrogates,
or a ``\\ud800`` escape in JSON) cannot be written to a session, a file or a socket; nesting
deeper than the interpreter's recursion limit cannot be parsed. Neither may end a mode: a lone
surrogate becomes U+FFFD (and the caller learns how many there were, to say so), and JSON too
deep is a :class:`ValueError` with a message, like any other malformed line.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["clean_text", "decode_json_line"]

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were replaced."""
    return _SURROGATE.subn(REPLACEMENT, text)


def decode_json_line(line: str | bytes) -> tuple[Any, int]:
    """One JSON value from ``line`` (bytes decoded as UTF-8, invalid ones replaced) with every
    string cleaned by :func:`clean_text`; returns the value and how many characters were
    replaced. Raises :class:`ValueError` for anything that is not JSON, nesting too deep
    included."""
    replaced = 0
    if isinstance(line, bytes):
        text = line.decode("utf-8", errors="replace")
        replaced += text.count(REPLACEMENT) - line.count(REPLACEMENT.encode())
    else:
        text = line
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    value, cleaned = _clean_strings(value)
    return value, replaced + cleaned


def _clean_strings(value: Any) -> tuple[Any, int]:
    """Clean every string (keys too) of a parsed JSON value, iteratively: a value as deep as
    the parser allowed must not exhaust the stack here."""
    if isinstance(value, str):
        return clean_text(value)
    if not isinstance(value, (dict, list)):
        return value, 0
    replaced = 0
    stack: list[dict[str, Any] | list[Any]] = [value]
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            for raw_key in list(container):
                item, key = container[raw_key], raw_key
                if _SURROGATE.search(raw_key):
                    del container[raw_key]
                    key, count = clean_text(raw_key)
                    replaced += count
                    container[key] = item
                replaced += _clean_item(container, key, item, stack)
        else:
            for index, item in enumerate(container):
                replaced += _clean_item(container, index, item, stack)
    return value, replaced


def _clean_item(container: Any, slot: Any, item: Any, stack: list[Any]) -> int:
    if isinstance(item, str):
        cleaned, count = clean_text(item)
        if count:
            container[slot] = cleaned
        return count
    if isinstance(item, (dict, list)):
        stack.append(item)
    return 0
