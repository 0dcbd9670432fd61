"""Durable runs against a model that answers by the state of each conversation.

:class:`StatefulModel` is the loopback server whose reply to a request is worked out from that
request alone: a task ``"run R: K steps"`` gets, while fewer than K tool results are in the
conversation, a call of ``bash`` that logs its start and end in ``side.log`` (the side-effect
log), then a final text. So any number of runs, in any order, across any number of worker
restarts, are answered consistently, and every request is kept (the request log). Each reply
carries a serial number, so a transcript shows which request produced each of its turns.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.ai.providers.loopback import LoopbackServer, Request
from tests.cli.support import MODEL, TETHER, environment, text_reply, tool_reply, write_models_toml

TASK = re.compile(r"run (\S+): (\d+) steps(?:, (\d+) wide)?")
"""A run's task: its name, how many turns call ``bash``, and how many calls each such turn
makes at once (a parallel batch; one unless it says)."""
SUMMARY = re.compile(r"summary after (\d+) results")
RESULT = re.compile(r"\[\w+ result(?: \(error\))?\]")


@dataclass(frozen=True)
class Asked:
    """One model request: which run, how many tool results it carried (a summary request:
    how many it summarises), which reply it got, and when it came (``time.monotonic()``)."""

    run: str
    turn: int
    serial: int
    at: float = 0.0
    summary: str | None = None
    """A summary request: the conversation it summarises."""


class _Requests(list[Request]):
    def __init__(self, model: StatefulModel) -> None:
        super().__init__()
        self.model = model

    def append(self, request: Request) -> None:
        super().append(request)
        self.model.answer(request)


class StatefulModel(LoopbackServer):
    def __init__(self, workspace: Path, *, pause: float = 0.0, prefix: str = "") -> None:
        super().__init__()
        self.requests = _Requests(self)
        self.workspace = workspace
        self.pause = pause
        """Seconds each bash call sleeps between its start and end lines."""
        self.prefix = prefix
        """Script each bash call runs first (what the gate then judges too)."""
        self.asked: list[Asked] = []

    def answer(self, request: Request) -> None:
        messages = request.json()["messages"]
        first = next(m for m in messages if m["role"] == "user")
        text = (
            first["content"] if isinstance(first["content"], str) else first["content"][0]["text"]
        )
        found = TASK.search(text)
        assert found, text
        run, steps = found.group(1), int(found.group(2))
        earlier = SUMMARY.search(text)  # a compacted context starts with the newest summary
        before = int(earlier.group(1)) if earlier else 0
        serial = len(self.asked)
        if "<conversation>" in text:  # the compactor asks for a summary
            summarised = before + len(RESULT.findall(text))
            self.asked.append(Asked(run, summarised, serial, time.monotonic(), summary=text))
            reply = f"summary after {summarised} results of run {run}: {steps} steps"
            self.add(text_reply(f"{reply} (summary-{serial})"))
            return
        wide = int(found.group(3) or 1)
        turn = (before + sum(1 for m in messages if m["role"] == "tool")) // wide
        self.asked.append(Asked(run, turn, serial, time.monotonic()))
        if turn < steps:
            calls = []
            for index in range(wide):
                part = f"{turn}{'abcdefgh'[index]}" if wide > 1 else str(turn)
                mark = f"{run}:{part}"
                command = (
                    f"{self.prefix}echo start {mark} >> side.log; sleep {self.pause}; "
                    f"echo end {mark} >> side.log"
                )
                calls.append((f"call_{run}_{part}", "bash", {"command": command}))
            self.add(tool_reply(*calls, text=f"reply-{serial}"))
        else:
            self.add(text_reply(f"done {run} reply-{serial}"))

    def side_effects(self) -> list[str]:
        log = self.workspace / "side.log"
        return log.read_text().splitlines() if log.exists() else []


def prepare_home(home: Path, url: str, context_window: int = 128000) -> None:
    write_models_toml(home, url, context_window=context_window)
    if context_window < 2048:  # a window that small needs answers smaller than 1024 tokens
        models = home / "models.toml"
        models.write_text(models.read_text().replace("max_tokens = 1024", "max_tokens = 64"))


def durable_env(home: Path, db: str | None = None) -> dict[str, str]:
    env = environment(home)
    if db is not None:
        env["TETHER_DB"] = db
    return env


async def tether(*args: str, env: dict[str, str], cwd: Path, timeout: float = 60) -> str:
    """Run ``tether ARGS`` to the end; its stdout (a failure raises with stderr)."""
    process = await asyncio.create_subprocess_exec(
        TETHER,
        *args,
        cwd=str(cwd),
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    if process.returncode != 0:
        raise AssertionError(f"tether {' '.join(args)} exited {process.returncode}: {err.decode()}")
    return out.decode()


class Worker:
    """A ``tether worker`` process, started and waited for until it says it is ready."""

    def __init__(self, queue: str, env: dict[str, str], cwd: Path, *extra: str) -> None:
        self.args = ["worker", "--queue", queue, *extra]
        self.env, self.cwd = env, cwd
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> Worker:
        self.process = await asyncio.create_subprocess_exec(
            TETHER,
            *self.args,
            cwd=str(self.cwd),
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        assert self.process.stderr is not None
        line = await asyncio.wait_for(self.process.stderr.readline(), 60)
        assert b"worker" in line and b"queue" in line, line
        return self

    def kill(self) -> None:
        """``kill -9`` of the worker and everything it started (its tools die with it)."""
        assert self.process is not None
        if self.process.returncode is None:
            os.killpg(self.process.pid, signal.SIGKILL)

    async def stop(self) -> None:
        if self.process is not None:
            self.kill()
            await self.process.wait()


async def wait_for_runs(
    run_ids: list[str], env: dict[str, str], cwd: Path, *, timeout: float = 60
) -> dict[str, str]:
    """Poll ``tether runs list`` until every run has ended; their statuses."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        statuses = run_statuses(await tether("runs", "list", env=env, cwd=cwd))
        done = {r: statuses.get(r, "") for r in run_ids}
        if all(s in ("SUCCESS", "ERROR", "CANCELLED") for s in done.values()):
            return done
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"runs did not end: {done}")
        await asyncio.sleep(0.3)


