"""A durable run in its own process, killed (SIGKILL) inside one of its tools on the first go.

    python -m tests.durable.crash_program DB_FILE LOG_FILE CRASH_TOOL [sequential|parallel]

The run (workflow id ``crash-run``) calls ``look`` (declared idempotent), then ``poke`` (not),
then answers: one call per turn (``sequential``), or both in one turn run as a parallel batch.
Each tool appends its name to LOG_FILE; the one named CRASH_TOOL then kills the process, the
first time only. Started again with the same arguments, DBOS recovers the run at launch; the
program prints the run's tool results and how many fact writes this process made, as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import Any

from dbos import DBOS

from tether.agent import IDEMPOTENT, AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import AssistantMessage, Context, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.durable import DurableRun
from tether.gate import Gate

DB, LOG, CRASH = sys.argv[1], sys.argv[2], sys.argv[3]
EXECUTION = sys.argv[4] if len(sys.argv) > 4 else "sequential"
SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def answer(context: Context) -> AssistantMessage:
    done = sum(isinstance(m, ToolResultMessage) for m in context.messages)
    if EXECUTION == "parallel" and not done:
        return faux_message(*(faux_tool_call(n, {}, id=f"call_{n}") for n in ("look", "poke")))
    if done < 2:
        name = ("look", "poke")[done]
        return faux_message(faux_tool_call(name, {}, id=f"call_{name}"))
    return faux_message(faux_text("finished"))


def tool(name: str, **metadata: Any) -> AgentTool:
    async def execute(call_id: str, params: Any, sig: Any, on_update: Any) -> str:
        with open(LOG, "a") as log:
            log.write(name + "\n")
        marker = f"{LOG}.crashed"
        if name == CRASH and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return f"{name} ran"

    return AgentTool(name, name, name, SCHEMA, execute, metadata=metadata)


@DBOS.workflow(name="tests.crash_run")
async def crash_run() -> dict[str, Any]:
    gate = Gate("yolo")
    run = DurableRun(gate)
    model = FauxModel([answer] * 6)
    tools = [run.tool(tool("look", **{IDEMPOTENT: True})), run.tool(tool("poke"))]
    config = AgentLoopConfig(
        model=model.model,
        stream_fn=run.stream(model.stream),
        tool_execution="parallel" if EXECUTION == "parallel" else "sequential",
        before_tool_call=run.before_tool_call(gate.before_tool_call),
    )
    stream = agent_loop([UserMessage("go")], AgentContext("", [], tools), config)
    async for _ in stream:
        pass
    results = [
        {"name": m.tool_name, "text": m.content[0].text, "is_error": m.is_error}
        for m in await stream.result()
        if isinstance(m, ToolResultMessage) and isinstance(m.content[0], TextContent)
    ]
    return {"results": results, "writes": run.writes}


async def main() -> None:
    handle = await DBOS.start_workflow_async(crash_run)  # the same id: the recovered run
    print(json.dumps(await handle.get_result()))


if __name__ == "__main__":
    DBOS(
        config={
            "name": "tether-crash-test",
            "system_database_url": f"sqlite:///{DB}",
            "application_version": "crash-test",
            "log_level": "WARNING",
        }
    )
    DBOS.launch()
    from dbos import SetWorkflowID

    with SetWorkflowID("crash-run"):
        asyncio.run(main())
    DBOS.destroy()
