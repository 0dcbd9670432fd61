"""Benchmarks of the ``tether`` command (BENCH.md items 7 and 9), each beside pi's CLI.

    .venv/bin/python bench/cli.py [--reps N] [--out bench/results/cli.md]

7. Startup: ``tether --help`` wall time and peak RSS against ``pi --help`` (pi's coding-agent
   CLI through ``../shared/bench/peers/pi.sh``), and ``python -X importtime -c 'import tether'``.
9. End to end: ``tether -p`` on a scripted three-turn task (two reads in one batch, an edit, a
   final answer) against a loopback OpenAI-compatible server, against ``pi -p`` on the same
   server and task; and opening plus continuing a 10,000-entry session (``tether -c -p``, and
   ``SessionStore.open`` + ``messages()`` in-process), time and peak RSS.

Each run is a fresh process; tether and pi runs are interleaved; figures are medians over
``--reps`` runs after one warm-up of each. The peers install from ``../shared/bench/peers`` on
first use (``setup.sh``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ai.providers.loopback import LoopbackServer, Reply, sse  # noqa: E402

PEERS = ROOT.parent / "shared" / "bench" / "peers"
PEERS_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / "tether-peers"
TETHER = str(Path(sys.executable).with_name("tether"))
PROGRAM = "def average(values):\n    return sum(values) / len(values) + 1\n"


def ensure_peers() -> None:
    if not (PEERS_DIR / "pi-cli" / "node_modules").exists():
        subprocess.run(["bash", str(PEERS / "setup.sh")], check=True)


def timed(argv: list[str], *, env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit status of one run of ``argv``."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, process.returncode


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _usage() -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def calls_reply(calls: list[tuple[str, dict[str, Any]]]) -> Reply:
    chunks = [_chunk({"role": "assistant", "content": ""})]
    for index, (name, arguments) in enumerate(calls):
        chunks.append(
            _chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{index}_{name}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ]
                }
            )
        )
    chunks += [_chunk({}, "tool_calls"), _usage()]
    return Reply(200, sse(chunks, done=True))


def text_reply(text: str) -> Reply:
    chunks = [_chunk({"role": "assistant", "content": text}), _chunk({}, "stop"), _usage()]
    return Reply(200, sse(chunks, done=True))


def three_turns(edit_keys: tuple[str, str]) -> list[Reply]:
    old, new = edit_keys
    return [
        calls_reply([("read", {"path": "stats.py"}), ("read", {"path": "notes.txt"})]),
        calls_reply(
            [
                (
                    "edit",
                    {"path": "stats.py", "edits": [{old: "len(values) + 1", new: "len(values)"}]},
                )
            ]
        ),
        text_reply("Fixed the average."),
    ]


class ServerThread:
    """The loopback server on its own event loop in a thread, refilled before each run."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.server = LoopbackServer()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.server.__aenter__())
            ready.set()
            self.loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        ready.wait()

    def script(self, replies: list[Reply]) -> None:
        self.loop.call_soon_threadsafe(lambda: setattr(self.server, "replies", list(replies)))
        time.sleep(0.01)


def fresh_project(root: Path) -> Path:
    project = Path(tempfile.mkdtemp(dir=root))
    (project / "stats.py").write_text(PROGRAM, encoding="utf-8")
    (project / "notes.txt").write_text("the average is off by one\n", encoding="utf-8")
    return project


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_startup(reps: int, env_tether: dict[str, str], env_pi: dict[str, str]) -> dict[str, Any]:
    pi = ["bash", str(PEERS / "pi.sh"), "--", "--help"]
    tether = [TETHER, "--help"]
    runs: dict[str, list[tuple[float, float, int]]] = {"tether": [], "pi": []}
    timed(tether, env=env_tether, cwd=str(ROOT))
    timed(pi, env=env_pi, cwd=str(ROOT))
    for _ in range(reps):
        runs["tether"].append(timed(tether, env=env_tether, cwd=str(ROOT)))
        runs["pi"].append(timed(pi, env=env_pi, cwd=str(ROOT)))
    importtime = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tether.cli"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    cumulative = [
        int(m.group(1)) for m in re.finditer(r"\|\s*(\d+) \| tether\.cli$", importtime, re.M)
    ]
    return {
        "tether_s": median([r[0] for r in runs["tether"]]),
        "pi_s": median([r[0] for r in runs["pi"]]),
        "tether_mb": median([r[1] for r in runs["tether"]]),
        "pi_mb": median([r[1] for r in runs["pi"]]),
        "import_tether_cli_ms": cumulative[0] / 1000 if cumulative else float("nan"),
    }


