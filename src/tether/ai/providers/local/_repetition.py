"""Telling when the embedded model's free text has fallen into a loop, so it can be cut.

A 135M model easily writes the same line forever (``# 1. file.txt``, ``# 2. file.txt``... to the
length limit); :class:`RepetitionGuard` watches the reply token by token and says when to stop.
Nothing here imports llama.cpp.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["REPEATING", "RepetitionGuard"]

REPEATING = "the reply was repeating itself"

_DIGITS = re.compile(r"\d+")


class RepetitionGuard:
    """Tells when free text has fallen into a loop, so the reply is cut instead of running on.

    Two shapes of loop: the same run of tokens over and over (``the the the``, a sentence
    repeated), and the same line with only its numbers changing (``# 1. file.txt``,
    ``# 2. file.txt``...). Lists a person would write vary more than that, so thresholds are
    generous: a run of 4-64 tokens seen 4 times in a row, or 3 times when it is 16 or longer; a
    line of 8 characters or more seen 8 times in a row once its numbers are masked (or 4 times
    exactly as it was).
    """

    __slots__ = ("_lines", "_partial", "_tokens")

    _MIN_PERIOD = 4
    _MAX_PERIOD = 64
    _SAME_LINES = 4
    _SAME_SHAPE_LINES = 8
    _MIN_LINE = 8

    def __init__(self, tokens: Sequence[int] = (), text: str = "") -> None:
        self._tokens: list[int] = list(tokens)
        self._lines: list[str] = []
        self._partial = ""
        self._add_text(text)

    def looping(self, token: int, text: str) -> bool:
        """Record one more token and its text; True once the reply is looping."""
        self._tokens.append(token)
        return self._tokens_repeat() or self._add_text(text)

    def _tokens_repeat(self) -> bool:
        tokens = self._tokens
        for period in range(self._MIN_PERIOD, self._MAX_PERIOD + 1):
            times = 3 if period >= 16 else 4
            if len(tokens) < period * times:
                break
            if tokens[-1] != tokens[-1 - period]:
                continue
            tail = tokens[-period:]
            if all(tokens[-(k + 1) * period : -k * period] == tail for k in range(1, times)):
                return True
        return False

    def _add_text(self, text: str) -> bool:
        if "\n" not in text:
            self._partial += text
            return False
        *complete, self._partial = (self._partial + text).split("\n")
        looping = False
        for line in complete:
            if len(line.strip()) >= self._MIN_LINE:  # not a brace or a blank closing a block
                self._lines = [*self._lines[-(self._SAME_SHAPE_LINES - 1) :], line]
                looping = looping or self._lines_repeat()
        return looping

    def _lines_repeat(self) -> bool:
        lines = self._lines
        if len(lines) >= self._SAME_LINES and len(set(lines[-self._SAME_LINES :])) == 1:
            return True
        if len(lines) < self._SAME_SHAPE_LINES:
            return False
        return len({_DIGITS.sub("#", line) for line in lines}) == 1
