"""The seams between tools and the system: one small protocol per tool, and implementations.

``LocalOperations`` implements them all on this machine; ``MemoryOperations`` implements the
file ones (read, write, edit, ls, and grep / find) over an in-memory tree. For backends that run
ripgrep elsewhere (a remote host), the arguments tether gives ``rg`` (``RG_*``, and a grep
query's whole argument list, :func:`rg_grep_args`), how a user's glob becomes rg arguments plus
a path test (:class:`RipgrepGlobFilter`) and the glob matcher itself (:func:`compile_glob`) are
public, so every backend searches the same way. :func:`reaped_argv`
runs a long-lived process (an MCP server) under the reaper that kills ``bash``'s process trees.
"""

from ._glob import compile_glob
from ._local import LocalOperations
from ._local_exec import reaped_argv
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
from ._ripgrep import (
    RG_COMMON_ARGS,
    RG_EXCLUDE_GIT_DIR,
    RG_EXCLUDE_SECRETS,
    RG_GREP_OUTPUT_ARGS,
    RipgrepGlobFilter,
    rg_grep_args,
)

__all__ = [
    "RG_COMMON_ARGS",
    "RG_EXCLUDE_GIT_DIR",
    "RG_EXCLUDE_SECRETS",
    "RG_GREP_OUTPUT_ARGS",
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
    "RipgrepGlobFilter",
    "WriteOperations",
    "compile_glob",
    "reaped_argv",
    "rg_grep_args",
]
