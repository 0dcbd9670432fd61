"""``kill -9`` of a worker in the middle of multi-turn runs, at random points, then a new
worker: every run finishes; no turn whose answer was recorded is asked of the model again; no
``bash`` call (not idempotent) runs twice, also in a parallel batch of two; a call cut off by
the kill says ``interrupted``."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

from tether.session import INTERRUPTED_CALL

from .support import Worker, restart_and_finish, scene, submit, transcript, wait_for_runs

RUNS = 10
STEPS = 3
KILLS = 3
WIDE = ("", ", 2 wide")


async def test_a_run_survives_kill_9_of_its_worker(tmp_path: Path) -> None:
    rng = random.Random()
    async with scene(tmp_path, pause=0.3) as s:
        runs = [  # every other run makes two calls a turn: a parallel batch
            await submit(
                f"run r{i}: {STEPS} steps{WIDE[i % 2]}", "q", s.env, s.work, "--gate", "yolo"
            )
            for i in range(RUNS)
        ]
        concurrency = ("--concurrency", str(RUNS))
        for _ in range(KILLS):  # each kill lands at another point of every run
            worker = await Worker("q", s.env, s.work, *concurrency).start()
            await asyncio.sleep(rng.uniform(0.5, 3.0))
            await worker.stop()
        worker = await Worker("q", s.env, s.work, *concurrency).start()
        try:
            statuses = await wait_for_runs(runs, s.env, s.work, timeout=90)
        finally:
            await worker.stop()

    assert set(statuses.values()) == {"SUCCESS"}, statuses
    lines = s.model.side_effects()
    starts = Counter(line.split()[1] for line in lines if line.startswith("start"))
    assert starts and max(starts.values()) == 1, starts  # no bash call ran twice
    interrupted = 0
    for number, run_id in enumerate(runs):
        messages = transcript(s.home, run_id)
        served = [
            int(block["text"].rsplit("reply-", 1)[1].split()[0])
            for m in messages
            if m["role"] == "assistant"
            for block in m["content"]
            if block["type"] == "text" and "reply-" in block["text"]
        ]
        assert len(served) == STEPS + 1, messages
        asked = [a for a in s.model.asked if a.run == f"r{number}"]
        for serial in served:  # a recorded turn is the last time its question was asked
            turn = s.model.asked[serial].turn
            assert max(a.serial for a in asked if a.turn == turn) == serial
        for message in messages:
            if message["role"] == "tool_result":
                text = message["content"][0]["text"]
                mark = f"r{number}:{message['tool_call_id'].rsplit('_', 1)[1]}"
                if text == INTERRUPTED_CALL:
                    interrupted += 1
                    assert message["is_error"]
                else:
                    assert starts[mark] == 1  # a result that is not interrupted really ran
    print(f"{interrupted} calls interrupted, {len(s.model.asked)} requests")


async def test_a_call_cut_off_by_the_kill_is_interrupted_and_not_run_again(tmp_path: Path) -> None:
    async with scene(tmp_path, pause=30) as s:
        run_id = await submit("run r0: 1 steps", "q", s.env, s.work, "--gate", "yolo")
        worker = await Worker("q", s.env, s.work).start()
        while not s.model.side_effects():  # the bash call has started: kill it mid-call
            await asyncio.sleep(0.05)
        statuses = await restart_and_finish(worker, [run_id], "q", s.env, s.work)
    assert statuses[run_id] == "SUCCESS"
    assert s.model.side_effects() == ["start r0:0"]
    results = [m for m in transcript(s.home, run_id) if m["role"] == "tool_result"]
    assert [r["content"][0]["text"] for r in results] == [INTERRUPTED_CALL]
    assert results[0]["is_error"]
    assert [a.turn for a in s.model.asked] == [0, 1]  # the recorded first turn was not asked again
