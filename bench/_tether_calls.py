"""The peers' workload on tether: one assistant message with K no-op ``echo(text)`` calls,
executed through ``agent_loop`` with a ``FauxModel``, results appended, then a final text turn."""

from __future__ import annotations

import asyncio
import statistics
import time

from tether.agent import (
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    agent_loop,
)
from tether.ai import TextContent, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call

ECHO_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}


async def _echo(tool_call_id, params, signal, on_update):
    return AgentToolResult([TextContent(params["text"])], {})


async def _sleep(tool_call_id, params, signal, on_update):
    await asyncio.sleep(0.05)
    return AgentToolResult([TextContent(params["text"])], {})


async def _noop_before(ctx, signal):
    return None


async def _noop_after(ctx, signal):
    return None


def _tool(execute) -> AgentTool:
    return AgentTool("echo", "Echo", "echo", ECHO_SCHEMA, execute)


def _governed_tool() -> AgentTool:
    from tether.gate import Governance, Verdict, govern

    schema = {
        "type": "object",
        "properties": {"text": {"type": "string", "x-review": "include"}},
        "required": ["text"],
    }
    allowed = Verdict.allow("echo is harmless")
    governance = Governance(check=lambda args: allowed)
    return govern(
        AgentTool("echo", "Echo", "echo", schema, _echo, metadata={"governance": governance})
    )


async def run_gated(k: int, *, redact: bool) -> float:
    """The same work with the governance gate as before hook (and as after hook if ``redact``)."""
    from tether.gate import Gate

    gate = Gate("normal", workspace="/tmp")
    calls = [faux_tool_call("echo", {"text": f"x{j}"}, id=f"c{j}") for j in range(k)]
    model = FauxModel([faux_message(*calls), faux_text("done")])
    config = AgentLoopConfig(
        model=model.model,
        stream_fn=model.stream,
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call if redact else None,
    )
    start = time.perf_counter()
    stream = agent_loop([UserMessage("go")], AgentContext("", [], [_governed_tool()]), config)
    async for _ in stream:
        pass
    messages = await stream.result()
    elapsed = time.perf_counter() - start
    assert len(messages) == k + 3 and not any(getattr(m, "is_error", False) for m in messages)
    return elapsed


def measure_gated(k: int, reps: int, *, redact: bool) -> float:
    """Median µs per call with the gate on."""

    async def main() -> list[float]:
        await run_gated(k, redact=redact)
        return [await run_gated(k, redact=redact) for _ in range(reps)]

    return statistics.median(asyncio.run(main())) / k * 1e6


async def run_once(k: int, *, hooks: bool, mode: str, execute=_echo) -> float:
    calls = [faux_tool_call("echo", {"text": f"x{j}"}, id=f"c{j}") for j in range(k)]
    model = FauxModel([faux_message(*calls), faux_text("done")])
    config = AgentLoopConfig(
        model=model.model,
        stream_fn=model.stream,
        tool_execution=mode,  # type: ignore[arg-type]
        before_tool_call=_noop_before if hooks else None,
        after_tool_call=_noop_after if hooks else None,
    )
    context = AgentContext("", [], [_tool(execute)])
    start = time.perf_counter()
    stream = agent_loop([UserMessage("go")], context, config)
    async for _ in stream:
        pass
    messages = await stream.result()
    elapsed = time.perf_counter() - start
    assert len(messages) == k + 3, len(messages)
    return elapsed


def measure(k: int, reps: int, *, hooks: bool, mode: str) -> float:
    """Median µs per call over ``reps`` runs after one warm-up."""

    async def main() -> list[float]:
        await run_once(k, hooks=hooks, mode=mode)
        return [await run_once(k, hooks=hooks, mode=mode) for _ in range(reps)]

    times = asyncio.run(main())
    return statistics.median(times) / k * 1e6


def parallel_speedup(k: int, reps: int) -> float:
    """Wall time of K tools that each sleep 50 ms, over 50 ms (ideal 1.0)."""

    async def main() -> list[float]:
        return [
            await run_once(k, hooks=False, mode="parallel", execute=_sleep) for _ in range(reps)
        ]

    return statistics.median(asyncio.run(main())) / 0.05
