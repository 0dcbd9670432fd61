"""A durable approval: the run parks on the call's digest, outlives its worker, and is resumed
by ``tether runs approve`` from a third process; the answer binds to that call and digest and
is used once; no answer before the expiry is a denial that says so."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from dbos import DBOSClient

from tether.durable import approval_topic

from .support import Scene, Worker, scene, submit, tether, transcript, wait_for_runs


async def wait_for_pending(run_id: str, env: dict[str, str], cwd: Path) -> str:
    for _ in range(300):
        shown = await tether("runs", "show", run_id, env=env, cwd=cwd)
        if "waiting for approval" in shown:
            return shown
        await asyncio.sleep(0.2)
    raise AssertionError(f"run {run_id} never asked: {shown}")


async def refused(*args: str, s: Scene) -> str:
    with pytest.raises(AssertionError) as failure:
        await tether(*args, env=s.env, cwd=s.work)
    return str(failure.value)


async def test_an_approval_outlives_the_worker_and_binds_to_its_call(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        env, work = s.env, s.work
        run_id = await submit("run a: 1 steps", "q", env, work)
        worker = await Worker("q", env, work).start()
        shown = await wait_for_pending(run_id, env, work)
        assert "call call_a_0 (bash)" in shown
        digest = shown.split("digest: ")[1].split()[0]
        await worker.stop()  # kill -9 while the run waits for a person

        worker = await Worker("q", env, work).start()
        try:
            assert "waiting for approval" in await wait_for_pending(run_id, env, work)
            other = await refused("runs", "approve", run_id, "call_x", "allow_once", s=s)
            assert "waits on call call_a_0, not call_x" in other
            stale = await refused(
                "runs", "approve", run_id, "call_a_0", "allow_once", "--digest", "0" * 64, s=s
            )
            assert "not the arguments that were shown" in stale
            client = DBOSClient(system_database_url=f"sqlite:///{s.home / 'durable.sqlite'}")
            try:  # an answer for other arguments, on this call's topic, is discarded
                forged = {"tool_call_id": "call_a_0", "digest": "0" * 64, "decision": "allow_once"}
                client.send(run_id, forged, topic=approval_topic(digest))
            finally:
                client.destroy()
            await asyncio.sleep(1.0)
            assert "waiting for approval" in await wait_for_pending(run_id, env, work)
            assert s.model.side_effects() == []

            said = await tether(
                "runs",
                "approve",
                run_id,
                "call_a_0",
                "allow_once",
                "--digest",
                digest,
                env=env,
                cwd=work,
            )
            assert "allow_once sent for bash call call_a_0" in said
            statuses = await wait_for_runs([run_id], env, work)
        finally:
            await worker.stop()
        again = await refused("runs", "approve", run_id, "call_a_0", "allow_once", s=s)
        assert "not waiting for an approval" in again and "used once" in again
    assert statuses[run_id] == "SUCCESS"
    assert s.model.side_effects() == ["start a:0", "end a:0"]  # ran once
    results = [m for m in transcript(s.home, run_id) if m["role"] == "tool_result"]
    assert len(results) == 1 and not results[0]["is_error"]


async def test_an_unanswered_approval_expires_as_a_denial(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        run_id = await submit("run e: 1 steps", "q", s.env, s.work)
        worker = await Worker("q", s.env, s.work, "--approval-expiry", "1").start()
        try:
            statuses = await wait_for_runs([run_id], s.env, s.work)
        finally:
            await worker.stop()
    assert statuses[run_id] == "SUCCESS"
    assert s.model.side_effects() == []
    results = [m for m in transcript(s.home, run_id) if m["role"] == "tool_result"]
    assert results[0]["is_error"]
    assert "nobody answered the approval before it expired" in results[0]["content"][0]["text"]
