"""``grep`` and ``find`` on the remote host, by running ripgrep (``rg``) there.

The arguments are the ones the local search uses, so the tools see the same semantics:
``.gitignore``/``.ignore`` respected, hidden files included, binary files skipped, git's own
data and the path policy's secret files (:data:`tether.gate.SECRET_SEARCH_GLOBS`) never
searched. An including glob becomes an rg file type (a ``--glob`` whitelist would override
.gitignore); its directory part, which a type cannot express, is tested here. The output is read
as it arrives and the search is stopped as soon as the limit is known to be exceeded. Without
``rg`` on the remote host's ``PATH`` both raise ``RuntimeError`` saying so.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from tether.ai import AbortSignal
from tether.tools.operations import (
    RG_COMMON_ARGS,
    RG_EXCLUDE_GIT_DIR,
    FindOutcome,
    GrepLine,
    GrepOutcome,
    GrepQuery,
    RipgrepGlobFilter,
    compile_glob,
    rg_grep_args,
)

from ._connection import SSHConnection
from ._files import RemoteFiles
from ._process import RemoteRun, run_remote

__all__ = ["RemoteSearch"]


class RemoteSearch:
    """grep and find through ``rg`` on the host."""

    def __init__(self, connection: SSHConnection, files: RemoteFiles) -> None:
        self._ssh = connection
        self._files = files

    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        workdir, target = await self._search_root(query.path)
        args, glob_filter = rg_grep_args(query, target)
        collector = _MatchCollector(query.limit, query.context, glob_filter.accepts)
        run = await self._run(args, workdir, _Records(collector.add_block, b"\n"), signal)
        self._raise_if_refused(run, produced_output=collector.received_output)
        return collector.outcome()

    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        workdir, target = await self._search_root(path)
        if target != ".":
            name = posixpath.basename(path)
            return FindOutcome([name] if compile_glob(pattern)(name) else [], False)
        glob_filter = RipgrepGlobFilter.for_glob(pattern, searching_directory=True)
        type_args, accepts = glob_filter.args, glob_filter.accepts
        args = ["--files", "--null", *RG_COMMON_ARGS, *type_args, *RG_EXCLUDE_GIT_DIR]
        listing = _Listing(accepts)
        run = await self._run(args, workdir, _Records(listing.add_block, b"\0"), signal)
        self._raise_if_refused(run, produced_output=listing.received_output)
        paths = sorted(listing.paths)
        return FindOutcome(paths[:limit], len(paths) > limit)

    async def _search_root(self, path: str) -> tuple[str, str]:
        info = await self._files.stat(path)
        if info is None:
            raise FileNotFoundError(f"No such file or directory: '{path}'")
        if info.kind == "directory":
            return path, "."
        return posixpath.dirname(path) or "/", "./" + posixpath.basename(path)

    async def _run(
        self,
        args: list[str],
        workdir: str,
        records: _Records,
        signal: AbortSignal | None,
    ) -> RemoteRun:
        if signal is not None:
            signal.throw_if_aborted()
        run = await run_remote(
            self._ssh,
            shlex.join(["rg", *args]) + " </dev/null",
            cwd=workdir,
            on_stdout=records.feed,
            merge_stderr=False,
            signal=signal,
        )
        if run.outcome == "aborted" and signal is not None:
            signal.throw_if_aborted()
        return run

    def _raise_if_refused(self, run: RemoteRun, *, produced_output: bool) -> None:
        message = run.stderr.decode("utf-8", errors="replace").strip()
        if run.exit_code == 127:
            raise RuntimeError(
                f"ripgrep (rg) was not found on {self._ssh.address}: grep and find run it on the "
                "remote host; install ripgrep there (its 'ripgrep' package) or put rg on PATH."
            )
        lines = [line.removeprefix("rg: ") for line in message.splitlines()]
        only_file_errors = bool(lines) and all("(os error" in line for line in lines)
        if run.exit_code == 2 and not produced_output and not only_file_errors:
            raise ValueError("\n".join(lines) or "rg refused the search")
        if run.exit_code is not None and run.exit_code not in (0, 1, 2):
            raise RuntimeError(f"rg failed with exit code {run.exit_code}: {message}")


class _Records:
    """Cuts rg's output into blocks of whole records, each ending with ``terminator``."""

    def __init__(self, on_block: Callable[[bytes], bool], terminator: bytes) -> None:
        self._on_block = on_block
        self._terminator = terminator
        self._pending = b""

    def feed(self, chunk: bytes) -> bool:
        data = self._pending + chunk
        end = data.rfind(self._terminator) + 1
        self._pending = data[end:]
        return end == 0 or self._on_block(data[:end])


def _relative(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _outside_git_dir(path: str) -> bool:
    return not (
        path == ".git" or path.startswith(".git/") or path.endswith("/.git") or "/.git/" in path
    )


@dataclass
class _Listing:
    accepts: Callable[[str], bool] | None
    paths: list[str] = field(default_factory=list)
    received_output: bool = False

    def add_block(self, block: bytes) -> bool:
        self.received_output = True
        found = [_relative(p) for p in block.decode("utf-8", errors="replace").split("\0")[:-1]]
        found = [p for p in found if _outside_git_dir(p)]
        if self.accepts is not None:
            found = list(filter(self.accepts, found))
        self.paths += found
        return True


@dataclass
class _MatchCollector:
    """Matches and context up to ``limit`` matches, grouped by file; ``False`` once exceeded."""

    limit: int
    context: int
    accepts: Callable[[str], bool] | None
    match_count: int = 0
    limit_reached: bool = False
    received_output: bool = False
    _files: dict[str, list[GrepLine]] = field(default_factory=dict)
    _last_match: dict[str, int] = field(default_factory=dict)

    def add_block(self, block: bytes) -> bool:
        self.received_output = True
        for record in block.decode("utf-8", errors="replace").split("\n")[:-1]:
            printed_path, has_path, rest = record.partition("\0")
            if not has_path:
                continue  # rg's note about a binary file
            path = _relative(printed_path)
            if self.accepts is not None and not self.accepts(path):
                continue
            text = rest.lstrip("0123456789")
            line_number = int(rest[: len(rest) - len(text)])
            is_match = text.startswith(":")
            lines = self._files.setdefault(path, [])
            if self.match_count < self.limit:
                if is_match:
                    self.match_count += 1
                    self._last_match[path] = line_number
            elif is_match:
                self.limit_reached = True
                return False
            elif not self._trails_last_match(path, line_number):
                continue
            lines.append(GrepLine(path, line_number, text[1:].removesuffix("\r"), is_match))
        return True

    def _trails_last_match(self, path: str, line_number: int) -> bool:
        last = self._last_match.get(path)
        return last is not None and last < line_number <= last + self.context

    def outcome(self) -> GrepOutcome:
        lines = [line for path in sorted(self._files) for line in self._files[path]]
        return GrepOutcome(lines, self.match_count, self.limit_reached)
