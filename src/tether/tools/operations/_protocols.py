"""One small protocol per tool: the only way a tool reaches the system.

Each protocol declares just what its tool needs, so the same tool runs on this machine
(:class:`LocalOperations`), in memory (:class:`MemoryOperations`), or on a remote host, without
changing a line of the tool. Paths handed to operations are absolute (tools resolve them first).
Missing paths raise ``FileNotFoundError``, refused access ``PermissionError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from tether.ai import AbortSignal

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
    "LsOperations",
    "OutputFile",
    "ReadOperations",
    "WriteOperations",
]

FileKind = Literal["file", "directory", "other"]


@dataclass(frozen=True, slots=True)
class FileStat:
    kind: FileKind
    size: int


@dataclass(frozen=True, slots=True)
class DirEntry:
    name: str
    kind: FileKind


class ReadOperations(Protocol):
    async def stat(self, path: str) -> FileStat | None:
        """``None`` when nothing exists at ``path``."""
        ...

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes from byte ``offset`` (fewer at the end of the file)."""
        ...


class WriteOperations(Protocol):
    async def write_file(self, path: str, data: bytes) -> None:
        """Replace ``path`` atomically (never half-written), creating parent directories."""
        ...

    async def real_path(self, path: str) -> str:
        """``path`` with symlinks resolved (it need not exist)."""
        ...


class EditOperations(Protocol):
    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, data: bytes) -> None:
        """Replace ``path`` atomically (never half-written)."""
        ...

    async def real_path(self, path: str) -> str: ...


class LsOperations(Protocol):
    async def stat(self, path: str) -> FileStat | None: ...

    async def list_dir(self, path: str) -> list[DirEntry]: ...


@dataclass(frozen=True, slots=True)
class ExecResult:
    exit_code: int | None
    """``None`` when the process was killed (timeout or abort)."""
    timed_out: bool = False
    aborted: bool = False
    notice: str | None = None
    """What the runner wants said with the result (e.g. that the sandbox could not check the
    whole workspace)."""


class OutputFile(Protocol):
    """A file receiving a command's full output: written in order, then closed once."""

    @property
    def path(self) -> str:
        """Where the file is, as this backend's file tools open it."""
        ...

    def write(self, data: bytes) -> None:
        """Append ``data``; raises ``OSError`` when it cannot be stored."""
        ...

    def close(self) -> None: ...


class BashOperations(Protocol):
    def create_output_file(self, prefix: str) -> OutputFile:
        """A new, empty file for a command's output too large to show, on the machine where
        commands run, so that the read tool over the same backend can open the path the
        result names. Raises ``OSError`` when no file can be made."""
        ...

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        on_output: Callable[[bytes], None],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``command`` in a shell; stream merged stdout/stderr to ``on_output``.

        On timeout or abort the whole process tree is killed before this returns.
        """
        ...


@dataclass(frozen=True, slots=True)
class GrepQuery:
    pattern: str
    path: str
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    context: int = 0
    limit: int = 100


@dataclass(frozen=True, slots=True)
class GrepLine:
    path: str
    """Relative to the searched directory (POSIX), or the file name when a file was searched."""
    line_number: int
    text: str
    is_match: bool


@dataclass(frozen=True, slots=True)
class GrepOutcome:
    lines: Sequence[GrepLine]
    """Matches and their context lines, grouped by file, in line order. Any sequence: one that
    builds each line only when it is read saves the work on lines nobody reads."""
    match_count: int
    limit_reached: bool


class GrepOperations(Protocol):
    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        """Matching lines and their context, at most ``query.limit`` matches.

        A pattern or glob the engine rejects raises ``ValueError`` with the engine's message;
        an abort stops the search and raises :class:`~tether.ai.AbortError`.
        """
        ...


@dataclass(frozen=True, slots=True)
class FindOutcome:
    paths: list[str]
    """Relative POSIX paths under the searched directory."""
    limit_reached: bool


class FindOperations(Protocol):
    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        """Files under ``path`` matching the glob ``pattern``, sorted, at most ``limit``; a
        ``path`` naming a file gives that file when ``pattern`` matches its name, else nothing.

        An invalid glob raises ``ValueError``; an abort raises :class:`~tether.ai.AbortError`.
        """
        ...
