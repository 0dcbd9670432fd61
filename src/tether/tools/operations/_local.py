"""``LocalOperations``: every tool's operations on this machine."""

from __future__ import annotations

from ._local_exec import LocalExecOperations
from ._local_files import LocalFileOperations
from ._ripgrep import RipgrepOperations

__all__ = ["LocalOperations"]


class LocalOperations(LocalFileOperations, LocalExecOperations, RipgrepOperations):
    """Files through the OS, commands through a process-tree-aware shell runner, search on rg."""
