"""A client attached to ``tether --mode rpc`` answers a durable run's approval: ``run_pending``
shows the call the run waits on and its digest; ``run_approval`` is refused for another digest,
taken once for the right one (the call then runs once), and refused when sent again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.durable.support import Worker, scene, submit, wait_for_runs

from .support import MODEL, TETHER
from .test_rpc_mode import RpcProcess


def response_to(command: str):
    return lambda event: event["type"] == "response" and event["command"] == command


async def test_an_rpc_client_answers_a_durable_runs_approval_once(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        run_id = await submit("run a: 1 steps", "q", s.env, s.work)
        worker = await Worker("q", s.env, s.work).start()
        process = await asyncio.create_subprocess_exec(
            TETHER,
            "--mode",
            "rpc",
            "--model",
            MODEL,
            cwd=str(s.work),
            env=s.env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        rpc = RpcProcess(process)
        try:
            for _ in range(150):
                await rpc.send({"type": "run_pending", "run": run_id})
                shown = await rpc.next_matching(response_to("run_pending"))
                assert shown["success"], shown
                if shown["pending"]:
                    break
                await asyncio.sleep(0.2)
            [pending] = shown["pending"]
            assert (pending["tool_call_id"], pending["tool_name"]) == ("call_a_0", "bash")
            answer = {"type": "run_approval", "run": run_id, "call": "call_a_0"}
            await rpc.send({**answer, "decision": "allow_once", "digest": "0" * 64})
            other = await rpc.next_matching(response_to("run_approval"))
            assert not other["success"] and "not the arguments that were shown" in other["error"]
            await rpc.send({**answer, "decision": "allow_once", "digest": pending["digest"]})
            taken = await rpc.next_matching(response_to("run_approval"))
            assert taken["success"], taken
            statuses = await wait_for_runs([run_id], s.env, s.work)
            await rpc.send({**answer, "decision": "allow_once", "digest": pending["digest"]})
            again = await rpc.next_matching(response_to("run_approval"))
            assert not again["success"] and "used once" in again["error"]
            await rpc.send({"type": "run_approval", "run": run_id, "call": "call_a_0"})
            incomplete = await rpc.next_matching(response_to("run_approval"))
            assert not incomplete["success"] and '"decision" must be' in incomplete["error"]
            assert await rpc.close() == 0
        finally:
            if process.returncode is None:
                process.kill()
            await worker.stop()
    assert statuses[run_id] == "SUCCESS"
    assert s.model.side_effects() == ["start a:0", "end a:0"]  # allowed, and ran once
