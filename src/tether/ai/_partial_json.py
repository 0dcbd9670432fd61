"""Best-effort parsing of tool-call arguments while they stream in.

Models send arguments as JSON text in pieces. :func:`parse_streaming_json` always returns a dict:
complete JSON parses as is; an unfinished prefix yields what it holds so far (an open string keeps
its partial text); raw control characters inside strings and invalid escapes (``\\d`` in a regex a
model forgot to double) are repaired. Anything that still cannot be read gives ``{}``.
"""

from __future__ import annotations

import re
from typing import Any

import jiter

__all__ = ["parse_streaming_json"]

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_HEX_TAIL = re.compile(r"[0-9a-fA-F]{0,3}")
_UNICODE_ESCAPE_WITHOUT_HEX = re.compile(rb"\\u(?![0-9a-fA-F]{4})")


def parse_streaming_json(text: str | bytes) -> dict[str, Any]:
    """Parse possibly incomplete, possibly sloppy JSON object text into a dict."""
    data = text.encode(errors="surrogatepass") if isinstance(text, str) else text
    if not data.strip():
        return {}
    value = None if _has_bad_unicode_escape(data) else _parse_partial(data)
    if value is None:
        value = _parse_partial(_repair_strings(data.decode(errors="replace")).encode())
    return value if isinstance(value, dict) else {}


def _has_bad_unicode_escape(data: bytes) -> bool:
    """A ``\\u`` escape without four hex digits: jiter's partial mode would cut the string there
    instead of failing, so such text goes to the repair at once."""
    for match in _UNICODE_ESCAPE_WITHOUT_HEX.finditer(data):
        start = match.start()
        run_start = start
        while run_start and data[run_start - 1] == 0x5C:  # backslashes before this one
            run_start -= 1
        if (start - run_start) % 2 == 0:  # not itself an escaped backslash
            return True
    return False


def _parse_partial(data: bytes) -> Any:
    """jiter's partial parse, or ``None`` when it fails."""
    try:
        return jiter.from_json(data, partial_mode="trailing-strings")
    except ValueError:
        return None


def _repair_strings(text: str) -> str:
    """Escape raw control characters and lone backslashes inside JSON string literals."""
    out: list[str] = []
    in_string = False
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if not in_string:
            in_string = char == '"'
            out.append(char)
        elif char == "\\":
            following = text[index + 1] if index + 1 < length else ""
            if following == "u" and not _HEX4.match(text, index + 2):
                if _HEX_TAIL.fullmatch(text, index + 2):
                    break  # an escape still streaming in: drop it until it completes
                out.append("\\\\")
            elif following in _VALID_ESCAPES and following:
                out.append(char + following)
                index += 1
            elif following:
                out.append("\\\\")
            else:
                break
        elif char == '"':
            in_string = False
            out.append(char)
        elif char < " ":
            out.append(_CONTROL_ESCAPES.get(char, f"\\u{ord(char):04x}"))
        else:
            out.append(char)
        index += 1
    return "".join(out)
