"""``tether worker --rate N/SECONDS``: the queue's limiter (DBOS) spaces the starts of its runs
over the window, whatever the concurrency allows; ``tether runs list`` shows the limits."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from dbos import DBOSClient

from .support import Worker, scene, submit, tether, wait_for_runs

RUNS = 3
PERIOD = 1.0


async def test_a_rate_limit_spaces_the_starts_of_a_queues_runs(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        runs = [await submit(f"run q{i}: 0 steps", "rl", s.env, s.work) for i in range(RUNS)]
        worker = await Worker("rl", s.env, s.work, "--concurrency", "3", "--rate", "1/1").start()
        try:
            statuses = await wait_for_runs(runs, s.env, s.work)
            listing = await tether("runs", "list", env=s.env, cwd=s.work)
        finally:
            await worker.stop()
    assert set(statuses.values()) == {"SUCCESS"}
    assert "queue rl: 3 at once per worker, at most 1 started per 1s" in listing.splitlines()
    client = DBOSClient(system_database_url=f"sqlite:///{s.home / 'durable.sqlite'}")
    try:
        rows = client.list_workflows(workflow_ids=runs)
    finally:
        client.destroy()
    starts = sorted(row.dequeued_at / 1000 for row in rows if row.dequeued_at)
    assert len(starts) == RUNS
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert min(gaps) >= 0.9 * PERIOD, gaps  # at once (the concurrency allows 3) without it


async def test_a_rate_that_is_not_n_per_seconds_is_refused(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        with pytest.raises(AssertionError, match=r"--rate '5': give N/SECONDS"):
            await tether("worker", "--queue", "rl", "--rate", "5", env=s.env, cwd=s.work)
