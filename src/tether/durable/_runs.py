"""The runs from outside a worker: submit, list, show, approve, cancel — any process, any host
that reaches the database. Only the database is touched (a DBOS client); no run code loads."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ._approvals import PENDING_EVENT, approval_message, approval_topic
from ._engine import (
    WORKFLOW_NAME,
    DurableError,
    EngineInfo,
    QueueLimits,
    engine_info,
    load_dbos,
)

__all__ = ["RunInfo", "RunsClient"]


@dataclass(slots=True)
class RunInfo:
    """One run as the database records it."""

    run_id: str
    status: str
    queue: str
    task: str
    created: str
    executor: str
    spec: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    """The run's first step: tether version, catalog digest, engine, database."""
    pending: dict[str, Any] | None = None
    """The call it waits on a person for, if any."""
    outcome: Any = None
    error: str | None = None
    steps: list[str] = field(default_factory=list)


class RunsClient:
    """A connection to the runs database at ``url`` (its schema created when missing)."""

    def __init__(self, url: str) -> None:
        dbos = load_dbos()
        self.url = url
        self.info: EngineInfo = engine_info(url)
        try:
            dbos.DBOS.migrate(url)
            self._client = dbos.DBOSClient(system_database_url=url, retry_connection_errors=False)
        except Exception as exc:
            raise DurableError(
                f"cannot open the runs database ({self.info.database}): {exc}"
            ) from None

    def close(self) -> None:
        self._client.destroy()

    def submit(self, queue: str, spec: dict[str, Any]) -> str:
        """Enqueue a run on ``queue``; returns its id at once."""
        if not queue:
            raise DurableError("--queue: give the queue's name")
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        options: Any = {"workflow_name": WORKFLOW_NAME, "queue_name": queue, "workflow_id": run_id}
        self._client.enqueue(options, spec)
        return run_id

    def list(self) -> list[RunInfo]:
        rows = self._client.list_workflows(name=WORKFLOW_NAME, sort_desc=True, load_output=False)
        return [_info(row) for row in rows]

    def queues(self) -> Sequence[QueueLimits]:
        """Every queue a worker registered, with its limits."""
        found = []
        for queue in self._client.list_queues(application_name="tether"):
            limiter = queue.limiter
            found.append(
                QueueLimits(
                    queue.name,
                    queue.worker_concurrency,
                    limiter["limit"] if limiter else None,
                    limiter["period"] if limiter else None,
                )
            )
        return sorted(found, key=lambda q: q.name)

    def show(self, run_id: str) -> RunInfo:
        rows = self._client.list_workflows(workflow_ids=[run_id])
        if not rows:
            raise DurableError(f"no run {run_id!r} (tether runs list shows them)")
        info = _info(rows[0])
        steps = self._client.list_workflow_steps(run_id)
        info.steps = [str(step["function_name"]) for step in steps]
        for step in steps:
            if step["function_name"] == "tether.run_record":
                info.record = step["output"]
                break
        if info.status in ("PENDING", "ENQUEUED"):
            info.pending = self._client.get_event(run_id, PENDING_EVENT, timeout_seconds=0)
        info.outcome = rows[0].output
        info.error = str(rows[0].error) if rows[0].error is not None else None
        return info

    def pending(self, run_id: str) -> tuple[str, dict[str, Any] | None]:
        """The run's status and the call it waits on a person for (``None``: none)."""
        info = self.show(run_id)
        return info.status, info.pending

    def approve(
        self, run_id: str, call_id: str, decision: str, digest: str | None = None
    ) -> dict[str, Any]:
        """Answer the call ``run_id`` waits on; refused unless it waits on exactly ``call_id``
        (and, given ``digest``, on exactly the arguments it names: the ones the person saw)."""
        info = self.show(run_id)
        pending = info.pending
        if pending is None:
            raise DurableError(
                f"run {run_id} is not waiting for an approval ({info.status.lower()}); "
                "an answer is used once"
            )
        if pending.get("tool_call_id") != call_id:
            raise DurableError(
                f"run {run_id} waits on call {pending.get('tool_call_id')}, not {call_id}"
            )
        if digest is not None and digest != pending.get("digest"):
            raise DurableError(
                f"run {run_id} waits on call {call_id} with digest {pending.get('digest')}, "
                f"not {digest}: these are not the arguments that were shown; look again "
                "(tether runs show)"
            )
        try:
            message = approval_message(call_id, str(pending["digest"]), decision)
        except ValueError as exc:
            raise DurableError(str(exc)) from None
        self._client.send(run_id, message, topic=approval_topic(message["digest"]))
        return pending

    def cancel(self, run_id: str) -> None:
        self.show(run_id)  # a clear error for an unknown run
        self._client.cancel_workflow(run_id)


def _info(row: Any) -> RunInfo:
    args = row.input.get("args", ()) if isinstance(row.input, dict) else ()
    spec = args[0] if args and isinstance(args[0], dict) else {}
    created = (
        datetime.fromtimestamp(row.created_at / 1000).strftime("%Y-%m-%d %H:%M:%S")
        if row.created_at
        else "-"
    )
    return RunInfo(
        run_id=row.workflow_id,
        status=str(row.status),
        queue=row.queue_name or "-",
        task=str(spec.get("task", "")),
        created=created,
        executor=row.executor_id or "-",
        spec=spec,
    )
