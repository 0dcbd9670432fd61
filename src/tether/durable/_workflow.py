"""The durable run: one DBOS workflow per tether run, and the worker that executes them.

A run is built by the caller's :data:`RunBuilder` (the command builds it as any run: model,
tools, gate, session), then its model calls, decisions and tool results become steps
(:class:`~tether.durable.DurableRun`). The first step records the tether version and the digest
of the catalog the model is shown; a recovery under another catalog refuses to go on, since the
model chose its calls among other tools. The JSONL session is rewritten from the record on
every (re)start, so the person's log matches what the database says happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dbos import DBOS

from tether import __version__
from tether.agent import Agent
from tether.ai import AssistantMessage, TetherError
from tether.gate import Approver, Catalog, Gate
from tether.session import Compactor

from ._approvals import DurableApprover
from ._engine import (
    DEFAULT_APPROVAL_EXPIRY,
    WORKFLOW_NAME,
    DurableError,
    engine_info,
    use_sqlite_wal,
)
from ._steps import STEPS_FORMAT, DurableRun

__all__ = ["BuiltRun", "RunBuilder", "RunRefused", "serve_worker"]

_log = logging.getLogger("tether.durable")

CANCEL_POLL_SECONDS = 0.5


@dataclass(slots=True)
class BuiltRun:
    """What a :data:`RunBuilder` returns: the agent, its gate, how to release it, and how to
    put back what building it replaced (the run's earlier log) when the run is refused."""

    agent: Agent
    gate: Gate
    close: Callable[[], None]
    restore: Callable[[], None] = lambda: None


RunBuilder = Callable[[dict[str, Any], str, Approver], BuiltRun]
"""``(spec, run_id, approver) -> BuiltRun``: build the run ``spec`` describes, governed by a
gate that asks ``approver``, recording its session under ``run_id``."""


class RunRefused(TetherError):
    """A run that must not go on (its record names why)."""


_builder: RunBuilder | None = None
_database = ""
_approval_expiry = DEFAULT_APPROVAL_EXPIRY


def catalog_digest(agent: Agent) -> str:
    """The digest of what the model is shown (names, descriptions, schemas, governance)."""
    return Catalog(agent.state.tools).snapshot().digest


@DBOS.step(name="tether.run_record")
async def _run_record(describe: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return describe()


@DBOS.workflow(name=WORKFLOW_NAME)
async def run_workflow(spec: dict[str, Any]) -> dict[str, Any]:
    """Run ``spec["task"]`` as a tether run; returns how it ended."""
    if _builder is None:
        raise RunRefused("no run builder: start runs with tether worker")
    run_id = DBOS.workflow_id or ""
    durable = DurableRun(gate=None)  # type: ignore[arg-type]
    approver = DurableApprover(durable, _approval_expiry)
    durable.ask_person = approver.confirm
    built = _builder(spec, run_id, approver)
    refused = False
    try:
        agent = _made_durable(built, durable)
        digest = catalog_digest(agent)
        info = engine_info(_database)

        def describe() -> dict[str, Any]:
            return {
                "tether_version": __version__,
                "steps_format": STEPS_FORMAT,
                "catalog_digest": digest,
                "engine": info.engine,
                "database": info.database,
                "task": spec.get("task", ""),
                "cwd": spec.get("cwd", ""),
            }

        refusal = _why_not_replayed(run_id, await _run_record(describe), digest)
        if refusal is not None:
            refused = True
            raise RunRefused(refusal)
        watcher = asyncio.create_task(  # outside the workflow's context: not a step
            _abort_when_cancelled(run_id, agent), context=contextvars.Context()
        )
        try:
            await agent.prompt(str(spec["task"]))
        finally:
            watcher.cancel()
        await durable.flush()  # the facts of a run that ended after its calls (terminate)
        return _outcome(agent, durable)
    finally:
        built.close()
        if refused:
            built.restore()


def _made_durable(built: BuiltRun, durable: DurableRun) -> Agent:
    """The built run's agent, its model turns, compaction summaries, gate decisions and tool
    calls made steps of the workflow."""
    durable.gate = built.gate
    built.gate.approval_timeout = None  # the durable approver's expiry governs
    agent = built.agent
    agent.stream_fn = durable.stream(agent.stream_fn)
    compactor = agent.loop_options.get("transform_context")
    if isinstance(compactor, Compactor):  # its summary is a model call too
        compactor.stream_fn = durable.stream(compactor.stream_fn, summary=True)
    before = agent.loop_options.get("before_tool_call") or _allow_all
    agent.loop_options["before_tool_call"] = durable.before_tool_call(before)
    agent.set_tools([durable.tool(tool) for tool in agent.state.tools])
    return agent


def _why_not_replayed(run_id: str, record: dict[str, Any], digest: str) -> str | None:
    """Why this worker must not carry on the run recorded as ``record``: steps of another
    shape, or another tool catalog than the one the model chose its calls among."""
    if record.get("steps_format") != STEPS_FORMAT:
        return (
            f"run {run_id} was recorded by tether {record['tether_version']} with steps "
            f"of another shape ({record.get('steps_format') or 'decided/executed'}) than "
            f"this worker replays ({STEPS_FORMAT}), so it is not recovered here. Finish it "
            "with a worker of the tether that started it."
        )
    if record["catalog_digest"] != digest:
        return (
            f"run {run_id} was started with catalog {record['catalog_digest'][:19]} "
            f"(tether {record['tether_version']}) and this worker offers {digest[:19]} "
            f"(tether {__version__}): the model chose its calls among other tools, so the "
            "run is not recovered here. Start a worker with the same tools and configuration."
        )
    return None


async def _allow_all(*_: Any) -> None:
    return None


async def _abort_when_cancelled(run_id: str, agent: Agent) -> None:
    """``tether runs cancel`` marks the workflow; this stops the run's tools (their process
    groups are killed by the abort) instead of waiting for the next step."""
    while True:
        await asyncio.sleep(CANCEL_POLL_SECONDS)
        with contextlib.suppress(Exception):
            status = await DBOS.get_workflow_status_async(run_id)
            if status is not None and status.status == "CANCELLED":
                agent.abort("the run was cancelled")
                return


def _outcome(agent: Agent, durable: DurableRun) -> dict[str, Any]:
    last = next(
        (m for m in reversed(agent.state.messages) if isinstance(m, AssistantMessage)), None
    )
    return {
        "stop_reason": last.stop_reason if last else None,
        "text": last.text() if last else "",
        "error": last.error_message if last else None,
        "interrupted_calls": sorted(durable.interrupted),
    }


def serve_worker(
    url: str,
    queue: str,
    concurrency: int,
    builder: RunBuilder,
    *,
    executor_id: str = "local",
    approval_expiry: float = DEFAULT_APPROVAL_EXPIRY,
    rate: tuple[int, float] | None = None,
    ready: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Run ``queue``'s runs, at most ``concurrency`` at a time in this process and, with
    ``rate = (N, SECONDS)``, at most N started per SECONDS over every worker of the queue (DBOS's
    queue limiter; the queue's limits are the last started worker's), until ``stop`` is set.
    Runs this executor left pending (a crash) are recovered first."""
    global _builder, _database, _approval_expiry
    if concurrency < 1:
        raise DurableError(f"--concurrency must be 1 or more, got {concurrency}")
    _builder, _database, _approval_expiry = builder, url, approval_expiry
    if url.startswith("sqlite:"):
        use_sqlite_wal()
    DBOS(
        config={
            "name": "tether",
            "system_database_url": url,
            "application_version": f"tether-{__version__}",
            "executor_id": executor_id,
            "log_level": "WARNING",
        }
    )
    DBOS.launch()
    try:
        DBOS.register_queue(
            queue,
            worker_concurrency=concurrency,
            limiter={"limit": rate[0], "period": rate[1]} if rate else None,
            polling_interval_sec=0.2,
            on_conflict="always_update",
        )
        if ready is not None:
            ready()
        (stop or threading.Event()).wait()
    finally:
        DBOS.destroy(workflow_completion_timeout_sec=0)
