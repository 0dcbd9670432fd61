"""``kill -9`` of a worker in the middle of multi-turn runs, at random points, then a new
worker: every run finishes; no turn whose answer was recorded is asked of the model again; no
``bash`` call (not idempotent) runs twice, also in a parallel batch of two; a call cut off by
the kill says ``interrupted``."""

from __future__ import annotations

import asyncio
import random
import shutil
from collections import Counter
from pathlib import Path

from tether.session import INTERRUPTED_CALL

from .support import Worker, restart_and_finish, scene, submit, tether, transcript, wait_for_runs
from .test_approvals import wait_for_pending

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
        failures = [m.get("error_message") for m in messages if m.get("stop_reason") == "error"]
        assert len(served) == STEPS + 1, (failures, messages)
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


async def test_recorded_decisions_and_waits_are_final_though_the_gate_would_now_judge_otherwise(
    tmp_path: Path,
) -> None:
    """The gate's verdict can differ from one process to the next (here the policy's budget of
    directory entries to read, as the workspace grows and shrinks while the run is down; under
    load, its CPU budget). A recovery keeps what is on record instead of asking the gate again:
    a decision stays as made, and a person's wait is waited for again — asking the gate would
    add or drop a wait the record does not have, and take the run off its recorded steps."""
    many = tmp_path / "work" / "many"
    async with scene(tmp_path, pause=30, prefix="ls many/*; ") as s:
        many.mkdir()
        run_id = await submit("run r0: 2 steps", "q", s.env, s.work, "--gate", "yolo")
        worker = await Worker("q", s.env, s.work).start()
        while not s.model.side_effects():  # decided (yolo: allowed) and running: kill it now
            await asyncio.sleep(0.05)
        await worker.stop()
        for number in range(6000):  # the policy cannot finish judging: a person in every mode
            (many / f"f{number}").touch()
        worker = await Worker("q", s.env, s.work).start()
        try:
            shown = await wait_for_pending(run_id, s.env, s.work)  # the next call waits
            assert "call call_r0_1 (bash)" in shown and "too complex to prove" in shown
            digest = shown.split("digest: ")[1].split()[0]
            await worker.stop()
            shutil.rmtree(many)  # now the gate would allow it unasked: the wait stays
            many.mkdir()
            worker = await Worker("q", s.env, s.work).start()
            assert "call call_r0_1 (bash)" in await wait_for_pending(run_id, s.env, s.work)
            await tether(
                "runs", "approve", run_id, "call_r0_1", "deny_once", "--digest", digest,
                env=s.env, cwd=s.work,
            )  # fmt: skip
            statuses = await wait_for_runs([run_id], s.env, s.work)
        finally:
            await worker.stop()
    assert statuses[run_id] == "SUCCESS"
    messages = transcript(s.home, run_id)
    assert [m.get("error_message") for m in messages if m.get("stop_reason") == "error"] == []
    results = [m["content"][0]["text"] for m in messages if m["role"] == "tool_result"]
    assert results[0] == INTERRUPTED_CALL
    assert results[1].startswith("Denied by a person (deny_once)")
    assert "done r0" in messages[-1]["content"][0]["text"]
    assert s.model.side_effects() == ["start r0:0"]
