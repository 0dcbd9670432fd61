"""Benchmark of one large streamed tool call (BENCH.md item 8), tether beside its peers in one run.

    .venv/bin/python bench/stream.py [--reps N] [--sizes 100 200] [--pi-reps N] [--no-pi]
                                     [--profile] [--out bench/results/stream.md]

A loopback OpenAI-compatible server (a subprocess of this script, so its work never shares a
core's time slice with the client's event loop) streams one Chat Completions response: ONE
``write`` tool call whose arguments (``{"path": ..., "content": <~N KB of code>}``) arrive in
``N * 100`` ``data:`` chunks (id and name only on the first, then argument pieces, a
``finish_reason: tool_calls`` chunk, a usage chunk and ``[DONE]``), one HTTP chunk each. Timed
from the request to the final message; both Python clients keep one ``AsyncOpenAI`` client per
server across runs (tether caches its own per configuration), so the warm-up opens the
connection and the timed runs reuse it:

- tether: ``tether.ai.providers.stream`` with an ``openai-completions`` model, every event
  consumed; the final call must carry the whole content and no ``arguments_error``;
- bare SDK: ``async for chunk in await AsyncOpenAI(...).chat.completions.create(stream=True)``
  appending each argument piece, then one ``json.loads`` of the whole;
- pi-ai: ``@earendil-works/pi-ai``'s openai-completions provider on Node
  (``../shared/bench/peers/pi_stream.mjs``, installed by its ``setup.sh`` on first use).

tether and the bare SDK alternate, ``--reps`` times each after one warm-up, for every size; pi-ai
runs ``--pi-reps`` times after its own warm-up (it is quadratic: about half a minute at 100 KB).
Before that, the argument parser alone: µs per delta of ``StreamingArguments.feed`` at
100/200/400 KB against re-parsing the whole text on every delta with jiter's partial mode
(what pi-ai does, and tether did before; by default only at 100 KB, it is quadratic), half as
many runs. Medians, with the
spread (min-max). ``--profile`` adds a cProfile of one tether run at the first size, written to
``profile_stream.txt`` beside ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
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
from typing import Any

import jiter
import openai

from tether.ai import (
    Context,
    Model,
    StreamDone,
    StreamOptions,
    Tool,
    ToolCall,
    UserMessage,
)
from tether.ai.providers import stream
from tether.ai.providers._wire import StreamingArguments

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS_SRC = Path(os.environ.get("TETHER_PEERS_SRC", ROOT.parent / "shared" / "bench" / "peers"))
PEERS_DIR = Path(
    os.environ.get("TETHER_PEERS_DIR", Path(os.environ.get("TMPDIR", "/tmp")) / "tether-peers")
)
DELTAS_PER_KB = 100
WRITE_TOOL = Tool(
    "write",
    "write a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)


# --- the stream ---------------------------------------------------------------------------------


@functools.cache
def file_content(kb: int) -> str:
    """``kb`` KB of Python-like source: quotes, tabs, newlines, a little non-ASCII."""
    lines = []
    size = number = 0
    while size < kb * 1024:
        lines.append(
            f'def handler_{number}(request: "Request") -> dict:\n'
            f'\treturn {{"status": {number % 500}, "path": request.path, "note": "ok ✓"}}\n\n'
        )
        size += len(lines[-1])
        number += 1
    return "".join(lines)[: kb * 1024]


def arguments_text(kb: int) -> str:
    return json.dumps({"path": "src/handlers.py", "content": file_content(kb)}, ensure_ascii=False)


def split(text: str, pieces: int) -> list[str]:
    size = len(text) / pieces
    return [text[round(i * size) : round((i + 1) * size)] for i in range(pieces)]


def sse_events(kb: int) -> list[bytes]:
    """The response body, one HTTP chunk (of chunked transfer encoding) per SSE event."""
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    first = {"index": 0, "id": "call_1", "type": "function"}
    payloads = [
        chunk(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{**first, "function": {"name": "write", "arguments": ""}}],
            }
        )
    ]
    for piece in split(arguments_text(kb), kb * DELTAS_PER_KB):
        payloads.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    payloads.append(chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 50, "completion_tokens": kb * 300, "total_tokens": 50 + kb * 300}
    payloads.append({**base, "choices": [], "usage": usage})
    events = [f"data: {json.dumps(payload)}\n\n".encode() for payload in payloads]
    events.append(b"data: [DONE]\n\n")
    return [b"%x\r\n%s\r\n" % (len(event), event) for event in events]


async def serve(sizes: list[int]) -> None:
    """An HTTP/1.1 server on 127.0.0.1 (keep-alive) answering ``POST /{kb}/v1/...``."""
    bodies = {kb: sse_events(kb) for kb in sizes}
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
        b"transfer-encoding: chunked\r\n\r\n"
    )

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                length = next(
                    (
                        int(line.split(":")[1])
                        for line in request
                        if line.lower().startswith("content-length:")
                    ),
                    0,
                )
                await reader.readexactly(length)
                events = bodies[int(request[0].split()[1].split("/")[1])]
                writer.write(head)
                for event in events:
                    writer.write(event)
                    if writer.transport.get_write_buffer_size() > 1 << 16:
                        await writer.drain()
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


# --- the clients ----------------------------------------------------------------------------------


async def run_tether(url: str, kb: int) -> float:
    model = Model(id="m", provider="openai", api="openai-completions", base_url=f"{url}/{kb}/v1")
    context = Context("", [UserMessage("write the handlers")], [WRITE_TOOL])
    started = time.perf_counter()
    final = None
    async for event in stream(model, context, StreamOptions(api_key="x")):
        if isinstance(event, StreamDone):
            final = event.message
    elapsed = time.perf_counter() - started
    assert final is not None, "tether's stream ended in an error"
    call = final.content[-1]
    assert isinstance(call, ToolCall) and call.arguments_error is None, call
    assert call.arguments["content"] == file_content(kb)
    return elapsed


_SDK_CLIENTS: dict[str, openai.AsyncOpenAI] = {}


async def run_sdk(url: str, kb: int) -> float:
    base_url = f"{url}/{kb}/v1"
    started = time.perf_counter()
    client = _SDK_CLIENTS.get(base_url)
    if client is None:  # one per server, as tether keeps its own (a fresh one costs ~25 ms)
        client = _SDK_CLIENTS[base_url] = openai.AsyncOpenAI(base_url=base_url, api_key="x")
    pieces = []
    response = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "write the handlers"}], stream=True
    )
    async for chunk in response:
        if chunk.choices and chunk.choices[0].delta.tool_calls:
            function = chunk.choices[0].delta.tool_calls[0].function
            if function is not None and function.arguments:
                pieces.append(function.arguments)
    arguments = json.loads("".join(pieces))
    elapsed = time.perf_counter() - started
    assert arguments["content"] == file_content(kb)
    return elapsed


def run_pi(url: str, kb: int, reps: int) -> float:
    """pi-ai's median in seconds (its script warms up once, then times ``reps`` runs)."""
    if not (PEERS_DIR / "node_modules" / "@earendil-works" / "pi-ai").exists():
        print(f"installing peers into {PEERS_DIR} ...", flush=True)
        subprocess.run(["bash", str(PEERS_SRC / "setup.sh"), str(PEERS_DIR)], check=True)
    out = subprocess.run(
        ["node", str(PEERS_DIR / "pi_stream.mjs"), f"{url}/{kb}/v1", str(reps)],
        check=True,
        capture_output=True,
        text=True,
        cwd=PEERS_DIR,
    ).stdout
    row = json.loads(out.strip().splitlines()[-1])
    assert row["args_bytes"] >= kb * 1024, row
    return float(row["ms"]) / 1000


