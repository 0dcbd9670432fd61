"""Benchmark (issue 23): a no-op call through a warm hand against the same call through bare
``SSHOperations``.

    .venv/bin/python bench/hands.py [--calls N] [--rounds R] [--out bench/results/hands.md]

A throwaway sshd on 127.0.0.1 (the test suite's, :mod:`tests.remote.sshd`) is the remote host;
the hand is ``tether hand --stdio`` there (``PYTHONPATH`` is passed on, so it runs this code).
Each call is the agent-facing tool call, so both ways pay the tool's own work:

- ``ls`` of a directory with one file: the hand's ``ls`` (this side's governance check, one JSON
  line each way, the hand's gate, the tool on the host's file system) against the ``ls`` tool
  built on ``SSHOperations`` (SFTP ``stat`` and ``readdir`` on the open connection);
- ``bash 'true'``: the hand's ``bash`` (its gate and sandbox, a local process there) against
  the ``bash`` tool on ``SSHOperations`` (an exec channel, the login shell, the kill-safe wrapper).

After a warm-up, the two ways alternate for ``--rounds`` rounds of ``--calls`` sequential
calls; a round's figure is its mean ms per call, the result the median over rounds with the
spread (min-max). Ratio = hand / SSHOperations (goal: at most 1.5).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._compare import comparison_row, mean_ms, run_comparison
from tests.remote.sshd import start_sshd

from tether.agent import AgentTool
from tether.ai import AbortController
from tether.remote import HandClient, SSHOperations
from tether.tools import create_coding_tools, wrap_tool_definition

TETHER = str(Path(sys.executable).with_name("tether"))
CALLS = {"ls": {"path": "."}, "bash": {"command": "true"}}


def _caller(tool: AgentTool, arguments: dict[str, Any]) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return await tool.execute("bench", dict(arguments), AbortController().signal, None)

    return call


async def measure(calls: int, rounds: int, directory: Path) -> dict[str, dict[str, list[float]]]:
    server = start_sshd(directory / "sshd")
    workspace = directory / "workspace"
    workspace.mkdir()
    (workspace / "one.txt").write_text("one\n")
    operations = SSHOperations(
        "127.0.0.1", user=server.user, port=server.port, cwd=str(workspace),
        known_hosts=server.known_hosts, client_keys=[server.client_key],
    )  # fmt: skip
    bare = {
        d.name: wrap_tool_definition(d)
        for d in create_coding_tools(str(workspace), names=list(CALLS), operations=operations)
    }
    hand = await HandClient.start(operations, str(workspace), tools=list(CALLS), tether=TETHER)
    through_hand = {tool.name: tool for tool in hand.tools()}
    try:
        results: dict[str, dict[str, list[float]]] = {}
        for name, arguments in CALLS.items():
            ours, theirs = _caller(through_hand[name], arguments), _caller(bare[name], arguments)
            for _ in range(3):  # warm-up: connection, SFTP session, the hand's first call
                await ours()
                await theirs()
            label = f"{name} {arguments}"
            results[label] = {"hand": [], "SSHOperations": []}
            for _ in range(rounds):
                results[label]["hand"].append(await mean_ms(ours, calls))
                results[label]["SSHOperations"].append(await mean_ms(theirs, calls))
        return results
    finally:
        await hand.close()
        await operations.close()
        server.stop()


def report(results: dict[str, dict[str, list[float]]], calls: int, rounds: int) -> str:
    lines = [
        "# Hands: a warm hand vs bare SSHOperations",
        "",
        f"One run, {rounds} rounds of {calls} sequential calls per way, warm connection and "
        f"hand, sshd on 127.0.0.1 (the same machine). Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores (shared with other work).",
        "",
        "| call | hand ms/call | SSHOperations ms/call | ratio |",
        "|---|---|---|---|",
    ]
    for name, ways in results.items():
        lines.append(comparison_row(f"`{name}`", ways, "hand", "SSHOperations"))
    lines += [
        "",
        "Both ways call the agent-facing tool (`AgentTool.execute`); neither runs this side's",
        "gate, which costs the same either way. The hand's figure includes its own gate (path",
        "and shell policy) and, for `bash`, its bubblewrap sandbox; the bare figure for `bash`",
        "includes the login shell sshd starts for every exec request.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    run_comparison(__doc__.split("\n")[0], "hands.md", measure, report)


if __name__ == "__main__":
    main()
