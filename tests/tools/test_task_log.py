"""The capped task log: reads by stream offset match the stream wherever the log kept it."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from tether.tools import TaskLog


@settings(max_examples=60, deadline=None)
@given(
    chunks=st.lists(st.binary(min_size=1, max_size=300), max_size=40),
    head=st.integers(0, 200),
    tail=st.integers(1, 200),
    ranges=st.lists(st.tuples(st.integers(0, 13000), st.integers(0, 13000)), max_size=8),
)
def test_reads_match_the_stream_and_the_file_stays_capped(
    chunks: list[bytes], head: int, tail: int, ranges: list[tuple[int, int]]
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        log = TaskLog(os.path.join(directory, "task.log"), head_bytes=head, tail_bytes=tail)
        stream = b""
        for chunk in chunks:
            log.feed(chunk)
            stream += chunk
            assert os.path.getsize(log.path) <= head + 200 + 2 * tail
        assert log.total == len(stream)
        kept_tail_from = len(stream) - tail
        for asked_start, asked_end in [(0, len(stream)), *ranges]:
            piece = log.read(asked_start, asked_end)
            end = min(asked_end, len(stream))
            start = max(0, min(asked_start, end))
            wanted = stream[start:end]
            assert len(piece.data) + piece.dropped == len(wanted)
            if piece.dropped == 0:
                assert piece.data == wanted
            else:  # what is kept is the head part and the tail part, in order
                head_part = stream[start : min(end, head)]
                tail_part = stream[max(start, kept_tail_from) : end] if end > head else b""
                assert piece.data.startswith(head_part)
                assert piece.data.endswith(tail_part)
        log.close()
        assert log.read(0, len(stream)).data == log.read(0, len(stream)).data  # after close too
        assert os.stat(log.path).st_mode & 0o777 == 0o600


def test_the_marker_in_the_file_names_the_dropped_range() -> None:
    with tempfile.TemporaryDirectory() as directory:
        log = TaskLog(os.path.join(directory, "task.log"), head_bytes=10, tail_bytes=10)
        for index in range(100):
            log.feed(f"{index:04d}\n".encode())
        with open(log.path, "rb") as handle:
            content = handle.read()
        assert content.startswith(b"0000\n0001\n")
        assert b"were dropped; the log keeps the first 10 and the last 10 bytes" in content
        assert content.endswith(b"0098\n0099\n")
        assert log.read(490, 500).data == b"0098\n0099\n"
        assert log.read(0, 500).dropped == log.dropped > 0
