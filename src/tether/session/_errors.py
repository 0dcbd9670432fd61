"""The session package's own error, in a module of its own so that every module of the package
(the session, its recording of an agent, the store) can raise or catch it without importing
another's."""

from __future__ import annotations

from tether.ai import TetherError

__all__ = ["SessionError"]


class SessionError(TetherError, ValueError):
    """A session file that cannot be used: missing, or without a valid header."""
