"""A JSON object parsed piece by piece, at a cost per piece that does not grow with the text.

:class:`IncrementalObjectParser` is a tokenizer with a stack of the open containers. It builds its
``value`` dict in place: a completed value is stored once, the open string grows by the pieces
that arrive, and nothing already read is looked at again. String bodies are skipped with a regex
search for the next quote or backslash, never character by character.

What ``value`` holds after each piece: every completed value, empty containers as soon as they
open, and the open string's text so far; an unfinished key, literal (``tru``), number or escape
is left out until it completes — a number at the very end of the text too (``12`` may still
become ``123``), so a value once shown never changes except the open string growing. Models are
sloppy, so raw control characters inside strings are kept as they are and an invalid escape
(``\\d`` in a regex a model forgot to double) is kept as backslash and character. Once the text
cannot be JSON (a stray character, a lone surrogate escape, anything after the object), parsing
stops and ``value`` keeps what it held; ``failed`` says so. :func:`parse_streaming_json` is the
same reading of a whole text at once: tether's one partial-JSON parser.

The open string. Python strings are immutable, so rebuilding a long open string on every piece
would cost its whole length each time. A string of up to ``exact_limit`` characters is exact
after every piece; a longer one is rebuilt when the text not yet shown reaches
``1 / lag_divisor`` of the text shown, so the work stays proportional to the text while ``value``
shows at least ``lag_divisor / (lag_divisor + 1)`` of what was received (with the defaults, all but
the last 3 % of a long string). A string is exact the moment its closing quote arrives.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Final

import jiter

__all__ = ["IncrementalObjectParser", "parse_streaming_json"]

# parser states
_START: Final = 0  # before the top-level "{"
_KEY_OR_END: Final = 1  # just after "{"
_KEY: Final = 2  # after "," in an object
_COLON: Final = 3  # after a key
_VALUE: Final = 4  # after ":" or "," in an array
_VALUE_OR_END: Final = 5  # just after "["
_AFTER_VALUE: Final = 6  # expecting "," or the container's closing bracket
_STRING: Final = 7  # inside a key or a value string
_DONE: Final = 8  # the top-level object is closed
_FAILED: Final = 9  # the text cannot be JSON

_WHITESPACE: Final = frozenset(" \t\n\r")
_STRING_SPECIAL = re.compile(r'["\\]')
_NUMBER_CHARS = re.compile(r"[-+.eE0-9]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_HEX_UNFINISHED = re.compile(r"[0-9a-fA-F]{0,3}")
_ESCAPE_UNFINISHED = re.compile(r"(?:\\(?:u[0-9a-fA-F]{0,3})?)?")
_SIMPLE_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_LITERALS: Final[dict[str, tuple[str, Any]]] = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
}
_INCOMPLETE: Final = -1  # an escape that the next piece completes
_STOP: Final = sys.maxsize  # past any text: reading ends


def parse_streaming_json(text: str | bytes) -> dict[str, Any]:
    """Possibly incomplete, possibly sloppy JSON object text as a new dict, never a raise.

    What :class:`IncrementalObjectParser` holds once fed all of ``text`` (bytes are read as
    UTF-8, an undecodable byte replaced): complete JSON parses as is, an unfinished prefix gives
    what it holds so far (an open string keeps its partial text), text that is not an object
    gives ``{}``.
    """
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    try:  # complete JSON reads the same either way, and jiter reads it faster
        complete = jiter.from_json(text.encode(errors="surrogatepass"), allow_inf_nan=False)
    except ValueError:
        complete = None
    if isinstance(complete, dict):
        return complete
    parser = IncrementalObjectParser()
    parser.feed(text)
    return parser.value


class IncrementalObjectParser:
    """Reads one JSON object text fed in pieces into ``value``, updated in place."""

    __slots__ = (
        "_carry",
        "_containers",
        "_exact_limit",
        "_keys",
        "_lag_divisor",
        "_pieces",
        "_pieces_size",
        "_shown",
        "_slot",
        "_state",
        "_string_is_key",
        "value",
    )

    def __init__(self, *, exact_limit: int = 4096, lag_divisor: int = 32) -> None:
        self.value: dict[str, Any] = {}
        self._exact_limit = exact_limit
        self._lag_divisor = lag_divisor
        self._state = _START
        self._carry = ""  # an unfinished token (escape, number, literal) from the last piece
        self._containers: list[dict[str, Any] | list[Any]] = []
        self._keys: list[str | None] = []  # per open container: the key of its next value
        # the open string: decoded pieces not yet in ``value``, and what ``value`` shows
        self._string_is_key = False
        self._pieces: list[str] = []
        self._pieces_size = 0
        self._shown = ""
        self._slot: str | int = 0  # where the open value string sits in its container

    @property
    def failed(self) -> bool:
        """The text so far cannot be the start of a JSON object."""
        return self._state == _FAILED

    def feed(self, piece: str) -> None:
        """Read the next piece of the text."""
        if self._state == _FAILED or not piece:
            return
        text = self._carry + piece if self._carry else piece
        self._carry = ""
        position = 0
        end = len(text)
        while position < end:
            if self._state == _STRING:
                position = self._read_string(text, position)
            else:
                position = self._read_structure(text, position)
        if self._state == _STRING and self._pieces and not self._string_is_key:
            self._show_open_string()

    # -- structure -------------------------------------------------------------------------------

    def _read_structure(self, text: str, position: int) -> int:
        """Read one token outside strings; returns the position after it."""
        end = len(text)
        while position < end and text[position] in _WHITESPACE:
            position += 1
        if position == end:
            return position
        char = text[position]
        state = self._state
        if state == _AFTER_VALUE:
            return self._after_value(char, position)
        if state in (_VALUE, _VALUE_OR_END):
            if char == "]" and state == _VALUE_OR_END:
                return self._close(position)
            return self._start_value(text, position)
        if state in (_KEY_OR_END, _KEY) and char == '"':
            self._begin_string(is_key=True)
            return position + 1
        if state == _KEY_OR_END and char == "}":
            return self._close(position)
        if state == _COLON and char == ":":
            self._state = _VALUE
            return position + 1
        if state == _START and char == "{":
            self._containers.append(self.value)
            self._keys.append(None)
            self._state = _KEY_OR_END
            return position + 1
        return self._fail()

    def _after_value(self, char: str, position: int) -> int:
        in_object = isinstance(self._containers[-1], dict)
        if char == ",":
            self._state = _KEY if in_object else _VALUE
            return position + 1
        if char == ("}" if in_object else "]"):
            return self._close(position)
        return self._fail()

    def _start_value(self, text: str, position: int) -> int:
        char = text[position]
        if char == '"':
            self._slot = self._store("")
            self._begin_string(is_key=False)
            return position + 1
        if char in "{[":
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            self._store(container)
            self._containers.append(container)
            self._keys.append(None)
            self._state = _KEY_OR_END if char == "{" else _VALUE_OR_END
            return position + 1
        if char == "-" or "0" <= char <= "9":
            return self._read_number(text, position)
        literal = _LITERALS.get(char)
        if literal is not None:
            word, value = literal
            if text.startswith(word, position):
                self._store(value)
                self._state = _AFTER_VALUE
                return position + len(word)
            if word.startswith(text[position:]):
                return self._wait(text, position)
        return self._fail()

    def _read_number(self, text: str, position: int) -> int:
        chars = _NUMBER_CHARS.match(text, position)
        assert chars is not None  # text[position] is a digit or "-"
        run = chars.end()
        if run == len(text):
            return self._wait(text, position)  # "12" may still become "123"
        token = text[position:run]
        match = _NUMBER.fullmatch(token)
        if match is None:
            return self._fail()
        try:
            number: int | float = float(token) if match.lastindex else int(token)
        except ValueError:  # more digits than int() accepts
            return self._fail()
        self._store(number)
        self._state = _AFTER_VALUE
        return run

    def _store(self, value: Any) -> str | int:
        """Put a value into the innermost container; returns its key or index there."""
        container = self._containers[-1]
        if isinstance(container, dict):
            key = self._keys[-1]
            assert key is not None
            container[key] = value
            return key
        container.append(value)
        return len(container) - 1

    def _close(self, position: int) -> int:
        self._containers.pop()
        self._keys.pop()
        self._state = _AFTER_VALUE if self._containers else _DONE
        return position + 1

    # -- strings ---------------------------------------------------------------------------------

    def _begin_string(self, *, is_key: bool) -> None:
        self._state = _STRING
        self._string_is_key = is_key
        self._shown = ""

    def _read_string(self, text: str, position: int) -> int:
        """Read string text up to its closing quote or the end of ``text``."""
        pieces = self._pieces
        while True:
            special = _STRING_SPECIAL.search(text, position)
            stop = len(text) if special is None else special.start()
            if stop > position:
                pieces.append(text[position:stop])
                self._pieces_size += stop - position
            if special is None:
                return stop
            if text[stop] == '"':
                self._end_string()
                return stop + 1
            position = self._read_escape(text, stop)
            if position == _INCOMPLETE:
                return self._wait(text, stop)

    def _read_escape(self, text: str, backslash: int) -> int:
        """Decode the escape at ``backslash``; returns the position after it, or ``_INCOMPLETE``."""
        if backslash + 1 == len(text):
            return _INCOMPLETE
        kind = text[backslash + 1]
        simple = _SIMPLE_ESCAPES.get(kind)
        if simple is not None:
            self._pieces.append(simple)
            self._pieces_size += 1
            return backslash + 2
        if kind == "u":
            digits = text[backslash + 2 : backslash + 6]
            if _HEX4.fullmatch(digits):
                return self._read_code_point(text, backslash, int(digits, 16))
            if len(digits) < 4 and _HEX_UNFINISHED.fullmatch(digits):
                return _INCOMPLETE
        # an invalid escape keeps its backslash; the character after it is read as text
        self._pieces.append("\\")
        self._pieces_size += 1
        return backslash + 1

    def _read_code_point(self, text: str, backslash: int, code: int) -> int:
        if 0xDC00 <= code <= 0xDFFF:
            return self._fail()  # a low surrogate without its high half
        if 0xD800 <= code <= 0xDBFF:
            low = text[backslash + 6 : backslash + 12]
            if len(low) < 6 and _ESCAPE_UNFINISHED.fullmatch(low):
                return _INCOMPLETE
            if not (low[:2] == "\\u" and _HEX4.fullmatch(low, 2)):
                return self._fail()
            low_code = int(low[2:], 16)
            if not 0xDC00 <= low_code <= 0xDFFF:
                return self._fail()
            code = 0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00)
            self._pieces.append(chr(code))
            self._pieces_size += 1
            return backslash + 12
        self._pieces.append(chr(code))
        self._pieces_size += 1
        return backslash + 6

    def _end_string(self) -> None:
        text = self._shown + "".join(self._pieces) if self._pieces else self._shown
        self._pieces.clear()
        self._pieces_size = 0
        self._shown = ""
        if self._string_is_key:
            self._keys[-1] = text
            self._state = _COLON
        else:
            self._put(text)
            self._state = _AFTER_VALUE

    def _show_open_string(self, *, exact: bool = False) -> None:
        """Put the open string's text into ``value`` when the lag rule says so."""
        shown = len(self._shown)
        pending = self._pieces_size
        if not (
            exact or shown + pending <= self._exact_limit or pending * self._lag_divisor >= shown
        ):
            return
        self._shown += "".join(self._pieces)
        self._pieces.clear()
        self._pieces_size = 0
        self._put(self._shown)

    def _put(self, text: str) -> None:
        """Set the open value string's text in its container."""
        container = self._containers[-1]
        if isinstance(container, dict):
            assert isinstance(self._slot, str)
            container[self._slot] = text
        else:
            assert isinstance(self._slot, int)
            container[self._slot] = text

    # -- waiting and failing ----------------------------------------------------------------------

    def _wait(self, text: str, position: int) -> int:
        """Keep an unfinished token for the next piece."""
        self._carry = text[position:]
        return len(text)

    def _fail(self) -> int:
        if self._state == _STRING and self._pieces and not self._string_is_key:
            self._show_open_string(exact=True)
        self._state = _FAILED
        self._carry = ""
        self._containers.clear()
        self._keys.clear()
        self._pieces.clear()
        return _STOP
