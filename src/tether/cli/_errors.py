"""The command's own usage error."""

from __future__ import annotations

from tether.ai import TetherError

__all__ = ["CommandError"]


class CommandError(TetherError):
    """A problem the person can fix (an option, a name, a file); the command prints it and exits
    non-zero — as it does for the run layer's :class:`tether.runtime.RunSetupError`."""
