"""PostgreSQL: two workers drain one queue of 20 runs against the loopback model; one is killed
mid-way and started again under its name; every run completes once, no ``bash`` call runs
twice, and no worker runs more than its ``--concurrency`` at once."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from .postgres import postgres_cluster
from .support import (
    Worker,
    scene,
    submit,
    transcript,
    wait_for_runs,
)

RUNS = 20
CONCURRENCY = 3


def most_at_once(lines: list[str]) -> int:
    """The most calls running at one time, from the side-effect log (calls a kill cut off are
    left out: their end never came)."""
    ended = {line.split()[1] for line in lines if line.startswith("end")}
    running = most = 0
    for line in lines:
        kind, mark = line.split()
        if mark in ended:
            running += 1 if kind == "start" else -1
            most = max(most, running)
    return most


async def test_two_workers_share_a_queue_on_postgres(tmp_path: Path) -> None:
    with postgres_cluster() as url:
        async with scene(tmp_path, pause=0.3, db=url) as s:
            env, work, model, home = s.env, s.work, s.model, s.home
            runs = [
                await submit(f"run p{i}: 2 steps", "pg", env, work, "--gate", "yolo")
                for i in range(RUNS)
            ]
            extra = ("--concurrency", str(CONCURRENCY))
            first = await Worker("pg", env, work, "--id", "w1", *extra).start()
            second = await Worker("pg", env, work, "--id", "w2", *extra).start()
            try:
                while len(model.side_effects()) < 12:
                    await asyncio.sleep(0.05)
                await first.stop()  # kill -9 mid-way; started again under its name
                first = await Worker("pg", env, work, "--id", "w1", *extra).start()
                statuses = await wait_for_runs(runs, env, work, timeout=120)
            finally:
                await first.stop()
                await second.stop()

    assert set(statuses.values()) == {"SUCCESS"}, statuses
    lines = model.side_effects()
    starts = Counter(line.split()[1] for line in lines if line.startswith("start"))
    assert max(starts.values()) == 1, starts
    assert 1 < most_at_once(lines) <= 2 * CONCURRENCY
    for number, run_id in enumerate(runs):
        finals = [
            m
            for m in transcript(home, run_id)
            if m["role"] == "assistant" and m["content"][0]["text"].startswith("done")
        ]
        assert len(finals) == 1 and finals[0]["content"][0]["text"].startswith(f"done p{number} ")
        serial = int(finals[0]["content"][0]["text"].rsplit("reply-", 1)[1])
        asked = [a.serial for a in model.asked if a.run == f"p{number}" and a.turn == 2]
        assert max(asked) == serial  # asked again only while no answer was recorded
