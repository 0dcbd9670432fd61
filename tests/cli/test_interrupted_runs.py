"""``kill -9`` at random points of a run with parallel batches, then ``-c``: every call that had
started ends with its real result or as *interrupted* (never "not executed"), and nothing runs
again on resume unless the model asks for it."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

from tests.ai.providers.loopback import LoopbackServer

from tether.ai import NO_RESULT_RECORDED, ToolResultMessage
from tether.session import INTERRUPTED_CALL, NOT_STARTED_CALL, CustomEntry, Session

from .support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)

TRIALS = 20


def batch(turn: int, size: int) -> list[tuple[str, str, dict]]:
    return [
        (f"t{turn}c{n}", "bash", {"command": f"echo t{turn}c{n} >> side.log; sleep 0.15"})
        for n in range(size)
    ]


async def killed_run(home: Path, project: Path, calls_before: int, delay: float) -> None:
    """Kill tether ``delay`` seconds after the ``calls_before``-th call wrote its side effect
    (0: after start-up), so the kill points follow the run's progress, not the machine's speed:
    a call sleeps 0.15 s after its write, so a short ``delay`` lands in the middle of calls."""
    replies = [tool_reply(*batch(1, 3)), tool_reply(*batch(2, 2)), text_reply("all done")]
    side_log = project / "side.log"
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "-p", "run the steps", "--model", MODEL, "--tools", "bash", "--gate", "yolo",
            "--no-sandbox", cwd=str(project), env=environment(home),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        # no wait_for on process.wait(): a timeout racing the exit cancels the shared waiter
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        while process.returncode is None and loop.time() < deadline:
            written = len(side_log.read_text().split()) if side_log.exists() else 0
            if written >= calls_before and (calls_before or list(home.rglob("*.jsonl"))):
                break
            await asyncio.sleep(0.005)
        await asyncio.sleep(delay)
        if process.returncode is None:
            process.kill()  # SIGKILL: nothing of tether's runs after this
        await process.wait()


async def test_a_killed_run_resumes_with_every_started_call_answered_honestly(
    tmp_path: Path,
) -> None:
    rng = random.Random(20)
    interrupted = 0
    for trial in range(TRIALS):
        home, project = tmp_path / f"home{trial}", tmp_path / f"project{trial}"
        project.mkdir()
        await killed_run(home, project, rng.randint(0, 5), rng.uniform(0.0, 0.2))
        if not list(home.rglob("*.jsonl")):
            continue  # killed before the first entry: nothing to resume
        async with LoopbackServer([text_reply("resumed")]) as server:
            write_models_toml(home, server.url)
            done = await run_tether(
                "-c", "-p", "go on", "--model", MODEL, "--tools", "bash", "--gate", "yolo",
                "--no-sandbox", home=home, cwd=project,
            )  # fmt: skip
        assert done.code == 0, done.stderr
        (path,) = home.rglob("*.jsonl")
        session = Session.load(str(path))
        started = {
            entry.data["tool_call_id"]
            for entry in session.entries
            if isinstance(entry, CustomEntry) and entry.custom_type == "tool_call_started"
        }
        results = {
            m.tool_call_id: m for m in session.messages() if isinstance(m, ToolResultMessage)
        }
        ran = (project / "side.log").read_text().split() if (project / "side.log").exists() else []
        assert len(ran) == len(set(ran)), f"trial {trial}: a call ran twice: {ran}"
        for call_id in ran:
            assert call_id in started, f"trial {trial}: {call_id} ran without being recorded"
        for call_id, result in results.items():
            text = "".join(b.text for b in result.content if b.type == "text")
            if call_id in started:
                assert NOT_STARTED_CALL not in text, f"trial {trial}: {call_id} began"
                interrupted += text == INTERRUPTED_CALL
            else:
                assert text == NOT_STARTED_CALL, f"trial {trial}: {call_id}: {text}"
        # the resumed request answered every call from the session, nothing made up
        sent = json.dumps(server.requests[0].json()["messages"])
        assert NO_RESULT_RECORDED not in sent
        assert all(call_id in results for call_id in started)
    assert interrupted > 0  # the sweep did catch calls mid-flight
