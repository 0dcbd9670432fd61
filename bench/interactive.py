"""The interactive terminal's latency: from pressing Enter to the first character of the answer
on the terminal, tether against pi's interactive mode, on one loopback server in one run.

    .venv/bin/python bench/interactive.py [--reps N] [--out bench/results/interactive.md]

Each program runs in a real pseudo-terminal (pexpect, 100x30, TERM=xterm-256color). Once its
screen is ready (tether's status line, pi's footer) the prompt is typed, and the clock starts when
Enter is written; it stops when the answer's first word arrives in the bytes the program writes to
its terminal. The server answers at once, in 7-character pieces, so the figure is the program's
own path: read the key, send the request, parse the first event, render. A fresh process per run;
tether and pi interleaved; medians after one warm-up each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ai.providers.loopback import LoopbackServer  # noqa: E402
from tests.cli.support import text_reply  # noqa: E402

PEERS = ROOT.parent / "shared" / "bench" / "peers"
PEERS_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / "tether-peers"
TETHER = str(Path(sys.executable).with_name("tether"))
ANSWER = "Zebra quartz: the first word of the answer, then a little more text to stream."
FIRST_WORD = "Zebra"
SECOND_ANSWER = "Yakutia: the second answer of the same process."
SECOND_WORD = "Yakutia"


def ensure_peers() -> None:
    if not (PEERS_DIR / "pi-cli" / "node_modules").exists():
        subprocess.run(["bash", str(PEERS / "setup.sh")], check=True)


def configure(work: Path, url: str) -> dict[str, dict[str, str]]:
    home = work / "tether-home"
    home.mkdir()
    (home / "models.toml").write_text(
        f'[providers.bench]\napi = "openai-completions"\nbase_url = "{url}/v1"\n\n'
        '[[providers.bench.models]]\nid = "m"\n',
        encoding="utf-8",
    )
    pi_home = work / "pi-home"
    pi_home.mkdir()
    pi_models = {
        "providers": {
            "bench": {
                "baseUrl": f"{url}/v1",
                "api": "openai-completions",
                "apiKey": "x",
                "models": [{"id": "m"}],
            }
        }
    }
    (pi_home / "models.json").write_text(json.dumps(pi_models), encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    base["TERM"] = "xterm-256color"
    return {
        "tether": {**base, "TETHER_HOME": str(home)},
        "pi": {**base, "PI_CODING_AGENT_DIR": str(pi_home), "PI_OFFLINE": "1"},
    }


COMMANDS = {
    "tether": ([TETHER, "--model", "bench/m", "--no-session"], "ctx 0%"),
    "pi": (["bash", str(PEERS / "pi.sh"), "--", "--model", "bench/m", "--no-session"], "/128k"),
}


async def first_character_seconds(
    name: str, server: LoopbackServer, env: dict[str, str], cwd: str
) -> tuple[float, float]:
    """One run: start ``name``, wait until it is ready, then twice type a prompt, press Enter
    and time its answer (the first prompt of the process, then a second one)."""
    argv, ready = COMMANDS[name]
    server.replies = [text_reply(ANSWER), text_reply(SECOND_ANSWER)]
    child = pexpect.spawn(
        argv[0], argv[1:], env=env, cwd=cwd, dimensions=(30, 100), encoding="utf-8", timeout=30
    )
    try:
        await child.expect_exact(ready, async_=True)
        await asyncio.sleep(2.0)  # a person reads the screen before typing
        first = await _answer_seconds(child, "say the word", FIRST_WORD)
        await asyncio.sleep(1.0)
        second = await _answer_seconds(child, "and another", SECOND_WORD)
        return first, second
    finally:
        child.terminate(force=True)


async def _answer_seconds(child: pexpect.spawn[str], prompt: str, word: str) -> float:
    child.send(prompt)
    await asyncio.sleep(0.3)
    start = time.perf_counter()
    child.send("\r")
    await child.expect_exact(word, async_=True)
    return time.perf_counter() - start


async def bench(reps: int) -> dict[str, list[tuple[float, float]]]:
    ensure_peers()
    results: dict[str, list[tuple[float, float]]] = {"tether": [], "pi": []}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        project = work / "project"
        project.mkdir()
        async with LoopbackServer() as server:
            envs = configure(work, server.url)
            for name in results:  # warm-up
                await first_character_seconds(name, server, envs[name], str(project))
            for _ in range(reps):
                for name, runs in results.items():
                    runs.append(
                        await first_character_seconds(name, server, envs[name], str(project))
                    )
    return results


def report(results: dict[str, list[tuple[float, float]]], reps: int) -> str:
    def median_ms(name: str, which: int) -> float:
        return statistics.median(run[which] for run in results[name]) * 1000

    def runs(name: str, which: int) -> str:
        return ", ".join(f"{run[which] * 1000:.0f}" for run in results[name])

    rows = []
    for which, label in ((0, "first prompt of the process"), (1, "second prompt")):
        tether, pi = median_ms("tether", which), median_ms("pi", which)
        rows.append(
            f"| {label} | {tether:.0f} | {pi:.0f} | {tether / pi:.2f} | "
            f"{runs('tether', which)} | {runs('pi', which)} |"
        )
    return "\n".join(
        [
            "# The interactive terminal: Enter to the first character of the answer",
            "",
            "`bench/interactive.py`: each program in a real pseudo-terminal (100x30), one loopback",
            "OpenAI-compatible server answering at once; the clock runs from writing Enter to the",
            "answer's first word arriving in the program's terminal output. Fresh process per run",
            "(2 s after its screen is ready, then a second prompt 1 s after the first answer),",
            f"tether and pi interleaved, one warm-up each, medians of {reps} runs.",
            "",
            "| prompt | tether (ms) | pi (ms) | tether / pi | tether runs | pi runs |",
            "|---|---:|---:|---:|---|---|",
            *rows,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "interactive.md"))
    args = parser.parse_args()
    results = asyncio.run(bench(args.reps))
    text = report(results, args.reps)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
