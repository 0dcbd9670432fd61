"""The SSE decoder shared by the OpenAI protocols: events from raw bytes in any split."""

from __future__ import annotations

from tether.ai.providers._wire import SSEDecoder

STREAM = (
    b": keep-alive comment\n"
    b"event: response.created\n"
    b'data: {"a": 1}\n'
    b"\n"
    b'data: {"b":\n'
    b"data: 2}\n"
    b"\n"
    b"event: done\r\n"
    b"data: [DONE]\r\n"
    b"\r\n"
)
EVENTS = [("response.created", b'{"a": 1}'), ("", b'{"b":\n2}'), ("done", b"[DONE]")]


def decode(chunks: list[bytes]) -> list[tuple[str, bytes]]:
    decoder = SSEDecoder()
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events + decoder.flush()


def test_events_in_one_chunk() -> None:
    assert decode([STREAM]) == EVENTS


def test_events_split_at_every_byte() -> None:
    assert decode([STREAM[i : i + 1] for i in range(len(STREAM))]) == EVENTS


def test_a_last_event_without_its_blank_line_is_flushed() -> None:
    assert decode([b'data: {"x": 1}']) == [("", b'{"x": 1}')]


def test_a_long_event_in_many_chunks_is_joined_once() -> None:
    body = b"x" * 100_000
    chunks = [b"data: "] + [body[i : i + 10] for i in range(0, len(body), 10)] + [b"\n\n"]
    assert decode(chunks) == [("", body)]