def bench_end_to_end(reps: int, server: ServerThread, work: Path) -> dict[str, Any]:
    home = work / "tether-home"
    home.mkdir()
    (home / "models.toml").write_text(
        f'[providers.bench]\napi = "openai-completions"\nbase_url = "{server.server.url}/v1"\n\n'
        '[[providers.bench.models]]\nid = "m"\n',
        encoding="utf-8",
    )
    pi_home = work / "pi-home"
    pi_home.mkdir()
    (pi_home / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "bench": {
                        "baseUrl": f"{server.server.url}/v1",
                        "api": "openai-completions",
                        "apiKey": "x",
                        "models": [{"id": "m"}],
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    env_tether = {**os.environ, "TETHER_HOME": str(home)}
    env_pi = {**os.environ, "PI_CODING_AGENT_DIR": str(pi_home), "PI_OFFLINE": "1"}
    task = "Fix the average in stats.py; notes.txt says what is wrong."
    tether = [TETHER, "-p", task, "--model", "bench/m"]
    pi = ["bash", str(PEERS / "pi.sh"), "--", "-p", task, "--model", "bench/m", "--no-session"]
    results: dict[str, list[float]] = {"tether": [], "pi": []}
    fixed = {"tether": 0, "pi": 0}
    for rep in range(reps + 1):
        for name, argv, env, keys in (
            ("tether", tether, env_tether, ("old_text", "new_text")),
            ("pi", pi, env_pi, ("oldText", "newText")),
        ):
            project = fresh_project(work)
            server.script(three_turns(keys))
            wall, _, code = timed(argv, env=env, cwd=str(project))
            ok = code == 0 and "+ 1" not in (project / "stats.py").read_text(encoding="utf-8")
            if rep:
                results[name].append(wall)
                fixed[name] += ok
    return {
        "tether_s": median(results["tether"]),
        "pi_s": median(results["pi"]),
        "tether_fixed": fixed["tether"],
        "pi_fixed": fixed["pi"],
        "reps": reps,
        "env_tether": env_tether,
    }


def bench_big_session(
    reps: int, server: ServerThread, work: Path, env: dict[str, str]
) -> dict[str, Any]:
    from tether.ai import AssistantMessage, TextContent, UserMessage
    from tether.session import SessionStore

    project = fresh_project(work)
    store = SessionStore(str(Path(env["TETHER_HOME"]) / "sessions"))
    session = store.create(str(project))
    for n in range(5000):
        session.append_message(UserMessage(f"question {n}: " + "words " * 30))
        session.append_message(
            AssistantMessage([TextContent(f"answer {n}: " + "more words " * 30)])
        )
    session.close()
    size_mb = os.path.getsize(session.path) / 1e6
    loads = []
    for _ in range(reps):
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import resource,sys,time;t=time.perf_counter();"
                "from tether.session import SessionStore;"
                f"s=SessionStore({str(store.directory)!r}).open({session.id!r});m=s.messages();"
                "print(time.perf_counter()-t, len(s.entries), len(m),"
                " resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, entries, messages, rss = probe.stdout.split()
        loads.append((float(seconds), int(entries), int(messages), float(rss)))
    continues = []
    for _ in range(reps):
        server.script([text_reply("continued")])
        continues.append(
            timed(
                [TETHER, "-c", "-p", "go on", "--model", "bench/m", "--no-sandbox"],
                env=env,
                cwd=str(project),
            )
        )
    return {
        "entries": loads[0][1],
        "size_mb": size_mb,
        "open_s": median([x[0] for x in loads]),
        "open_mb": median([x[3] for x in loads]),
        "continue_s": median([c[0] for c in continues]),
        "continue_mb": median([c[1] for c in continues]),
        "continue_ok": sum(c[2] == 0 for c in continues),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "cli.md"))
    args = parser.parse_args()
    ensure_peers()
    with tempfile.TemporaryDirectory(prefix="tether-bench-cli-") as scratch:
        work = Path(scratch)
        server = ServerThread()
        empty_pi = work / "pi-empty"
        empty_pi.mkdir()
        startup = bench_startup(
            args.reps,
            dict(os.environ),
            {**os.environ, "PI_CODING_AGENT_DIR": str(empty_pi), "PI_OFFLINE": "1"},
        )
        e2e = bench_end_to_end(args.reps, server, work)
        big = bench_big_session(max(3, args.reps // 2), server, work, e2e.pop("env_tether"))
    ms = {k: v * 1000 for k, v in startup.items() if k.endswith("_s")}
    e2e_ms = {k: v * 1000 for k, v in e2e.items() if k.endswith("_s")}
    lines = [
        "# The tether command vs pi's CLI (BENCH.md items 7 and 9)",
        "",
        f"`python bench/cli.py --reps {args.reps}` on {os.cpu_count()} cores; medians, "
        "fresh process per run, tether and pi interleaved, one warm-up each.",
        "",
        "| item | tether | pi | tether / pi | goal |",
        "|---|---|---|---|---|",
        f"| 7. `--help` wall | {ms['tether_s']:.0f} ms | {ms['pi_s']:.0f} ms | "
        f"{startup['tether_s'] / startup['pi_s']:.2f} | ≤ 0.3 |",
        f"| 7. `--help` peak RSS | {startup['tether_mb']:.0f} MB | {startup['pi_mb']:.0f} MB | "
        f"{startup['tether_mb'] / startup['pi_mb']:.2f} | — |",
        f"| 9. `-p` three turns (2 reads in a batch, edit, answer) | {e2e_ms['tether_s']:.0f} ms"
        f" | {e2e_ms['pi_s']:.0f} ms | {e2e['tether_s'] / e2e['pi_s']:.2f} | ≤ 1.0 |",
        "",
        f"`import tether.cli` (what `--help` loads): {startup['import_tether_cli_ms']:.1f} ms "
        "cumulative (`python -X importtime`).",
        f"Task completed (file fixed, exit 0): tether {e2e['tether_fixed']}/{e2e['reps']}, "
        f"pi {e2e['pi_fixed']}/{e2e['reps']}.",
        "",
        f"Session of {big['entries']:,} entries ({big['size_mb']:.1f} MB): open + `messages()` "
        f"{big['open_s'] * 1000:.0f} ms, peak RSS {big['open_mb']:.0f} MB (whole process); "
        f"`tether -c -p` continuing it to a scripted answer {big['continue_s'] * 1000:.0f} ms "
        f"wall, {big['continue_mb']:.0f} MB ({big['continue_ok']} of its runs exited 0).",
    ]
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
