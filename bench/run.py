"""Benchmarks of tether's tool pipeline against its peers, measured side by side in one run.

    python bench/run.py [--reps N] [--no-peers] [--profile] [--out bench/results/pipeline.md]

Runs BENCH.md items 1-2: pipeline overhead (K no-op ``echo`` calls in one assistant message,
with and without two no-op hooks, parallel and sequential, K = 100 and 1000) and parallel speedup
(K tools that each sleep 50 ms). The peers (pydantic-ai, LangGraph, openai-agents, pi's agent
core on Node) come from ``../shared/bench/peers`` (installed there by its ``setup.sh`` on first
use). Prints a table of µs per call and tether/peer ratios, and writes it as Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _tether_calls import measure, measure_gated, parallel_speedup, run_once  # noqa: E402

PEERS_SRC = Path(os.environ.get("TETHER_PEERS_SRC", ROOT.parent / "shared" / "bench" / "peers"))
PEERS_DIR = Path(
    os.environ.get("TETHER_PEERS_DIR", Path(os.environ.get("TMPDIR", "/tmp")) / "tether-peers")
)


def run_peers(k: int, reps: int) -> dict[str, float]:
    if (
        not (PEERS_DIR / "venv" / "bin" / "python").exists()
        or not (PEERS_DIR / "node_modules").exists()
    ):
        print(f"installing peers into {PEERS_DIR} ...", flush=True)
        subprocess.run(["bash", str(PEERS_SRC / "setup.sh"), str(PEERS_DIR)], check=True)
    out = subprocess.run(
        ["bash", str(PEERS_SRC / "run.sh"), str(k), str(reps), str(PEERS_DIR)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures = {}
    for raw in out.splitlines():
        line = raw.strip()
        if line.startswith("{"):
            row = json.loads(line)
            figures[row["peer"]] = float(row["us_per_call"])
    return figures


def run_tether(k: int, reps: int) -> dict[str, float]:
    """tether in fresh processes, exactly as the peers are run (one JSON line each)."""
    figures = {}
    for flags in ([], ["sequential"], ["hooks"], ["hooks", "sequential"]):
        out = subprocess.run(
            [sys.executable, str(HERE / "tether_calls.py"), str(k), str(reps), *flags],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        row = json.loads(out.strip().splitlines()[-1])
        figures[row["peer"]] = float(row["us_per_call"])
    return figures


def profile(out: Path) -> None:
    async def work() -> None:
        await run_once(1000, hooks=True, mode="parallel")
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(5):
            await run_once(1000, hooks=True, mode="parallel")
        profiler.disable()
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(15)
        (out / "profile_cprofile.txt").write_text(buffer.getvalue())

    asyncio.run(work())
    imports = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tether.agent, tether.ai.faux"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = [line for line in imports.splitlines() if "tether" in line or "pydantic " in line]
    (out / "profile_importtime.txt").write_text("\n".join(rows) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--rounds", type=int, default=3, help="tether and the peers alternate this many times"
    )
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "pipeline.md")
    args = parser.parse_args()

    lines = [
        "# Pipeline overhead and parallel speedup",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; each figure is the median "
        f"over {args.rounds} alternating rounds (tether, then every peer) of the median of "
        f"{args.reps} runs after one warm-up; command: `python bench/run.py`.",
        "",
    ]
    for k in (100, 1000):
        rounds: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for name, value in run_tether(k, args.reps).items():
                rounds.setdefault(name, []).append(value)
            if not args.no_peers:
                for name, value in run_peers(k, args.reps).items():
                    rounds.setdefault(name, []).append(value)
        figures = {name: statistics.median(values) for name, values in rounds.items()}
        ours = {name: v for name, v in figures.items() if name.startswith("tether")}
        peers = {name: v for name, v in figures.items() if not name.startswith("tether")}
        lines += [f"## K = {k} calls in one batch", "", "| framework | µs per call |", "|---|---:|"]
        lines += [f"| {name} | {value:.1f} |" for name, value in figures.items()]
        if peers:
            lines += ["", "| ratio (lower is better for tether) | value |", "|---|---:|"]
            plain, hooked = ours["tether parallel"], ours["tether parallel +hooks"]
            if "pi" in peers:
                lines.append(f"| tether parallel / pi | {plain / peers['pi']:.2f} |")
            if "pi+hooks" in peers:
                lines.append(
                    f"| tether parallel +hooks / pi+hooks | {hooked / peers['pi+hooks']:.2f} |"
                )
            python_peers = {n: v for n, v in peers.items() if not n.startswith("pi")}
            for name, value in python_peers.items():
                lines.append(f"| {name} / tether parallel +hooks | {value / hooked:.1f}x slower |")
        lines.append("")
    lines += [
        "## Cost of the governance gate (K = 1000, parallel)",
        "",
        "| configuration | µs per call |",
        "|---|---:|",
    ]
    off = measure(1000, args.reps, hooks=False, mode="parallel")
    noop = measure(1000, args.reps, hooks=True, mode="parallel")
    gate_before = measure_gated(1000, args.reps, redact=False)
    gate_both = measure_gated(1000, args.reps, redact=True)
    lines += [
        f"| gate off (no hooks) | {off:.1f} |",
        f"| two no-op hooks | {noop:.1f} |",
        f"| gate as before hook | {gate_before:.1f} |",
        f"| gate as before + after hook (result redaction) | {gate_both:.1f} |",
        "",
        f"Gate cost per call: {gate_before - off:.1f} µs (before hook), "
        f"{gate_both - off:.1f} µs (both hooks).",
        "",
    ]
    lines += ["## Parallel speedup (K tools each sleeping 50 ms; wall / 50 ms, ideal 1.0)", ""]
    lines += ["| K | wall / 50 ms |", "|---:|---:|"]
    for k in (100, 1000):
        lines.append(f"| {k} | {parallel_speedup(k, args.reps):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    if args.profile:
        profile(args.out.parent)


if __name__ == "__main__":
    main()
