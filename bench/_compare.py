"""What the two-way benchmarks (``remote.py``, ``hands.py``) share: timing a round of calls and
the table row of one operation measured both ways."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

__all__ = ["comparison_row", "mean_ms", "run_comparison"]


async def mean_ms(call: Callable[[], Awaitable[object]], calls: int) -> float:
    """Mean milliseconds per call of ``calls`` sequential calls."""
    started = time.perf_counter()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - started) * 1000 / calls


def comparison_row(name: str, ways: dict[str, list[float]], ours: str, theirs: str) -> str:
    """``| name | median (min-max) | median (min-max) | ratio |`` of the rounds of both ways."""
    mine, other = statistics.median(ways[ours]), statistics.median(ways[theirs])

    def cell(values: list[float], median: float) -> str:
        return f"{median:.2f} ({min(values):.2f}-{max(values):.2f})"

    return (
        f"| {name} | {cell(ways[ours], mine)} | {cell(ways[theirs], other)} | {mine / other:.2f} |"
    )


def run_comparison(
    description: str,
    out_name: str,
    measure: Callable[[int, int, Path], Awaitable[dict[str, dict[str, list[float]]]]],
    report: Callable[[dict[str, dict[str, list[float]]], int, int], str],
) -> None:
    """The command line of a two-way benchmark: ``--calls``, ``--rounds``, ``--out``; the
    measurement runs in a scratch directory and the report is written and printed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / out_name))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        results = asyncio.run(measure(options.calls, options.rounds, Path(scratch)))
    text = report(results, options.calls, options.rounds)
    Path(options.out).write_text(text)
    print(text)
