"""Errors of the agent layer."""

from __future__ import annotations

__all__ = ["AgentBusyError", "ToolError"]


class ToolError(Exception):
    """Raise from a tool to fail with exactly this message (no exception type prefix)."""


class AgentBusyError(RuntimeError):
    """:meth:`Agent.prompt` was called while a run is active."""
