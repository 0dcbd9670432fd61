"""The root of every exception tether raises on purpose.

``except tether.TetherError`` catches all of them and nothing else: a bug (``TypeError``,
``KeyError``...) is never one. Each error also keeps the built-in base it had before the root
existed (``SessionError`` is still a ``ValueError``), so older ``except`` clauses go on working.

It lives in the lowest layer, so that every package can derive from it without importing upward.
"""

from __future__ import annotations

__all__ = ["TetherError"]


class TetherError(Exception):
    """Base class of every public tether exception.

    The tree, by the package that raises each one::

        TetherError
        ├── tether.ai: ToolArgumentsError (ValueError), AbortError
        ├── tether.ai.providers: UnknownModelError (ValueError), ModelsConfigError (ValueError)
        ├── tether.agent: ToolError, AgentBusyError (RuntimeError)
        ├── tether.tools: TaskLimitError
        ├── tether.session: SessionError (ValueError), CompactionError (RuntimeError)
        ├── tether.remote: RemoteConnectionError (ConnectionError), HandConfigError (ValueError),
        │   │              RemoteTargetError (ValueError)
        │   └── RemoteConnectionError: HostKeyMismatchError
        ├── tether.mcp: McpConfigError (ValueError), McpTokenError (ValueError), ServerGone
        └── tether.durable: DurableError, RunRefused
    """
