"""Errors of the agent layer."""

from __future__ import annotations

from typing import Any

from tether.ai import TetherError

__all__ = ["AgentBusyError", "ToolError"]


class ToolError(TetherError):
    """Raise from a tool to fail with exactly this message (no exception type prefix).

    ``details`` becomes the error result's ``details`` (e.g. an exit code next to the output).
    """

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.details = details


class AgentBusyError(TetherError, RuntimeError):
    """:meth:`Agent.prompt` was called while a run is active."""
