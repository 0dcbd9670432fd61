"""``tether worker`` and ``tether runs``: durable runs on DBOS (see :mod:`tether.durable`).

A worker builds each run exactly as print mode does (:func:`build_runtime`), with the durable
approver in place of a terminal, and records its session under ``runs/RUN.jsonl`` in the data
directory — rewritten from the durable record whenever the run is (re)started.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tether.runtime import RunSettings, build_runtime

from ._errors import CommandError

__all__ = ["run_durable"]


def run_durable(args: Any) -> int:
    from tether import durable

    try:
        url = durable.database_url()
        if args.command == "worker":
            return _worker(args, url)
        return _runs(args, url)
    except durable.DurableError as exc:
        raise CommandError(str(exc)) from None


def _worker(args: Any, url: str) -> int:
    from tether import durable

    rate = durable.parse_rate(args.rate) if args.rate else None
    limits = durable.QueueLimits(args.queue, args.concurrency, *(rate or (None, None)))

    def ready() -> None:
        print(
            f"worker {args.executor_id}: {limits.line()}; {durable.engine_info(url).line()}",
            file=sys.stderr,
            flush=True,
        )

    _warm_up()
    try:
        durable.serve_worker(
            url,
            args.queue,
            args.concurrency,
            _build_run,
            executor_id=args.executor_id,
            approval_expiry=args.approval_expiry,
            rate=rate,
            ready=ready,
        )
    except KeyboardInterrupt:
        return 130
    return 0


def _warm_up() -> None:
    """Import what every run needs before saying ready, so a run starts when it is dequeued."""
    import importlib

    for name in ("tether.tools", "tether.skills", "tether.ai.providers.openai_completions"):
        importlib.import_module(name)


def _build_run(spec: dict[str, Any], run_id: str, approver: Any) -> Any:
    from tether.durable import BuiltRun

    path = run_session_path(run_id)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    previous = f"{path}.previous"
    if os.path.exists(path):  # the durable record is the truth: the log is written again from
        os.replace(path, previous)  # it, the earlier one kept until this run may go on
    settings = RunSettings(
        cwd=str(spec["cwd"]),
        model=spec.get("model"),
        tools=tuple(spec["tools"]),
        gate=spec.get("gate"),
        session_path=path,
        sandbox=False if spec.get("no_sandbox") else None,
    )
    runtime = build_runtime(settings, approver)

    def restore() -> None:
        if os.path.exists(previous):
            os.replace(previous, path)

    return BuiltRun(runtime.agent, runtime.gate, runtime.close, restore)


def run_session_path(run_id: str) -> str:
    from tether._home import data_dir

    return str(data_dir() / "runs" / f"{run_id}.jsonl")


def _runs(args: Any, url: str) -> int:
    from tether.durable import RunsClient

    client = RunsClient(url)
    try:
        return _runs_action(client, args)
    finally:
        client.close()


def _runs_action(client: Any, args: Any) -> int:
    action = args.action
    if action == "submit":
        from ._commands import _tool_names

        cwd = os.path.abspath(args.cwd or os.getcwd())
        if not os.path.isdir(cwd):
            raise CommandError(f"--cwd {args.cwd}: not a directory")
        spec = {
            "task": args.prompt,
            "cwd": cwd,
            "model": args.model,
            "gate": args.gate,
            "tools": list(_tool_names(args.tools)),
            "no_sandbox": bool(args.no_sandbox),
        }
        print(client.submit(args.queue, spec))
        return 0
    if action == "list":
        print(client.info.line())
        for queue in client.queues():
            print(queue.line())
        for run in client.list():
            task = run.task.replace("\n", " ")[:60]
            print(f"{run.run_id}  {run.status:<9}  {run.queue}  {run.created}  {task}")
        return 0
    if action == "approve":
        pending = client.approve(args.run, args.call, args.decision, args.digest)
        print(f"{args.decision} sent for {pending['tool_name']} call {args.call} of {args.run}")
        return 0
    if action == "cancel":
        client.cancel(args.run)
        print(f"cancelled {args.run}")
        return 0
    if action == "logs":
        client.show(args.run)
        return _print_log(args.run)
    return _show(client.show(args.run), client.info.line())


def _show(run: Any, engine: str) -> int:
    print(f"run: {run.run_id}\nstatus: {run.status}\nqueue: {run.queue}\n{engine}")
    print(f"created: {run.created}  executor: {run.executor}\ntask: {run.task}")
    if run.record is not None:
        print(f"tether: {run.record['tether_version']}")
        print(f"catalog: {run.record['catalog_digest']}")
    if run.pending is not None:
        print(
            f"waiting for approval: call {run.pending['tool_call_id']} "
            f"({run.pending['tool_name']}): {run.pending['reason']}"
        )
        print(f"  digest: {run.pending['digest']}  arguments: {run.pending['args']}")
    print(f"steps: {len(run.steps)}")
    if run.error is not None:
        print(f"error: {run.error}")
    if isinstance(run.outcome, dict):
        print(f"stop reason: {run.outcome.get('stop_reason')}")
        if run.outcome.get("interrupted_calls"):
            print(f"interrupted calls: {', '.join(run.outcome['interrupted_calls'])}")
        print(f"answer: {run.outcome.get('text', '')}")
    print(f"log: {run_session_path(run.run_id)}")
    return 0


def _print_log(run_id: str) -> int:
    from tether.session import Session, SessionError

    from ._sessions_command import print_session

    path = run_session_path(run_id)
    try:
        session = Session.load(path)
    except SessionError:
        print(f"run {run_id} has no log yet (it has not started)")
        return 0
    print_session(session)
    return 0
