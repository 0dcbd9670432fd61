"""``kill -9`` of a worker in the middle of multi-turn runs, at random points, then a new
worker: every run finishes; no turn whose answer was recorded is asked of the model again; no
``bash`` call (not idempotent) runs twice; a call cut off by the kill says ``interrupted``."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

from tether.session import INTERRUPTED_CALL

from .support import (
    StatefulModel,
    Worker,
    durable_env,
    prepare_home,
    submit,
    transcript,
    wait_for_runs,
)

RUNS = 10
STEPS = 3
KILLS = 3


async def test_a_run_survives_kill_9_of_its_worker(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    rng = random.Random()
    async with StatefulModel(work, pause=0.3) as model:
        prepare_home(home, model.url)
        env = durable_env(home)
        runs = [
            await submit(f"run r{i}: {STEPS} steps", "q", env, work, "--gate", "yolo")
            for i in range(RUNS)
        ]
        for _ in range(KILLS):  # each kill lands at another point of every run
            worker = await Worker("q", env, work, "--concurrency", str(RUNS)).start()
            await asyncio.sleep(rng.uniform(0.5, 3.0))
            await worker.stop()
            print("after kill:", len(model.asked), "requests,", len(model.side_effects()), "lines")
        worker = await Worker("q", env, work, "--concurrency", str(RUNS)).start()
        try:
            statuses = await wait_for_runs(runs, env, work, timeout=90)
        finally:
            await worker.stop()

    assert set(statuses.values()) == {"SUCCESS"}, statuses
    starts = Counter(line.split()[1] for line in model.side_effects() if line.startswith("start"))
    assert starts and max(starts.values()) == 1, starts  # no bash call ran twice
    interrupted = 0
    for number, run_id in enumerate(runs):
        messages = transcript(home, run_id)
        served = [
            int(block["text"].rsplit("reply-", 1)[1].split()[0])
            for m in messages
            if m["role"] == "assistant"
            for block in m["content"]
            if block["type"] == "text" and "reply-" in block["text"]
        ]
        assert len(served) == STEPS + 1, messages
        asked = [a for a in model.asked if a.run == f"r{number}"]
        for serial in served:  # a recorded turn is the last time its question was asked
            turn = model.asked[serial].turn
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
    ends = Counter(line.split()[1] for line in model.side_effects() if line.startswith("end"))
    cut = sorted(set(starts) - set(ends))
    print(f"{interrupted} calls interrupted, {len(model.asked)} requests, cut: {cut}")


async def test_a_call_cut_off_by_the_kill_is_interrupted_and_not_run_again(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    async with StatefulModel(work, pause=30) as model:
        prepare_home(home, model.url)
        env = durable_env(home)
        run_id = await submit("run r0: 1 steps", "q", env, work, "--gate", "yolo")
        worker = await Worker("q", env, work).start()
        while not model.side_effects():  # the bash call has started: kill it mid-call
            await asyncio.sleep(0.05)
        await worker.stop()
        worker = await Worker("q", env, work).start()
        try:
            statuses = await wait_for_runs([run_id], env, work)
        finally:
            await worker.stop()
    assert statuses[run_id] == "SUCCESS"
    assert model.side_effects() == ["start r0:0"]
    results = [m for m in transcript(home, run_id) if m["role"] == "tool_result"]
    assert [r["content"][0]["text"] for r in results] == [INTERRUPTED_CALL]
    assert results[0]["is_error"]
    assert [a.turn for a in model.asked] == [0, 1]  # the recorded first turn was not asked again
