"""Benchmark of the committed-secrets check (issue 18 point 5) on large repositories.

    .venv/bin/python bench/git_secrets.py [--commits 50000] [--files 5000] [--repeat 20]
                                          [--out bench/results/git_secrets.md]

Builds, with ``git fast-import`` in a scratch directory, a repository of ``--commits`` commits
over ``--files`` files in 100 directories (each commit changes one file; a ``.env`` is committed
half-way and removed again), plus a copy of this project's own history when it is a git
repository. For each it reports: the cold listing (``git rev-list --objects --all --reflog
--indexed-objects`` and the secret test of every path: what the first history-reading command
pays), the listing after one new commit (incremental: only what the previous tips did not
reach — what a command after ``git commit`` pays), the warm check (the refs' fingerprint
only: every other command), and ``classify`` of ``git log -p`` cold and warm and of
``git log --oneline`` (which never lists). Figures only, never asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell import _git_secrets as git_secrets

ROOT = Path(__file__).resolve().parent.parent


def _generated(path: Path, commits: int, files: int) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    lines: list[str] = []
    for number in range(1, commits + 1):
        name = f"dir{number % 100}/file{number % files}.txt"
        body = f"line {number}\n"
        lines += [
            "commit refs/heads/main",
            f"mark :{number}",
            f"committer Bench <b@e.nch> {1_600_000_000 + number} +0000",
            "data 8",
            f"c{number:06d}",
        ]
        if number > 1:
            lines.append(f"from :{number - 1}")
        lines += [f"M 100644 inline {name}", f"data {len(body)}", body.rstrip("\n")]
        if number == commits // 2:
            lines += ["M 100644 inline .env", "data 14", "API_KEY=secret"]
        if number == commits // 2 + 1:
            lines.append("D .env")
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"],
        input=("\n".join(lines) + "\n").encode(),
        check=True,
    )
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "main"], check=True)


def _timed(function: object, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return times


def _measure(name: str, repo: Path, repeat: int) -> list[str]:
    wait = git_secrets.LISTING_WAIT
    for key, value in (("user.email", "b@e.nch"), ("user.name", "Bench")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    count = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--count", "--all"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    objects = subprocess.run(
        ["git", "-C", str(repo), "count-objects", "-v"], capture_output=True, text=True, check=True
    ).stdout
    total = sum(
        int(line.split()[1])
        for line in objects.splitlines()
        if line.startswith(("count:", "in-pack:"))
    )

    def cold() -> tuple[str, ...]:
        git_secrets._CACHE.clear()
        git_secrets.LISTING_WAIT = git_secrets.LISTING_TIMEOUT  # the whole listing
        try:
            return git_secrets.committed_secrets(str(repo))
        finally:
            git_secrets.LISTING_WAIT = wait

    cold_ms = _timed(cold, max(3, repeat // 5))
    found = cold()
    warm_ms = _timed(lambda: git_secrets.committed_secrets(str(repo)), repeat)
    git_secrets.committed_secrets(str(repo))
    steps = iter(range(10**6))

    def after_commit() -> None:
        step = next(steps)
        (repo / f"bench-{step}.txt").write_text(f"{step}\n")
        for args in (["add", f"bench-{step}.txt"], ["commit", "-qm", f"bench {step}"]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
        started = time.perf_counter()
        git_secrets.committed_secrets(str(repo))
        incremental.append((time.perf_counter() - started) * 1000)

    incremental: list[float] = []
    for _ in range(max(3, repeat // 5)):
        after_commit()
    policy = ShellPolicy(PathPolicy(str(repo)))

    log_p_cold: list[float] = []
    cold_decisions: set[str] = set()
    for _ in range(max(3, repeat // 5)):
        git_secrets._CACHE.clear()
        started = time.perf_counter()
        cold_decisions.add(policy.classify("git log -p").decision)
        log_p_cold.append((time.perf_counter() - started) * 1000)
        for job in list(git_secrets._JOBS.values()):
            job.done.wait()  # the background listing is not part of the classify
    log_p_warm = _timed(lambda: policy.classify("git log -p"), repeat)
    oneline = _timed(lambda: policy.classify("git log --oneline"), repeat)
    verdict = policy.classify("git log -p")
    med = statistics.median
    return [
        f"| {name} | {count} | {total} | {med(cold_ms):.0f} | {med(incremental):.0f} "
        f"| {med(warm_ms):.2f} "
        f"| {med(log_p_cold):.0f} ({'/'.join(sorted(cold_decisions))}) "
        f"| {med(log_p_warm):.2f} | {med(oneline):.2f} "
        f"| {verdict.decision}: {', '.join(found) or '-'} |"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    git_version = subprocess.run(
        ["git", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    rows = [
        "# Committed secrets: cost of the history check (issue 18 point 5)",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, {git_version}, load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians, "
        f"cold of {max(3, args.repeat // 5)} runs, warm of {args.repeat}.",
        "",
        "| repository | commits | objects | cold listing ms | after a new commit ms "
        "| warm check ms | classify `git log -p` cold ms (waits ≤ LISTING_WAIT) | warm ms "
        "| `git log --oneline` ms "
        "| verdict: found |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="tether-bench-git-") as scratch:
        generated = Path(scratch) / "generated"
        started = time.perf_counter()
        _generated(generated, args.commits, args.files)
        print(f"generated {args.commits} commits in {time.perf_counter() - started:.1f}s")
        rows += _measure(f"generated, {args.files} files", generated, args.repeat)
        if (ROOT / ".git").exists():
            own = Path(scratch) / "own"
            subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(own)], check=True)
            rows += _measure("this project (clone)", own, args.repeat)
        shutil.rmtree(generated, ignore_errors=True)
    rows += [
        "",
        "The cold listing is paid once per repository and process; after a change of the refs "
        "(a commit, a checkout, a fetch, `git add`) only the new objects are listed. It runs "
        "off the classify budget's clock; a classify waits for it at most "
        f"`LISTING_WAIT` ({git_secrets.LISTING_WAIT:g} s), then it goes on in the background and "
        "history-reading commands are `approve` until it is done (`LISTING_TIMEOUT`, "
        f"{git_secrets.LISTING_TIMEOUT:g} s: past it the repository counts as holding a secret). "
        "Every other history-reading command pays the warm check: a stat "
        "of HEAD, the index, packed-refs and the files under refs/ and logs/.",
    ]
    text = "\n".join(rows) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
