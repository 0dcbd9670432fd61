"""Benchmarks of tether's built-in tools (BENCH.md items 3-6), each beside its plain peer.

    .venv/bin/python bench/tools.py [--quick] [--profile] [--tree DIR ...]
                                    [--out bench/results/tools.md]

3. read: the first 2,000 lines (``limit=2000``) of a 10 MB and of a 1 GB text file of 100-byte
   lines: wall time and peak RSS, and their 1 GB / 10 MB ratio (flat means ~1.0). The files are
   generated once under ``$TMPDIR/tether-bench/`` and reused while their size is right.
4. bash: ``head -c 1000000000 /dev/zero | tr '\\0' 'a' | fold -w 100`` (1.01 GB of output)
   through the bash tool: throughput and peak RSS of the tether process; the spill file must hold
   every byte (it is deleted afterwards). Peers: the same command run with ``subprocess``
   ``> /dev/null``, into a file, and into a pipe that Python reads and discards.
5. grep / find over a large tree (default: this interpreter's site-packages, plus, when the peers
   are installed under ``$TMPDIR/tether-peers``, their site-packages and that whole folder with
   its Node packages): the grep tool (``def __init__``,
   limit 100000 and the default 100) and the find tool (``**/*.py``, limit 1000000) against ``rg``
   run directly with the equivalent flags, its output read fully from a pipe; also against ``rg``
   with exactly the argv tether uses, which separates tether's Python cost from its flag choice.
6. edit: 100 disjoint one-line edits in one call on a 10 MB file of unique lines, against a
   plain loop of 100 ``str.replace(old, new, 1)`` (read, replace, write).

Every measurement runs in a fresh subprocess of this script (so the peak RSS,
``getrusage(RUSAGE_SELF).ru_maxrss``, is that case's own) and times only the call itself, not the
interpreter start. Reported figures are medians of 3 runs (1 with ``--quick``; 5x as many for
read, grep and find, whose cases take milliseconds), tether and peer
runs interleaved, after one untimed warm-up run of the cheap cases. ``--profile`` adds one more run
of each tether case under cProfile (not counted in the figures) and writes its top functions to
``profile_tools_<case>.txt`` beside the ``--out`` file.
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
import resource
import shlex
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tether.tools.operations._ripgrep import (
    RG_COMMON_ARGS,
    RG_EXCLUDE_GIT_DIR,
    RG_EXCLUDE_SECRETS,
    RG_GREP_OUTPUT_ARGS,
    RipgrepGlobFilter,
    _find_args,
    _path_args,
)

HERE = Path(__file__).resolve().parent
TMP = Path(os.environ.get("TMPDIR") or "/tmp")
DATA = TMP / "tether-bench"
RG = os.path.join(sysconfig.get_path("scripts"), "rg")
PEERS = TMP / "tether-peers"  # made by ../shared/bench/peers/setup.sh
PEERS_SITE = PEERS / "venv" / "lib" / "python3.11" / "site-packages"

LINE_BYTES = 100
READ_FILES = {"10 MB": 10_000_000, "1 GB": 1_000_000_000}
BASH_COMMAND = "head -c 1000000000 /dev/zero | tr '\\0' 'a' | fold -w 100"
BASH_BYTES = 1_000_000_000 + 1_000_000_000 // 100 - 1  # fold puts no newline after the last line
GREP_PATTERN = "def __init__"
EDIT_LINES = 100_000  # x 100 bytes = 10 MB
EDIT_COUNT = 100
FAST_REPS_FACTOR = 5  # for the cases that take milliseconds, where noise weighs most

# rg as the task describes it, and as tether's RipgrepOperations actually runs it.
RG_GREP = ["--json", "--hidden", "--no-require-git", "-e", GREP_PATTERN]
RG_GREP_TETHER = [
    *RG_GREP_OUTPUT_ARGS,
    *RG_COMMON_ARGS,
    *RG_EXCLUDE_GIT_DIR,
    *RG_EXCLUDE_SECRETS,
    "--regexp",
    GREP_PATTERN,
    *_path_args("."),
]
RG_FIND = ["--files", "--hidden", "--no-require-git", "--glob", "*.py"]
RG_FIND_TETHER = _find_args(RipgrepGlobFilter.for_glob("**/*.py", searching_directory=True), ".")


# --------------------------------------------------------------------------------------------
# Child side: one case per process, printing one JSON line.


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process and by its reaped children (rg)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime


def _cpu_since(before: tuple[float, float]) -> dict[str, float]:
    now = _cpu()
    return {"cpu_self": now[0] - before[0], "cpu_rg": now[1] - before[1]}


def _run_tool(tool: Any, params: dict[str, Any], cwd: str, profile_to: str | None) -> Any:
    """Call ``tool.execute`` once on a fresh event loop; returns ``(result, seconds)``."""
    from tether.ai import AbortController
    from tether.tools import ToolContext

    async def call() -> tuple[Any, float]:
        signal = AbortController().signal
        profiler = cProfile.Profile() if profile_to else None
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        result = await tool.execute("bench", params, signal, None, ToolContext(cwd))
        if profiler is not None:
            profiler.disable()
        elapsed = time.perf_counter() - start
        if profiler is not None and profile_to:
            buffer = io.StringIO()
            stats = pstats.Stats(profiler, stream=buffer)
            stats.sort_stats("cumulative").print_stats(25)
            stats.sort_stats("tottime").print_stats(15)
            Path(profile_to).write_text(buffer.getvalue())
        return result, elapsed

    return asyncio.run(call())


def child_read(path: str, profile_to: str | None = None) -> dict[str, Any]:
    from tether.tools import create_read_tool

    cwd = os.path.dirname(path)
    tool = create_read_tool(cwd)
    rss_before = _peak_rss_mb()
    result, wall = _run_tool(tool, {"path": path, "limit": 2000}, cwd, profile_to)
    return {
        "wall": wall,
        "rss": _peak_rss_mb(),
        "rss_before": rss_before,
        "lines": result.details["end_line"],
        "chars": len(result.content[0].text),
    }


def child_bash(profile_to: str | None = None) -> dict[str, Any]:
    from tether.tools import create_bash_tool

    tool = create_bash_tool(str(TMP))
    rss_before = _peak_rss_mb()
    result, wall = _run_tool(tool, {"command": BASH_COMMAND}, str(TMP), profile_to)
    spill = result.details["full_output_path"]
    spilled = os.path.getsize(spill) if spill else 0
    if spill:
        os.unlink(spill)
    return {
        "wall": wall,
        "rss": _peak_rss_mb(),
        "rss_before": rss_before,
        "spilled": spilled,
        "shown": len(result.content[0].text),
    }


def child_bash_direct(mode: str) -> dict[str, Any]:
    start = time.perf_counter()
    if mode == "devnull":
        subprocess.run(["bash", "-c", BASH_COMMAND + " > /dev/null"], check=True)
        total = BASH_BYTES
    elif mode == "file":
        target = DATA / f"bash-direct-{os.getpid()}.out"
        subprocess.run(["bash", "-c", f"{BASH_COMMAND} > {target}"], check=True)
        total = target.stat().st_size
        wall = time.perf_counter() - start
        target.unlink()
        return {"wall": wall, "rss": _peak_rss_mb(), "bytes": total}
    else:  # a pipe read and discarded by Python
        total = 0
        with subprocess.Popen(["bash", "-c", BASH_COMMAND], stdout=subprocess.PIPE) as process:
            assert process.stdout is not None
            while chunk := process.stdout.read1(64 * 1024):
                total += len(chunk)
    return {"wall": time.perf_counter() - start, "rss": _peak_rss_mb(), "bytes": total}


def child_grep(tree: str, limit: int, profile_to: str | None = None) -> dict[str, Any]:
    from tether.tools import create_grep_tool

    tool = create_grep_tool(tree)
    rss_before = _peak_rss_mb()
    params = {"pattern": GREP_PATTERN, "limit": limit}
    cpu = _cpu()
    result, wall = _run_tool(tool, params, tree, profile_to)
    return {
        "wall": wall,
        "rss": _peak_rss_mb(),
        "rss_before": rss_before,
        "count": result.details["match_count"],
        **_cpu_since(cpu),
    }


def child_find(tree: str, profile_to: str | None = None) -> dict[str, Any]:
    from tether.tools import create_find_tool

    tool = create_find_tool(tree)
    rss_before = _peak_rss_mb()
    params = {"pattern": "**/*.py", "limit": 1_000_000}
    cpu = _cpu()
    result, wall = _run_tool(tool, params, tree, profile_to)
    return {
        "wall": wall,
        "rss": _peak_rss_mb(),
        "rss_before": rss_before,
        "count": result.details["count"],
        **_cpu_since(cpu),
    }


def child_rg(tree: str, argv: list[str], kind: str) -> dict[str, Any]:
    cpu = _cpu()
    start = time.perf_counter()
    completed = subprocess.run(
        [RG, *argv], cwd=tree, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - start
    used = _cpu_since(cpu)
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"rg exited with {completed.returncode}")
    out = completed.stdout
    if kind == "grep":
        count = out.count(b'{"type":"match"') if "--json" in argv else out.count(b"\n")
    else:
        count = out.count(b"\0") if "--null" in argv else out.count(b"\n")
    return {"wall": wall, "rss": _peak_rss_mb(), "count": count, "bytes": len(out), **used}


def _edit_text() -> tuple[str, list[tuple[str, str]]]:
    """10 MB of unique 100-byte lines, and 100 edits each replacing one line, spread evenly."""
    filler = "abcdefghijklmnopqrstuvwxyz0123456789 " * 4
    lines = [f"line {i:07d}: {filler[i % 37 : i % 37 + 85]}\n" for i in range(EDIT_LINES)]
    step = EDIT_LINES // EDIT_COUNT
    edits = []
    for k in range(EDIT_COUNT):
        old = lines[k * step + step // 2].rstrip("\n")
        edits.append((old, old.replace("line", "LINE", 1) + "  # edited"))
    return "".join(lines), edits


def _expected_after(text: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        text = text.replace(old, new, 1)
    return text


def child_edit(profile_to: str | None = None) -> dict[str, Any]:
    from tether.tools import create_edit_tool

    text, edits = _edit_text()
    path = DATA / f"edit-tether-{os.getpid()}.txt"
    path.write_text(text)
    tool = create_edit_tool(str(DATA))
    params = {"path": str(path), "edits": [{"old_text": o, "new_text": n} for o, n in edits]}
    rss_before = _peak_rss_mb()
    result, wall = _run_tool(tool, params, str(DATA), profile_to)
    ok = path.read_text() == _expected_after(text, edits)
    path.unlink()
    return {
        "wall": wall,
        "rss": _peak_rss_mb(),
        "rss_before": rss_before,
        "ok": ok,
        "diff_lines": result.details["diff"].count("\n"),
    }


def child_edit_plain() -> dict[str, Any]:
    text, edits = _edit_text()
    path = DATA / f"edit-plain-{os.getpid()}.txt"
    path.write_text(text)
    del text
    rss_before = _peak_rss_mb()
    start = time.perf_counter()
    content = path.read_bytes().decode("utf-8")
    for old, new in edits:
        content = content.replace(old, new, 1)
    path.write_bytes(content.encode("utf-8"))
    wall = time.perf_counter() - start
    path.unlink()
    return {"wall": wall, "rss": _peak_rss_mb(), "rss_before": rss_before}


CHILD_CASES: dict[str, Callable[..., dict[str, Any]]] = {
    "read": child_read,
    "bash": child_bash,
    "bash_direct": child_bash_direct,
    "grep": child_grep,
    "find": child_find,
    "rg": child_rg,
    "edit": child_edit,
    "edit_plain": child_edit_plain,
}


# --------------------------------------------------------------------------------------------
# Parent side: files, repetitions, tables.


def run_child(case: str, **kwargs: Any) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, __file__, "--child", case, json.dumps(kwargs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"case {case} {kwargs} failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key, value in runs[0].items():
        values = [run[key] for run in runs]
        if isinstance(value, bool) or not isinstance(value, int | float):
            merged[key] = values[0] if all(v == values[0] for v in values) else values
        else:
            merged[key] = statistics.median(values)
    return merged


def measure(
    cases: dict[str, tuple[str, dict[str, Any]]], reps: int, *, warm_up: bool
) -> dict[str, dict[str, Any]]:
    """Run every case ``reps`` times, interleaved, each in a fresh process; medians per case."""
    if warm_up:
        for case, kwargs in cases.values():
            run_child(case, **kwargs)
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in cases}
    for _ in range(reps):
        for label, (case, kwargs) in cases.items():
            runs[label].append(run_child(case, **kwargs))
    return {label: medians(values) for label, values in runs.items()}


def ensure_text_file(size: int) -> Path:
    """A file of ``size`` bytes of numbered 100-byte lines, made once and reused."""
    path = DATA / f"lines-{size}.txt"
    if path.exists() and path.stat().st_size == size:
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    print(f"generating {path} ...", flush=True)
    filler = "the quick brown fox jumps over the lazy dog; " * 3
    partial = path.with_suffix(".partial")
    block = 10_000
    with partial.open("w") as handle:
        for first in range(0, size // LINE_BYTES, block):
            handle.write(
                "".join(
                    f"{i:09d} {filler[i % 45 : i % 45 + 89]}\n" for i in range(first, first + block)
                )
            )
    partial.rename(path)
    assert path.stat().st_size == size, path.stat().st_size
    return path


def profile(
    args: argparse.Namespace, cases: dict[str, tuple[str, dict[str, Any]]], names: dict[str, str]
) -> None:
    """With ``--profile``: one more, untimed run of each named case under cProfile."""
    if not args.profile:
        return
    for label, name in names.items():
        case, kwargs = cases[label]
        run_child(case, **kwargs, profile_to=str(args.out.parent / f"profile_tools_{name}.txt"))


def bench_read(args: argparse.Namespace) -> list[str]:
    files = {label: ensure_text_file(size) for label, size in READ_FILES.items()}
    cases = {label: ("read", {"path": str(path)}) for label, path in files.items()}
    reps = args.reps * FAST_REPS_FACTOR
    results = measure(cases, reps, warm_up=not args.quick)
    profile(args, cases, {"10 MB": "read_10MB", "1 GB": "read_1GB"})
    small, large = results["10 MB"], results["1 GB"]
    lines = [
        "## 3. read: first 2,000 lines (`limit=2000`) of a text file of 100-byte lines",
        "",
        f"Median of {reps} runs per file.",
        "",
        "| file | wall ms | peak RSS MB | RSS MB before the call | lines returned |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, row in results.items():
        lines.append(
            f"| {label} | {row['wall'] * 1e3:.2f} | {row['rss']:.1f} | "
            f"{row['rss_before']:.1f} | {row['lines']} |"
        )
    lines += [
        "",
        f"Ratio 1 GB / 10 MB: wall {large['wall'] / small['wall']:.2f}, "
        f"peak RSS {large['rss'] / small['rss']:.2f} (flat = 1.0). Lines returned stop at the "
        "50 KiB output cap (2,000 lines of 100 bytes would be 200 KB).",
        "",
    ]
    return lines


def bench_bash(args: argparse.Namespace) -> list[str]:
    DATA.mkdir(parents=True, exist_ok=True)
    cases = {
        "tether bash tool": ("bash", {}),
        "subprocess, `> /dev/null`": ("bash_direct", {"mode": "devnull"}),
        "subprocess, `> file`": ("bash_direct", {"mode": "file"}),
        "subprocess, pipe read by Python": ("bash_direct", {"mode": "pipe"}),
    }
    results = measure(cases, args.reps, warm_up=False)
    profile(args, cases, {"tether bash tool": "bash"})
    ours = results["tether bash tool"]
    mb = BASH_BYTES / 1e6
    lines = [
        f"## 4. bash: `{BASH_COMMAND}` ({mb:,.0f} MB of output)",
        "",
        "| run | wall s | MB/s | peak RSS MB (this process) | tether / this throughput |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, row in results.items():
        throughput = mb / row["wall"]
        relative = (mb / ours["wall"]) / throughput
        lines.append(
            f"| {label} | {row['wall']:.2f} | {throughput:.0f} | {row['rss']:.1f} | "
            f"{relative:.2f} |"
        )
    spilled = ours["spilled"]
    verdict = "complete" if spilled == BASH_BYTES else f"INCOMPLETE (expected {BASH_BYTES:,})"
    lines += [
        "",
        f"Spill file: {spilled:,} bytes, {verdict}; deleted after each run. "
        f"tether RSS before the call: {ours['rss_before']:.1f} MB. "
        f"The model is shown {ours['shown']:,} characters.",
        "",
    ]
    return lines


def default_trees() -> list[Path]:
    trees = [Path(sysconfig.get_path("purelib"))]
    if PEERS_SITE.is_dir():  # the peers' Python packages, then those and their Node packages
        trees += [PEERS_SITE, PEERS]
    return trees


def bench_search(args: argparse.Namespace) -> list[str]:
    reps = args.reps * FAST_REPS_FACTOR
    lines = [
        "## 5. grep / find against `rg` run directly",
        "",
        f"Median of {reps} runs per case.",
        "",
    ]
    for number, tree in enumerate(args.tree or default_trees()):
        root = str(tree.resolve())
        cases = {
            "grep limit 100000": ("grep", {"tree": root, "limit": 100_000}),
            "grep limit 100": ("grep", {"tree": root, "limit": 100}),
            "rg grep": ("rg", {"tree": root, "argv": RG_GREP, "kind": "grep"}),
            "rg grep, tether argv": ("rg", {"tree": root, "argv": RG_GREP_TETHER, "kind": "grep"}),
            "find": ("find", {"tree": root}),
            "rg find": ("rg", {"tree": root, "argv": RG_FIND, "kind": "find"}),
            "rg find, tether argv": ("rg", {"tree": root, "argv": RG_FIND_TETHER, "kind": "find"}),
        }
        r = measure(cases, reps, warm_up=True)
        profile(args, cases, {"grep limit 100000": f"grep_{number}", "find": f"find_{number}"})
        files = subprocess.run(
            [RG, "--files", "--hidden", "--no-require-git"],
            cwd=root,
            capture_output=True,
            check=False,
        ).stdout.count(b"\n")
        lines += [
            f"Tree `{root}` ({files:,} files).",
            "",
            "| tool call | results | wall ms | peak RSS MB | rg direct ms | tether / rg "
            "(target ≤ 1.3) | rg, tether argv ms | tether / rg with its argv |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        rows = [
            ("grep `def __init__` limit 100000", r["grep limit 100000"], "rg grep"),
            ("grep `def __init__` limit 100 (default)", r["grep limit 100"], "rg grep"),
            ("find `**/*.py` limit 1000000", r["find"], "rg find"),
        ]
        for label, row, peer in rows:
            direct, same_argv = r[peer], r[f"{peer}, tether argv"]
            lines.append(
                f"| {label} | {row['count']:,} | {row['wall'] * 1e3:.1f} | {row['rss']:.1f} | "
                f"{direct['wall'] * 1e3:.1f} | {row['wall'] / direct['wall']:.2f} | "
                f"{same_argv['wall'] * 1e3:.1f} | {row['wall'] / same_argv['wall']:.2f} |"
            )
        lines += [
            "",
            "| run | wall ms | CPU ms of the Python process | CPU ms of rg |",
            "|---|---:|---:|---:|",
        ]
        for label, row in r.items():
            lines.append(
                f"| {label} | {row['wall'] * 1e3:.1f} | {row['cpu_self'] * 1e3:.1f} | "
                f"{row['cpu_rg'] * 1e3:.1f} |"
            )
        lines += [
            "",
            f"rg direct found {r['rg grep']['count']:,} matches "
            f"({r['rg grep']['bytes'] / 1e6:.1f} MB of JSON) and {r['rg find']['count']:,} files "
            f"(with tether's argv: {r['rg grep, tether argv']['count']:,} matches, "
            f"{r['rg find, tether argv']['count']:,} files).",
            "",
        ]
    lines += [
        f"rg direct: `{shlex.join(['rg', *RG_GREP])}` and `{shlex.join(['rg', *RG_FIND])}`; "
        f"tether argv: `{shlex.join(['rg', *RG_GREP_TETHER])}` and "
        f"`{shlex.join(['rg', *RG_FIND_TETHER])}`; run in the tree, stdout read fully from a pipe. "
        "find's argv has no `--glob '!.git'`: tether drops paths with a `.git` component itself.",
        "",
    ]
    return lines


def bench_edit(args: argparse.Namespace) -> list[str]:
    DATA.mkdir(parents=True, exist_ok=True)
    cases = {
        "tether edit tool": ("edit", {}),
        "plain str.replace loop": ("edit_plain", {}),
    }
    r = measure(cases, args.reps, warm_up=not args.quick)
    profile(args, cases, {"tether edit tool": "edit"})
    ours, plain = r["tether edit tool"], r["plain str.replace loop"]
    return [
        f"## 6. edit: {EDIT_COUNT} disjoint one-line edits in one call, "
        f"10 MB file ({EDIT_LINES:,} unique lines)",
        "",
        "| run | wall ms | peak RSS MB | RSS MB before the call |",
        "|---|---:|---:|---:|",
        f"| tether edit tool | {ours['wall'] * 1e3:.1f} | {ours['rss']:.1f} | "
        f"{ours['rss_before']:.1f} |",
        f"| read + {EDIT_COUNT} x `str.replace(old, new, 1)` + write | "
        f"{plain['wall'] * 1e3:.1f} | {plain['rss']:.1f} | {plain['rss_before']:.1f} |",
        "",
        f"Ratio tether / plain: {ours['wall'] / plain['wall']:.2f}. The file after the tool "
        f"call equals the plain loop's result: {ours['ok']}. The tool also writes atomically "
        f"with fsync and returns a unified diff ({ours['diff_lines']:.0f} lines).",
        "",
    ]


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(CHILD_CASES[sys.argv[2]](**json.loads(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1 run per case, fewer warm-ups")
    parser.add_argument("--profile", action="store_true", help="cProfile each tether case")
    parser.add_argument("--tree", type=Path, action="append", help="tree for grep/find")
    parser.add_argument("--only", choices=["read", "bash", "search", "edit"], action="append")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "tools.md")
    args = parser.parse_args()
    args.reps = 1 if args.quick else 3
    args.out.parent.mkdir(parents=True, exist_ok=True)

    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    sections = {"read": bench_read, "bash": bench_bash, "search": bench_search, "edit": bench_edit}
    body: list[str] = []
    for name, bench in sections.items():
        if args.only and name not in args.only:
            continue
        section = bench(args)
        print("\n".join(section), flush=True)
        body += section
    load_after = os.getloadavg()
    header = [
        "# Tool benchmarks (BENCH.md items 3-6)",
        "",
        f"Run {started} on {machine()}; Python {platform.python_version()} "
        f"({platform.python_implementation()}); load average {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after. Median of {args.reps} run{'s' if args.reps > 1 else ''} "
        "where a section says no other, each case in a fresh process (wall time of the call "
        "only; peak RSS = `ru_maxrss` of that process). Command: "
        f"`.venv/bin/python bench/tools.py{' --quick' if args.quick else ''}`.",
        "",
    ]
    args.out.write_text("\n".join(header + body))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
