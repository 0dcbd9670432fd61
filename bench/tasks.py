"""Background tasks (BENCH.md item 14): the cost of polling and of starting one.

    python bench/tasks.py [--reps N] [--polls N] [--out bench/results/tasks.md]

- ``task_output`` with nothing new, through the tool's ``execute`` on a running task
  (``sleep``): µs per call, median of the repetitions. Goal ≤ 1 ms.
- Start latency: ``bash(command="echo hi", background=true)`` until its result (the task has
  ended and its first output is in) and ``TaskManager.start`` alone (until the task runs, its
  pid known), each against a foreground ``bash(command="echo hi")`` measured side by side,
  unsandboxed, in one process. Goal ≤ 1.5x.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tether.ai import AbortController
from tether.tools import TaskManager, create_coding_tools
from tether.tools._definition import ToolContext
from tether.tools.operations._local_exec import LocalExecOperations

HERE = Path(__file__).resolve().parent


async def _call(tool, **params):
    return await tool.execute("b", params, AbortController().signal, None, ToolContext("/"))


async def poll_cost(polls: int, reps: int) -> float:
    tasks = TaskManager()
    with tempfile.TemporaryDirectory() as cwd:
        bash, output, *_ = create_coding_tools(cwd, names=("bash",), sandbox=False, tasks=tasks)
        await _call(bash, command="sleep 1000", background=True)
        samples = []
        for _ in range(reps):
            start = time.perf_counter()
            for _ in range(polls):
                await _call(output, task_id="1")
            samples.append((time.perf_counter() - start) / polls * 1e6)
        await tasks.shutdown()
    return statistics.median(samples)


async def start_latency(reps: int) -> dict[str, float]:
    tasks = TaskManager()
    operations = LocalExecOperations()
    with tempfile.TemporaryDirectory() as cwd:
        bash, *_ = create_coding_tools(cwd, names=("bash",), sandbox=False, tasks=tasks)
        foreground, background, running = [], [], []
        for _ in range(reps):
            start = time.perf_counter()
            await _call(bash, command="echo hi")
            foreground.append(time.perf_counter() - start)
            start = time.perf_counter()
            await _call(bash, command="echo hi", background=True)
            background.append(time.perf_counter() - start)
            start = time.perf_counter()
            task = await tasks.start(operations, "echo hi", cwd=cwd)
            running.append(time.perf_counter() - start)
            while task.running:
                await asyncio.sleep(0.001)
        await tasks.shutdown()
    return {
        "foreground_ms": statistics.median(foreground) * 1e3,
        "background_result_ms": statistics.median(background) * 1e3,
        "background_running_ms": statistics.median(running) * 1e3,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--polls", type=int, default=2000)
    parser.add_argument("--out", default=str(HERE / "results" / "tasks.md"))
    options = parser.parse_args()
    await start_latency(2)  # warm-up
    poll = await poll_cost(options.polls, options.reps)
    latency = await start_latency(options.reps * 3)
    fg = latency["foreground_ms"]
    lines = [
        "# Background tasks (BENCH.md item 14)",
        "",
        f"`python bench/tasks.py --reps {options.reps} --polls {options.polls}` on "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; medians.",
        "",
        "| measure | value | goal |",
        "|---|---|---|",
        f"| task_output, nothing new | {poll:.1f} µs per call | ≤ 1000 µs |",
        f"| foreground bash `echo hi` | {fg:.1f} ms | — |",
        f"| bash background `echo hi`, until its result | {latency['background_result_ms']:.1f} ms"
        f" ({latency['background_result_ms'] / fg:.2f}x) | ≤ 1.5x |",
        f"| TaskManager.start, until running (pid known) | "
        f"{latency['background_running_ms']:.1f} ms "
        f"({latency['background_running_ms'] / fg:.2f}x) | — |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(options.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
