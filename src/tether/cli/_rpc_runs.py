"""rpc commands on durable runs: a client attached to ``tether --mode rpc`` sees what a run
waits on and answers it, as ``tether runs show`` and ``tether runs approve`` do.

- ``{"type": "run_pending", "run": RUN}`` → ``{"status": …, "pending": [call]}`` (the call it
  waits on a person for — id, tool, arguments, reason, digest, expiry — or ``[]``);
- ``{"type": "run_approval", "run": RUN, "call": CALL, "decision": "allow_once"|"deny_once",
  "digest": D}`` → success once the answer is sent. The digest is required: the answer binds to
  the arguments the person was shown, and a run takes one answer per call (a second is refused).

The database is reached in a thread, so the rpc loop keeps reading commands meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["RUN_COMMANDS", "finish_run_commands", "handle_run_command"]

RUN_COMMANDS = ("run_pending", "run_approval")

_answering: set[asyncio.Task[None]] = set()


def handle_run_command(
    kind: str, command: dict[str, Any], write: Callable[[dict[str, Any]], None]
) -> None:
    """Check ``command`` and answer it through ``write`` (a failure says what was wrong)."""
    run = command.get("run")
    if not isinstance(run, str) or not run:
        write(_failure(kind, '"run" must be a run id (tether runs list)'))
        return
    if kind == "run_approval":
        call, decision, digest = (command.get(k) for k in ("call", "decision", "digest"))
        if not isinstance(call, str) or not call:
            write(_failure(kind, '"call" must be the id of the call the run waits on'))
            return
        if decision not in ("allow_once", "deny_once"):
            write(_failure(kind, '"decision" must be one of allow_once, deny_once'))
            return
        if not isinstance(digest, str) or not digest:
            write(_failure(kind, '"digest" must be the digest run_pending showed'))
            return

    async def answer() -> None:
        try:
            data = await asyncio.to_thread(_ask_database, kind, command)
        except Exception as exc:  # a DurableError says why; anything else is reported too
            write(_failure(kind, str(exc)))
        else:
            write({"type": "response", "command": kind, "success": True, "run": run, **data})

    task = asyncio.ensure_future(answer())
    _answering.add(task)
    task.add_done_callback(_answering.discard)


async def finish_run_commands() -> None:
    """Wait for the answers still on their way (input ended right after a command)."""
    if _answering:
        await asyncio.gather(*_answering, return_exceptions=True)


def _ask_database(kind: str, command: dict[str, Any]) -> dict[str, Any]:
    from tether.durable import RunsClient, database_url

    client = RunsClient(database_url())
    try:
        if kind == "run_pending":
            status, pending = client.pending(command["run"])
            return {"status": status, "pending": [pending] if pending else []}
        sent = client.approve(
            command["run"], command["call"], command["decision"], command["digest"]
        )
        return {"call": sent["tool_call_id"], "decision": command["decision"]}
    finally:
        client.close()


def _failure(command: str, error: str) -> dict[str, Any]:
    return {"type": "response", "command": command, "success": False, "error": error}