async def restart_and_finish(
    worker: Worker, run_ids: list[str], queue: str, env: dict[str, str], cwd: Path
) -> dict[str, str]:
    """Kill ``worker`` (``kill -9``), start a fresh one on ``queue``, and wait until the runs
    have ended; their statuses."""
    await worker.stop()
    return await finish_with_a_fresh_worker(run_ids, queue, env, cwd)


async def finish_with_a_fresh_worker(
    run_ids: list[str], queue: str, env: dict[str, str], cwd: Path
) -> dict[str, str]:
    """Start a worker on ``queue``, wait until the runs have ended, stop it; their statuses."""
    fresh = await Worker(queue, env, cwd).start()
    try:
        return await wait_for_runs(run_ids, env, cwd)
    finally:
        await fresh.stop()


def run_statuses(listing: str) -> dict[str, str]:
    rows = [line.split() for line in listing.splitlines()[1:] if line.strip()]
    return {row[0]: row[1] for row in rows}


def transcript(home: Path, run_id: str) -> list[dict[str, Any]]:
    """The messages of a run's session file."""
    path = home / "runs" / f"{run_id}.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]
    return [e["message"] for e in entries if e.get("type") == "message"]


async def submit(task: str, queue: str, env: dict[str, str], cwd: Path, *extra: str) -> str:
    out = await tether(
        "runs",
        "submit",
        "--queue",
        queue,
        "--model",
        MODEL,
        "--tools",
        "read,bash",
        "--no-sandbox",
        "-p",
        task,
        *extra,
        env=env,
        cwd=cwd,
    )
    return out.strip()


@dataclass
class Scene:
    """A durable test's world: the model, ``TETHER_HOME``, the workspace, the environment."""

    model: StatefulModel
    home: Path
    work: Path
    env: dict[str, str]


@asynccontextmanager
async def scene(
    tmp_path: Path,
    *,
    pause: float = 0.0,
    db: str | None = None,
    context_window: int = 128000,
    prefix: str = "",
) -> AsyncIterator[Scene]:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    async with StatefulModel(work, pause=pause, prefix=prefix) as model:
        prepare_home(home, model.url, context_window)
        yield Scene(model, home, work, durable_env(home, db))
