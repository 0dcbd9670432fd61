"""The run layer's error: a run that cannot start as it was asked."""

from __future__ import annotations

from tether.ai import TetherError

__all__ = ["RunSetupError"]


class RunSetupError(TetherError):
    """A run that cannot start as asked, for a reason the person can fix: a working directory
    that is not one, an unknown model or a missing key, a session that cannot be opened or
    written, an unknown tool, an unreachable remote host. Its text says what to change."""
