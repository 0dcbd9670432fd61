"""Tool-call arguments as they stream in: a best-effort dict after every delta, a strict parse at
the end.

:class:`StreamingArguments` is fed the argument JSON text piece by piece. ``value`` is always a
dict (what the text holds so far); :meth:`finish` parses the whole text strictly once and says
why it failed, so a call whose arguments are malformed or cut off is never executed.

The pieces are parsed incrementally (:mod:`tether.ai._incremental_json`): each delta costs time
in proportion to its own length, not to the text received before it. What a reader of ``value``
may rely on while the call streams:

- it is one dict, updated in place on every delta (copy it to keep a snapshot);
- every completed key and value in it is final; a number is shown once the character after it
  arrives, a literal once it is complete, a container as soon as it opens;
- the string still streaming in is a prefix of its final text: exact while it is at most
  4,096 characters long, and beyond that missing at most the last 1/33 of what was received
  (it is refreshed whenever its unshown tail reaches 1/32 of the text shown);
- once the text cannot be JSON, ``value`` stops changing (the last good value).

:meth:`finish` replaces ``value`` with the strict parse of the whole text when that succeeds.
"""

from __future__ import annotations

from typing import Any

import jiter

from ..._incremental_json import IncrementalObjectParser

__all__ = ["StreamingArguments"]


class StreamingArguments:
    """Accumulates one tool call's argument text."""

    __slots__ = ("_parser", "_parts", "value")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._parser: IncrementalObjectParser | None = None  # made by the first piece
        self.value: dict[str, Any] = {}

    @property
    def text(self) -> str:
        """Everything received so far."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def feed(self, delta: str) -> dict[str, Any]:
        """Add a piece of argument text; returns the updated best-effort ``value``."""
        if delta:
            self._parts.append(delta)
            parser = self._parser
            if parser is None:
                parser = self._parser = IncrementalObjectParser()
                self.value = parser.value
            parser.feed(delta)
        return self.value

    def replace(self, text: str) -> dict[str, Any]:
        """Start over with ``text`` as the whole argument string (servers that resend it)."""
        self._parts = []
        self._parser = None
        self.value = {}
        return self.feed(text)

    def finish(self) -> tuple[dict[str, Any], str | None]:
        """The final arguments and ``None``, or the best-effort value and why it is not valid.

        Empty text (a tool without parameters; some servers send ``""`` or ``null``) is ``{}``.
        """
        text = self.text.strip(" \t\n\r")  # JSON whitespace only
        if not text or text == "null":
            self.value = {}
            return self.value, None
        try:
            # a lone surrogate character encodes to invalid UTF-8, which jiter refuses
            parsed = jiter.from_json(text.encode(errors="surrogatepass"), allow_inf_nan=False)
        except ValueError as exc:
            return self.value, f"its arguments are not valid JSON ({exc}): {_excerpt(text)}"
        if not isinstance(parsed, dict):
            return self.value, f"its arguments are not a JSON object: {_excerpt(text)}"
        self.value = parsed
        return parsed, None


def _excerpt(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
