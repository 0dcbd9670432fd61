"""Benchmark (BENCH.md item 11): a no-op tool call's round trip over stdio, tether's MCP server
beside the SDK's own ``MCPServer`` serving the same tool, in one run.

    .venv/bin/python bench/mcp.py [--calls N] [--rounds R] [--out bench/results/mcp.md]

Each server is a subprocess of this script, started over stdio and reached with the SDK's own
``Client``:

- tether: :func:`tether.mcp.serve_tools` — the code behind ``tether mcp serve`` — serving one
  governed tool ``noop`` (no parameters, returns ``ok``) through a normal-mode gate: every call
  validated, judged by the gate, run through the pipeline and its after hook (secret masking);
- SDK: ``mcp.server.MCPServer`` with the same tool as a decorated function (its own argument
  validation, no gate);
- for scale, ``tether mcp serve --tools ls`` itself calling ``ls`` on an empty directory (a real
  tool, not a no-op; no ratio);
- the two no-op servers again in this process, through the SDK's in-process client (no
  transport): what each server costs per call on its own.

After a warm-up of 20 calls per server, the servers alternate for ``--rounds`` rounds of
``--calls`` sequential calls each; a round's figure is its mean µs per call, the result the
median over rounds, with the spread (min-max).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

# Run as a script, this file's directory comes first on the path, and this file is named like
# the SDK: drop the directory so that ``import mcp`` finds the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from mcp import Client, StdioServerParameters  # noqa: E402

TETHER = os.path.join(os.path.dirname(sys.executable), "tether")
ROOT = Path(__file__).resolve().parent.parent


def _tether_noop_tool() -> Any:
    from tether.agent import AgentTool
    from tether.gate import Governance, govern

    async def noop(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "ok"

    return govern(
        AgentTool(
            name="noop",
            label="No-op",
            description="Do nothing.",
            parameters={"type": "object", "properties": {}},
            execute=noop,
            metadata={"governance": Governance()},
        )
    )


def _sdk_noop_server() -> Any:
    from mcp.server import MCPServer

    server = MCPServer("noop")

    @server.tool()
    def noop() -> str:
        """Do nothing."""
        return "ok"

    return server


def _serve_tether_noop() -> None:
    from tether.gate import Gate
    from tether.mcp import serve_tools

    asyncio.run(serve_tools([_tether_noop_tool()], Gate("normal", None)))


def _serve_sdk_noop() -> None:
    _sdk_noop_server().run("stdio")


def _in_process_servers() -> dict[str, Any]:
    """The same two servers without a transport: the SDK's in-process client dispatches to
    them directly, so only the servers' own work per call is left."""
    from tether.gate import Gate
    from tether.mcp import build_server

    return {
        "tether build_server (gate), in process": build_server(
            [_tether_noop_tool()], Gate("normal", None)
        ),
        "SDK MCPServer, in process": _sdk_noop_server(),
    }


async def _timed_round(client: Client, name: str, args: dict[str, Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        result = await client.call_tool(name, args)
        if result.is_error:
            raise RuntimeError(f"{name} failed: {result.content}")
    return (time.perf_counter() - start) / calls * 1e6


async def run(calls: int, rounds: int) -> dict[str, list[float]]:
    empty = tempfile.mkdtemp(prefix="bench-mcp-")
    python = sys.executable
    servers: dict[str, tuple[StdioServerParameters, str, dict[str, Any]]] = {
        "tether (serve_tools, gate)": (
            StdioServerParameters(command=python, args=[__file__, "--serve", "tether"]),
            "noop",
            {},
        ),
        "SDK MCPServer": (
            StdioServerParameters(command=python, args=[__file__, "--serve", "sdk"]),
            "noop",
            {},
        ),
        "tether mcp serve: ls of an empty dir": (
            StdioServerParameters(
                command=TETHER, args=["mcp", "serve", "--tools", "ls", "--cwd", empty]
            ),
            "ls",
            {},
        ),
    }
    targets: dict[str, tuple[Any, str, dict[str, Any]]] = dict(servers)
    for label, server in _in_process_servers().items():
        targets[label] = (server, "noop", {})
    figures: dict[str, list[float]] = {label: [] for label in targets}
    async with AsyncExitStack() as stack:
        clients: dict[str, Callable[[], Awaitable[float]]] = {}
        for label, (target, name, args) in targets.items():
            client = await stack.enter_async_context(Client(target))
            await _timed_round(client, name, args, 20)
            clients[label] = lambda c=client, n=name, a=args: _timed_round(c, n, a, calls)
        for _ in range(rounds):
            for label, timed in clients.items():
                figures[label].append(await timed())
    return figures


def _report(figures: dict[str, list[float]], calls: int, rounds: int, command: str) -> str:
    load = os.getloadavg()[0]
    lines = [
        "# MCP: a no-op tool call's round trip (BENCH.md item 11)",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; load average {load:.2f} "
        f"at the end. Command: `{command}`. Median over {rounds} alternating rounds of "
        f"{calls} sequential calls each (a round's mean), after 20 warm-up calls per server.",
        "",
        "| server | µs per call | spread (min-max) |",
        "|---|---:|---:|",
    ]
    medians = {label: statistics.median(values) for label, values in figures.items()}
    for label, values in figures.items():
        lines.append(f"| {label} | {medians[label]:.0f} | {min(values):.0f}-{max(values):.0f} |")
    tether, sdk = medians["tether (serve_tools, gate)"], medians["SDK MCPServer"]
    ratio = tether / sdk
    verdict = "met" if ratio <= 1.0 else "not met"
    in_process = (
        medians["tether build_server (gate), in process"] / medians["SDK MCPServer, in process"]
    )
    lines += [
        "",
        f"**tether / SDK MCPServer over stdio: {ratio:.2f}** (goal at most 1.0: {verdict}).",
        f"In process (no transport, the servers' own work only): {in_process:.2f}.",
        "",
        "Both no-op servers speak the same SDK transport and protocol; the difference is what "
        "happens per call: tether validates against the schema, runs the gate's decision order "
        "and the after hook's secret scan over the result, and converts the result; MCPServer "
        "validates through its own pydantic model of the function's signature. The `ls` row is "
        "the real command with a real tool (a directory read), for scale.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "mcp.md"))
    parser.add_argument("--serve", choices=("tether", "sdk"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve == "tether":
        _serve_tether_noop()
        return
    if args.serve == "sdk":
        _serve_sdk_noop()
        return
    figures = asyncio.run(run(args.calls, args.rounds))
    command = "python bench/mcp.py " + " ".join(sys.argv[1:])
    report = _report(figures, args.calls, args.rounds, command.strip())
    Path(args.out).write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
