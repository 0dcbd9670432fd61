"""The seams between tools and the system: one small protocol per tool, and implementations.

``LocalOperations`` implements them all on this machine; ``MemoryOperations`` implements the
file ones (read, write, edit, ls, and grep / find) over an in-memory tree.
"""

from ._local import LocalOperations
from ._memory import MemoryOperations
from ._protocols import (
    BashOperations,
    DirEntry,
    EditOperations,
    ExecResult,
    FileKind,
    FileStat,
    FindOperations,
    FindOutcome,
    GrepLine,
    GrepOperations,
    GrepOutcome,
    GrepQuery,
    LsOperations,
    OutputFile,
    ReadOperations,
    WriteOperations,
)

__all__ = [
    "BashOperations",
    "DirEntry",
    "EditOperations",
    "ExecResult",
    "FileKind",
    "FileStat",
    "FindOperations",
    "FindOutcome",
    "GrepLine",
    "GrepOperations",
    "GrepOutcome",
    "GrepQuery",
    "LocalOperations",
    "LsOperations",
    "MemoryOperations",
    "OutputFile",
    "ReadOperations",
    "WriteOperations",
]
