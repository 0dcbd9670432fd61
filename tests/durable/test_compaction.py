"""A compaction's summary is a model call too: recorded as a step, so a worker killed after a
compaction completed does not ask the model for that summary again (the loopback model's
request log), and the run goes on from the recorded summary."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from tether.session import INTERRUPTED_CALL

from .support import Worker, restart_and_finish, scene, submit, transcript

WINDOW = 300
"""Tokens: the system prompt alone overflows what is left after the reserve, so every request
with a turn to summarise compacts."""


async def test_a_completed_compaction_is_not_asked_again_after_a_kill(tmp_path: Path) -> None:
    async with scene(tmp_path, pause=1.0, context_window=WINDOW) as s:
        run_id = await submit("run s: 2 steps", "q", s.env, s.work, "--gate", "yolo")
        worker = await Worker("q", s.env, s.work).start()
        for _ in range(600):  # the first summary is done
            if "start s:1" in s.model.side_effects():
                break
            await asyncio.sleep(0.05)
        assert "start s:1" in s.model.side_effects(), s.model.asked
        statuses = await restart_and_finish(worker, [run_id], "q", s.env, s.work)
    assert statuses[run_id] == "SUCCESS"
    summaries = Counter(a.summary for a in s.model.asked if a.summary is not None)
    assert len(summaries) == 2 and set(summaries.values()) == {1}, s.model.asked  # once each
    turns = Counter(a.turn for a in s.model.asked if a.summary is None)
    assert turns == {0: 1, 1: 1, 2: 1}, s.model.asked
    assert s.model.side_effects() == ["start s:0", "end s:0", "start s:1"]  # none ran twice
    results = [m for m in transcript(s.home, run_id) if m["role"] == "tool_result"]
    assert [r["content"][0]["text"] == INTERRUPTED_CALL for r in results] == [False, True]
