"""Tool-call arguments as they stream in: a best-effort dict after every delta, a strict parse at
the end.

:class:`StreamingArguments` is fed the argument JSON text piece by piece. ``value`` is always a
dict (what the text holds so far); :meth:`finish` parses the whole text strictly once and says
why it failed, so a call whose arguments are malformed or cut off is never executed.
"""

from __future__ import annotations

from typing import Any

import jiter

from .._partial_json import parse_streaming_json

__all__ = ["StreamingArguments"]


class StreamingArguments:
    """Accumulates one tool call's argument text."""

    __slots__ = ("_parts", "_size", "value")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
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
            self._size += len(delta)
            self.value = parse_streaming_json(self.text)
        return self.value

    def replace(self, text: str) -> dict[str, Any]:
        """Start over with ``text`` as the whole argument string (servers that resend it)."""
        self._parts = [text] if text else []
        self._size = len(text)
        self.value = parse_streaming_json(text) if text else {}
        return self.value

    def finish(self) -> tuple[dict[str, Any], str | None]:
        """The final arguments and ``None``, or the best-effort value and why it is not valid.

        Empty text (a tool without parameters; some servers send ``""`` or ``null``) is ``{}``.
        """
        text = self.text.strip()
        if not text or text == "null":
            self.value = {}
            return self.value, None
        try:
            parsed = jiter.from_json(text.encode(), allow_inf_nan=False)
        except ValueError as exc:
            return self.value, f"its arguments are not valid JSON ({exc}): {_excerpt(text)}"
        if not isinstance(parsed, dict):
            return self.value, f"its arguments are not a JSON object: {_excerpt(text)}"
        self.value = parsed
        return parsed, None


def _excerpt(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
