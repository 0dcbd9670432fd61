"""Durable runs: a tether run as a DBOS workflow that survives its process.

Layering: above ``agent``, ``gate`` and ``session`` (it wraps the loop's stream function, the
gate's hook and each tool, and reuses the session's ``interrupted`` answer), below ``cli``
(which builds the run and offers ``tether worker`` and ``tether runs``). Needs the ``durable``
extra (``dbos``); the modules that import it load only when a durable command runs:

- :mod:`._engine` — the database (``$TETHER_DB`` or SQLite) and what ``tether runs`` shows of it;
- :mod:`._steps` — :class:`DurableRun`: model calls, decisions and tool results as steps;
- :mod:`._approvals` — a call that needs a person parks the run on ``DBOS.recv``;
- :mod:`._workflow` — the workflow and :func:`serve_worker`;
- :mod:`._runs` — :class:`RunsClient`: submit, list, show, approve, cancel from any process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._engine import (
    DEFAULT_APPROVAL_EXPIRY,
    WORKFLOW_NAME,
    DurableError,
    EngineInfo,
    QueueLimits,
    database_url,
    engine_info,
    parse_rate,
    use_sqlite_wal,
)

if TYPE_CHECKING:
    from ._approvals import ANSWERS, DurableApprover, approval_topic
    from ._runs import RunInfo, RunsClient
    from ._steps import DurableRun, call_digest
    from ._workflow import BuiltRun, RunBuilder, RunRefused, serve_worker

__all__ = [
    "ANSWERS",
    "DEFAULT_APPROVAL_EXPIRY",
    "WORKFLOW_NAME",
    "BuiltRun",
    "DurableApprover",
    "DurableError",
    "DurableRun",
    "EngineInfo",
    "QueueLimits",
    "RunBuilder",
    "RunInfo",
    "RunRefused",
    "RunsClient",
    "approval_topic",
    "call_digest",
    "database_url",
    "engine_info",
    "parse_rate",
    "serve_worker",
    "use_sqlite_wal",
]

_LAZY = {
    "ANSWERS": "._approvals",
    "DurableApprover": "._approvals",
    "approval_topic": "._approvals",
    "RunInfo": "._runs",
    "RunsClient": "._runs",
    "DurableRun": "._steps",
    "call_digest": "._steps",
    "BuiltRun": "._workflow",
    "RunBuilder": "._workflow",
    "RunRefused": "._workflow",
    "serve_worker": "._workflow",
}


def __getattr__(name: str) -> Any:
    """The names that need ``dbos`` load it on first use (a clear error when it is missing)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tether.durable' has no attribute {name!r}")
    from importlib import import_module

    from ._engine import load_dbos

    load_dbos()
    return getattr(import_module(module, __name__), name)
