"""Benchmark of the shell policy (BENCH.md item 17): ``classify`` time over the test corpora.

    .venv/bin/python bench/shell_policy.py [--repeat N] [--out bench/results/shell_policy.md]

Every command of ``tests/gate``'s corpora (the red-team attacks of issues 9 and 18 with the
leaks, real-world and still-allowed lists of issue 18, the benign commands, the policy corpus),
the tldr-pages corpus of real commands (``bench/corpora/tldr.txt``, made by
``bench/tldr_corpus.py``) and the pathological inputs of issue 18 (a glob through the whole
filesystem, nested loops, a doubling variable, deep substitutions, and inputs that load the
readers of point 7: hundreds of functions, links, globs, options) is classified ``--repeat``
times (default 5) by one :class:`~tether.gate.ShellPolicy` whose workspace is a scratch
directory, after one untimed warm-up pass. Reported: the allow / approve / deny count, p50, p99
and max per corpus and overall, and the slowest commands with their decisions. ``--denied
CORPUS`` lists that corpus's denied commands (the false-deny review). Goal: p99 ≤ 5 ms, max ≤
100 ms. Figures only, never asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "gate"))

import shell_attacks_18  # noqa: E402
from shell_attacks import ATTACKS, BENIGN, PATHOLOGICAL  # noqa: E402
from shell_corpus import CORPUS  # noqa: E402

from tether.gate import PathPolicy, ShellPolicy  # noqa: E402


def _pace() -> str:
    """This machine's pace against the one the budget was set on (commits before it: none)."""
    try:
        from tether.gate._shell._pace import machine_pace
    except ImportError:
        return "no pace (the budget counts this machine's milliseconds)"
    return f"pace {machine_pace():.2f} (the budget's 40 ms last {40 * machine_pace():.0f} ms here)"


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--denied", metavar="CORPUS", default=None)
    options = parser.parse_args()
    tldr = (ROOT / "bench" / "corpora" / "tldr.txt").read_text().splitlines()
    corpora = {
        "attacks": [command for command, _, _ in ATTACKS],
        "benign": list(BENIGN),
        "corpus": [command for command, _, _ in CORPUS],
        "attacks-18": [command for command, _, _ in shell_attacks_18.ATTACKS]
        + [command for command, _ in shell_attacks_18.LEAKS]
        + shell_attacks_18.REAL_WORLD
        + shell_attacks_18.STILL_ALLOWED,
        "tldr": [line for line in tldr if line and not line.startswith("# tldr-pages")],
        "pathological": [command for command, _ in PATHOLOGICAL]
        + [command for command, _ in shell_attacks_18.PATHOLOGICAL]
        + [command for command, _ in shell_attacks_18.PADDED_PAYLOADS],
    }
    with tempfile.TemporaryDirectory() as workspace:
        (Path(workspace) / "README.md").write_text("hello\n")
        policy = ShellPolicy(PathPolicy(workspace))
        for commands in corpora.values():
            for command in commands:
                policy.classify(command)
        timings: dict[str, list[tuple[float, str, str]]] = {}
        cpu_times: dict[str, list[float]] = {}
        for name, commands in corpora.items():
            for _ in range(options.repeat):
                for command in commands:
                    started, cpu = time.perf_counter(), time.thread_time()
                    decision = policy.classify(command).decision
                    elapsed = (time.perf_counter() - started) * 1000
                    spent = (time.thread_time() - cpu) * 1000
                    timings.setdefault(name, []).append((elapsed, command, decision))
                    cpu_times.setdefault(command, []).append(spent)
    lines = [
        "# Shell policy: classify time (BENCH.md item 17)",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at the end, repeat {options.repeat}, {_pace()}; "
        "goal p99 ≤ 5 ms, max ≤ 100 ms.",
        "",
        "The CPU columns take each command's least CPU time over the repeats (what it costs, "
        "not what the other load of a shared machine added to the wall-clock columns).",
        "",
        "| corpus | commands | allow | approve | deny | p50 ms | p99 ms | max ms "
        "| CPU p99 ms | CPU max ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    everything = [entry for entries in timings.values() for entry in entries]
    for name, entries in [*timings.items(), ("all", everything)]:
        values = [elapsed for elapsed, _, _ in entries]
        count = len(entries) // options.repeat
        decided = Counter(decision for _, _, decision in entries[: len(entries)])
        shares = " | ".join(str(decided[d] // options.repeat) for d in ("allow", "approve", "deny"))
        best = {command: min(cpu_times[command]) for _, command, _ in entries}
        lines.append(
            f"| {name} | {count} | {shares} | {statistics.median(values):.2f} | "
            f"{_percentile(values, 0.99):.2f} | {max(values):.2f} | "
            f"{_percentile(list(best.values()), 0.99):.2f} | {max(best.values()):.2f} |"
        )
    lines += ["", "Slowest:", ""]
    slowest: dict[str, tuple[float, str]] = {}
    for elapsed, command, decision in everything:
        if elapsed > slowest.get(command, (0.0, ""))[0]:
            slowest[command] = (elapsed, decision)
    for command, (elapsed, decision) in sorted(slowest.items(), key=lambda i: -i[1][0])[:8]:
        lines.append(f"- {elapsed:.1f} ms {decision}: `{command[:70]!r}`")
    if options.denied:
        denied = sorted({c for _, c, d in timings[options.denied] if d == "deny"})
        lines += ["", f"Denied in {options.denied}:", "", *(f"- `{c}`" for c in denied)]
    report = "\n".join(lines) + "\n"
    print(report)
    if options.out is not None:
        options.out.write_text(report)


if __name__ == "__main__":
    main()