# --- the argument parser alone --------------------------------------------------------------------


def parse_incrementally(deltas: list[str]) -> float:
    started = time.perf_counter()
    arguments = StreamingArguments()
    for delta in deltas:
        arguments.feed(delta)
    value, problem = arguments.finish()
    elapsed = time.perf_counter() - started
    assert problem is None and len(value["content"]) > 1000
    return elapsed


def reparse_every_delta(deltas: list[str]) -> float:
    started = time.perf_counter()
    received = ""
    for delta in deltas:
        received += delta
        value = jiter.from_json(received.encode(), partial_mode="trailing-strings")
    elapsed = time.perf_counter() - started
    assert len(value["content"]) > 1000
    return elapsed


# --- the report -----------------------------------------------------------------------------------


def spread(times: list[float]) -> str:
    """Median and range in milliseconds."""
    low, middle, high = (1000 * t for t in (min(times), statistics.median(times), max(times)))
    return f"{middle:.1f} ({low:.1f}-{high:.1f})"


def parser_table(reps: int, reparse_sizes: list[int]) -> list[str]:
    rows = [
        "| arguments | deltas | incremental: ms (min-max) | µs/delta | re-parse every delta: ms "
        "| µs/delta | re-parse / incremental |",
        "|---|---|---|---|---|---|---|",
    ]
    for kb in (100, 200, 400):
        deltas = split(arguments_text(kb), kb * DELTAS_PER_KB)
        parse_incrementally(deltas)
        times = [parse_incrementally(deltas) for _ in range(reps)]
        per_delta = statistics.median(times) / len(deltas) * 1e6
        row = f"| {kb} KB | {len(deltas):,} | {spread(times)} | {per_delta:.2f} |"
        if kb in reparse_sizes:
            old = [reparse_every_delta(deltas) for _ in range(max(1, reps // 2))]
            ratio = statistics.median(old) / statistics.median(times)
            old_per_delta = statistics.median(old) / len(deltas) * 1e6
            row += f" {spread(old)} | {old_per_delta:.0f} | {ratio:.0f}x |"
        else:
            row += " - | - | - |"
        rows.append(row)
        print(row, flush=True)
    return rows


async def streaming_table(url: str, args: argparse.Namespace) -> list[str]:
    rows = [
        "| arguments | chunks | tether ms (min-max) | µs/chunk | bare SDK ms (min-max) "
        "| µs/chunk | pi-ai ms | µs/chunk | tether / SDK | tether / pi-ai |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    totals: dict[str, dict[int, float]] = {"tether": {}, "bare SDK": {}, "pi-ai": {}}
    for kb in args.sizes:
        chunks = kb * DELTAS_PER_KB
        await run_tether(url, kb)
        await run_sdk(url, kb)
        tether_times, sdk_times = [], []
        for _ in range(args.reps):
            tether_times.append(await run_tether(url, kb))
            sdk_times.append(await run_sdk(url, kb))
        tether = totals["tether"][kb] = statistics.median(tether_times)
        sdk = totals["bare SDK"][kb] = statistics.median(sdk_times)
        row = (
            f"| {kb} KB | {chunks:,} | {spread(tether_times)} | {tether / chunks * 1e6:.0f} "
            f"| {spread(sdk_times)} | {sdk / chunks * 1e6:.0f} |"
        )
        if args.no_pi:
            row += f" - | - | {tether / sdk:.2f} | - |"
        else:
            pi = totals["pi-ai"][kb] = await asyncio.to_thread(run_pi, url, kb, args.pi_reps)
            row += (
                f" {pi * 1000:.0f} | {pi / chunks * 1e6:.0f} | {tether / sdk:.2f} "
                f"| {tether / pi:.3f} |"
            )
        rows.append(row)
        print(row, flush=True)
    rows += ["", *goals(totals, args.sizes)]
    return rows


def goals(totals: dict[str, dict[int, float]], sizes: list[int]) -> list[str]:
    """BENCH.md item 8's goals, measured."""
    tether = totals["tether"]
    lines = [
        "Goals (BENCH.md item 8):",
        "",
        "- no slower than the bare SDK loop (tether / SDK ≤ 1.0): "
        + ", ".join(f"{tether[kb] / totals['bare SDK'][kb]:.2f} at {kb} KB" for kb in sizes),
    ]
    if totals["pi-ai"]:
        lines.append(
            "- at least 10x faster than pi-ai (tether / pi-ai ≤ 0.1): "
            + ", ".join(f"{tether[kb] / totals['pi-ai'][kb]:.3f} at {kb} KB" for kb in sizes)
        )
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        growth = ", ".join(
            f"{name} {figures[large] / figures[small]:.2f}"
            for name, figures in totals.items()
            if large in figures and small in figures
        )
        lines.append(
            f"- flat per delta (time at {large} KB / at {small} KB ≤ "
            f"{2.3 * large / small / 2:.1f}; {large / small:.1f} is linear): {growth}"
        )
    return lines


async def profile_tether(url: str, kb: int, out: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    await run_tether(url, kb)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
    out.write_text(text.getvalue())
    print(f"profile written to {out}", flush=True)


async def main(args: argparse.Namespace) -> None:
    load_before = os.getloadavg()[0]
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", *map(str, sorted({*args.sizes}))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        print("argument parser alone:", flush=True)
        parser_rows = parser_table(args.reps, args.reparse_sizes)
        print("streaming over loopback:", flush=True)
        stream_rows = await streaming_table(url, args)
        if args.profile:
            await profile_tether(url, args.sizes[0], args.out.parent / "profile_stream.txt")
    finally:
        server.terminate()
        server.wait()
    header = [
        "# Streaming one large tool call (BENCH.md item 8)",
        "",
        f"`.venv/bin/python bench/stream.py {' '.join(sys.argv[1:])}`".replace("  ", " "),
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_model()}, "
        f"{os.cpu_count()} cores, shared: load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after. {platform.python_implementation()} "
        f"{platform.python_version()}, openai {openai.__version__}, node "
        f"{node_version()}. Medians of {args.reps} runs after a warm-up (min-max in brackets), "
        f"tether and the bare SDK interleaved; pi-ai: median of {args.pi_reps} after its own "
        "warm-up.",
        "",
        "## The argument parser alone",
        "",
        *parser_rows,
        "",
        "## Streaming over loopback (request to final message)",
        "",
        *stream_rows,
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header))
    print(f"written to {args.out}")


def node_version() -> str:
    node = subprocess.run(["node", "--version"], check=True, capture_output=True, text=True)
    return node.stdout.strip()


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200], help="KB")
    parser.add_argument("--pi-reps", type=int, default=3)
    parser.add_argument("--no-pi", action="store_true")
    parser.add_argument("--reparse-sizes", type=int, nargs="*", default=[100], help="KB")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "stream.md")
    parser.add_argument("--serve", type=int, nargs="+", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.serve:
        asyncio.run(serve(arguments.serve))
    else:
        asyncio.run(main(arguments))
