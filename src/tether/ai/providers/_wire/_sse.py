"""Server-sent events from raw response bytes, without building an object per event.

Providers read the SDK's raw streamed response and feed its byte chunks to an
:class:`SSEDecoder`, which returns each complete event as its name and data bytes (ready for
``jiter.from_json``). The cost per chunk is linear in the chunk: a long event spread over many
chunks is joined once, when its line ends.
"""

from __future__ import annotations

__all__ = ["SSEDecoder", "ServerSentEvent"]

ServerSentEvent = tuple[str, bytes]
"""An event's name (``""`` when the server sent no ``event:`` line) and its data."""


class SSEDecoder:
    """Splits a byte stream into server-sent events (``event:`` and ``data:`` fields)."""

    __slots__ = ("_data", "_event", "_pending")

    def __init__(self) -> None:
        self._pending: list[bytes] = []  # the start of a line whose end has not arrived
        self._event = ""
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events completed by ``chunk``."""
        if b"\n" not in chunk:
            if chunk:
                self._pending.append(chunk)
            return []
        if self._pending:
            self._pending.append(chunk)
            chunk = b"".join(self._pending)
            self._pending.clear()
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if tail:
            self._pending.append(tail)
        events: list[ServerSentEvent] = []
        for line in lines:
            self._line(line[:-1] if line.endswith(b"\r") else line, events)
        return events

    def flush(self) -> list[ServerSentEvent]:
        """The last event, when the stream ended without the blank line that closes it."""
        events: list[ServerSentEvent] = []
        if self._pending:
            line = b"".join(self._pending)
            self._pending.clear()
            self._line(line.rstrip(b"\r"), events)
        self._line(b"", events)
        return events

    def _line(self, line: bytes, events: list[ServerSentEvent]) -> None:
        if not line:
            if self._data:
                data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
                events.append((self._event, data))
                self._data = []
            self._event = ""
            return
        field, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if field == b"data":
            self._data.append(value)
        elif field == b"event":
            self._event = value.decode("utf-8", "replace")
