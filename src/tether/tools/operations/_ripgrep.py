"""``RipgrepOperations``: the grep and find operations on this machine, on ripgrep (``rg``).

ripgrep already has the semantics the tools promise — ``.gitignore``/``.ignore`` respected,
hidden files included, binary files skipped — and it is fast, so the tools get them by running it
rather than reimplementing them. The binary comes from the PyPI ``ripgrep`` package, which puts
``rg`` beside the interpreter; ``rg`` on ``PATH`` is the fallback. Nothing is downloaded.

Every run is a subprocess without a shell, started, read and reaped by a thread of its own while
the event loop waits. Output is read as a stream, so a search stops (and ``rg`` is killed) as soon
as the limit is known to be exceeded; an abort or a cancellation kills ``rg`` too, before the call
returns.

Speed is rg's, within a few milliseconds: rg's plain output (not ``--json``) is read in large
blocks and split with ``str`` methods, a grep line becomes a :class:`GrepLine` only when it is
read, and a listing is sorted here rather than by rg (``--sort`` walks on one thread).
"""

from __future__ import annotations

import _thread
import asyncio
import bisect
import concurrent.futures
import contextlib
import functools
import heapq
import itertools
import os
import select
import shutil
import stat as stat_module
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import IO, Protocol, overload

from tether.ai import AbortSignal

from ._glob import compile_glob
from ._protocols import FindOutcome, GrepLine, GrepOutcome, GrepQuery
from ._secret_files import SECRET_FILE_GLOBS

if sys.platform == "linux":
    import fcntl

__all__ = [
    "RG_COMMON_ARGS",
    "RG_EXCLUDE_GIT_DIR",
    "RG_EXCLUDE_SECRETS",
    "RG_GREP_OUTPUT_ARGS",
    "RipgrepGlobFilter",
    "RipgrepOperations",
    "locate_ripgrep",
    "rg_grep_args",
]

_READ_CHUNK = 1024 * 1024
_PIPE_SIZE = 1024 * 1024  # Linux's default limit for an unprivileged pipe
_SMALL_READ = 16 * 1024
_GATHER_MILLISECONDS = 1
_STDERR_KEEP = 16 * 1024

RG_COMMON_ARGS = (
    "--no-config",  # a user's RIPGREP_CONFIG_PATH must not change what the tools see
    "--hidden",
    "--no-require-git",  # .gitignore applies outside a git repository too
)
RG_EXCLUDE_GIT_DIR = ("--glob", "!.git")  # last, so no user glob can re-include it
"""The exclusion of git's own data. grep always passes it. find filters ``.git`` paths out
itself (:func:`_outside_git_dir`) and passes it only when the searched directory holds a
``.git``: there it prunes a store of loose objects that could double rg's walk, while in a tree
without one it is pure cost — rg tests it against every path it walks, a quarter of find's time
on 11,670 files."""
RG_EXCLUDE_SECRETS = tuple(arg for glob in SECRET_FILE_GLOBS for arg in ("--iglob", f"!{glob}"))


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


RG_GREP_OUTPUT_ARGS = (
    # One line per record: PATH NUL NUMBER ':' TEXT for a match, PATH NUL NUMBER '-' TEXT for a
    # context line, no '--' between groups. A line number is all digits, so the first byte after
    # it tells the kinds apart whatever the text holds. rg's notes on binary files (``PATH:
    # WARNING: ...``) have no NUL, nor has the part before a newline in a path.
    "--null",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--color",
    "never",
    "--field-match-separator",
    ":",
    "--field-context-separator",
    "-",
    "--no-context-separator",
)

_FIND_PRUNE_SLACK = 64 * 1024  # paths held beyond the limit before the excess is dropped


class RipgrepOperations:
    """``grep`` and ``find`` implemented by running ``rg``."""

    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        workdir, target = _search_root(query.path)
        args, glob_filter = rg_grep_args(query, target)
        collector = _MatchCollector(query.limit, query.context, glob_filter.accepts)
        await _ripgrep_into(collector, args, workdir, signal, terminator=b"\n")
        return collector.outcome()

    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        workdir, target = _search_root(path)
        glob_filter = RipgrepGlobFilter.for_glob(pattern, searching_directory=target == ".")
        if target != "." and not compile_glob(pattern)(os.path.basename(path)):
            return FindOutcome([], False)  # rg lists a file it is named whatever the glob
        prune_git = target == "." and os.path.lexists(os.path.join(workdir, ".git"))
        args = _find_args(glob_filter, target, prune_git=prune_git)
        listing = _Listing(limit, glob_filter.accepts, skip_git_dirs=target == ".")
        await _ripgrep_into(listing, args, workdir, signal, terminator=b"\0")
        return listing.outcome()


def rg_grep_args(query: GrepQuery, target: str) -> tuple[list[str], RipgrepGlobFilter]:
    """rg's arguments for ``query``, run in its search root with ``target`` the path argument
    (``"."`` for the root directory itself, ``./NAME`` for one file in it), and the glob filter
    whose ``accepts`` the printed paths must still pass. Every backend that runs ``rg`` for
    grep builds them here, so the searches agree."""
    args = [*RG_GREP_OUTPUT_ARGS, *RG_COMMON_ARGS]
    if target != ".":
        args.append("--text")  # a file named explicitly is searched even if it is binary
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    if query.context > 0:
        args += ["--context", str(query.context)]
    glob_filter = RipgrepGlobFilter.for_glob(query.glob, searching_directory=target == ".")
    args += [*glob_filter.args, *RG_EXCLUDE_GIT_DIR, *RG_EXCLUDE_SECRETS]
    args += ["--regexp", query.pattern, *_path_args(target)]
    return args, glob_filter


def _find_args(
    glob_filter: RipgrepGlobFilter, target: str, *, prune_git: bool = False
) -> list[str]:
    """rg's arguments for find. No --sort: it makes rg walk the tree on one thread, and sorting
    here is much cheaper."""
    args = ["--files", "--null", *RG_COMMON_ARGS, *glob_filter.args]
    return [*args, *(RG_EXCLUDE_GIT_DIR if prune_git else ()), *_path_args(target)]


def _path_args(target: str) -> list[str]:
    """No path for the directory rg runs in: rg then searches it and prints paths without a
    ``./`` before each (less to write and to strip). It would search its standard input
    instead if that were a pipe or a file; it is ``/dev/null``, which rg never reads."""
    return [] if target == "." else ["--", target]


def _search_root(path: str) -> tuple[str, str]:
    """The directory to run ``rg`` in and the path argument to give it.

    ``rg`` runs inside the searched directory so that globs with a slash (``src/*.py``) match
    relative to it and reported paths come out relative; a file is searched from its parent.
    The stat is not sent to a thread: starting ``rg`` in that directory blocks the event loop on
    the same file system anyway (the parent waits until the child has changed into it and exec'd),
    and a first worker thread costs milliseconds.
    """
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(f"No such file or directory: '{path}'") from None
    if stat_module.S_ISDIR(info.st_mode):
        return path, "."
    return os.path.dirname(path) or ".", "./" + os.path.basename(path)


@dataclass(frozen=True, slots=True)
class RipgrepGlobFilter:
    """How a user's glob is applied: arguments for rg, plus a path test rg cannot do itself.

    rg's ``--glob`` is an override that beats .gitignore (``--glob '*.py'`` lists ignored
    ``.py`` files too), so an including glob becomes a file type instead — types filter after
    the ignore rules but see only file names — and any directory part is tested here in Python.
    An excluding glob (``!*.min.js``) cannot re-include anything, so it goes to rg as it is.
    """

    args: tuple[str, ...] = ()
    accepts: Callable[[str], bool] | None = None

    @classmethod
    def for_glob(cls, glob: str | None, *, searching_directory: bool) -> RipgrepGlobFilter:
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


_LINE_NUMBER_DIGITS = "0123456789"


@dataclass
class _MatchCollector:
    """Keeps matches and context lines up to ``limit`` matches, grouped by file.

    After the last kept match only its own trailing context is kept; the search goes on until a
    further match proves the limit was exceeded (then :meth:`add_block` returns ``False``) or rg
    ends. rg prints each file's lines together, so a file's group is complete before the next.
    Lines are kept as rg printed them (``NUMBER:TEXT``, ``NUMBER-TEXT``) and become
    :class:`GrepLine` only when read (see :class:`_RipgrepLines`).
    """

    limit: int
    context: int
    accepts: Callable[[str], bool] | None = None
    match_count: int = 0
    limit_reached: bool = False
    received_output: bool = False
    _files: list[tuple[str, list[str]]] = field(default_factory=list)
    _printed_path: str | None = None
    _records: list[str] | None = None
    """The current file's lines; ``None`` while its path is filtered out."""
    _last_match: int | None = None
    """Line number of the current file's last kept match."""
    _path_start: str | None = None
    """The part before a newline of a path that holds one (the record goes on after it)."""

    def add_block(self, block: bytes) -> bool:
        """Add whole lines of rg's output; ``False`` once the limit is known to be exceeded."""
        self.received_output = True
        records = block.decode("utf-8", errors="replace").split("\n")
        records.pop()  # the empty string after the block's final newline
        for line in records:
            record = line if self._path_start is None else f"{self._path_start}\n{line}"
            printed_path, has_path, rest = record.partition("\0")
            self._path_start = None
            if not has_path:
                if not _is_binary_note(record):
                    self._path_start = record
                continue
            if printed_path != self._printed_path:
                self._start_file(printed_path)
            if self._records is None:
                continue
            if self.context == 0:
                line_number, is_match = 0, True  # without context every line is a match
            else:
                line_number, is_match, _ = _parse_record(rest)
            if self.match_count < self.limit:
                if is_match:
                    self.match_count += 1
                    self._last_match = line_number
            elif is_match:
                self.limit_reached = True
                return False
            elif not self._trails_last_match(line_number):
                continue
            self._records.append(rest)
        return True

    def _start_file(self, printed_path: str) -> None:
        self._printed_path = printed_path
        self._last_match = None
        path = _relative(printed_path)
        if self.accepts is not None and not self.accepts(path):
            self._records = None
            return
        self._records = []
        self._files.append((path, self._records))

    def _trails_last_match(self, line_number: int) -> bool:
        last = self._last_match
        return last is not None and last < line_number <= last + self.context

    def outcome(self) -> GrepOutcome:
        # rg searches files in parallel; sorting the files by path makes the output deterministic.
        files = sorted(self._files, key=itemgetter(0))
        return GrepOutcome(_RipgrepLines(files), self.match_count, self.limit_reached)


def _parse_record(record: str) -> tuple[int, bool, str]:
    """Line number, whether it is a match, and text of ``NUMBER:TEXT`` or ``NUMBER-TEXT``."""
    text = record.lstrip(_LINE_NUMBER_DIGITS)
    return int(record[: len(record) - len(text)]), text.startswith(":"), text[1:].removesuffix("\r")


def _is_binary_note(line: str) -> bool:
    """rg's ``PATH: WARNING: stopped searching binary file after match (found "\\0" byte
    around offset N)``, or its ``PATH: binary file matches (...)``."""
    return '(found "\\0" byte around offset' in line


class _RipgrepLines(Sequence[GrepLine]):
    """Files' lines as rg printed them, parsed into :class:`GrepLine` only when read.

    A search may return thousands of lines of which a model is shown the first few hundred;
    parsing the rest would cost more than the search.
    """

    def __init__(self, files: list[tuple[str, list[str]]]) -> None:
        self._files = files
        self._starts = list(itertools.accumulate((len(lines) for _, lines in files), initial=0))

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> GrepLine: ...

    @overload
    def __getitem__(self, index: slice) -> list[GrepLine]: ...

    def __getitem__(self, index: int | slice) -> GrepLine | list[GrepLine]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("line index out of range")
        file = bisect.bisect_right(self._starts, position) - 1
        path, records = self._files[file]
        return _grep_line(path, records[position - self._starts[file]])

    def __iter__(self) -> Iterator[GrepLine]:
        for path, records in self._files:
            for record in records:
                yield _grep_line(path, record)


def _grep_line(path: str, record: str) -> GrepLine:
    line_number, is_match, text = _parse_record(record)
    return GrepLine(path, line_number, text, is_match)


@dataclass
class _Listing:
    """The first ``limit`` paths in sorted order, holding at most ``limit`` plus a slack."""

    limit: int
    accepts: Callable[[str], bool] | None = None
    skip_git_dirs: bool = True
    """Drop paths inside ``.git`` (a directory search; a file named explicitly stays)."""
    paths: list[str] = field(default_factory=list)
    found: int = 0
    received_output: bool = False

    def add_block(self, block: bytes) -> bool:
        """Add NUL-terminated paths as rg prints them (``./`` before each); always ``True``."""
        self.received_output = True
        # A NUL ends every path, so a leading one makes "\0./" mark exactly each path's start.
        paths = ("\0" + block.decode("utf-8", errors="replace")).replace("\0./", "\0")
        found = paths.split("\0")[1:-1]
        if self.skip_git_dirs and ".git" in paths:
            found = list(filter(_outside_git_dir, found))
        if self.accepts is not None:
            found = list(filter(self.accepts, found))
        found.sort()  # while rg still runs; the final sort then merges sorted runs, 4x faster
        self.found += len(found)
        self.paths += found
        if len(self.paths) > self.limit + _FIND_PRUNE_SLACK:
            self.paths = heapq.nsmallest(self.limit, self.paths)
        return True

    def outcome(self) -> FindOutcome:
        return FindOutcome(sorted(self.paths)[: self.limit], self.found > self.limit)


def _outside_git_dir(path: str) -> bool:
    """Whether no component of a relative path is ``.git`` (a repository's directory, or the
    file that points a submodule's work tree at it)."""
    return not (
        path == ".git" or path.startswith(".git/") or path.endswith("/.git") or "/.git/" in path
    )


def _relative(path: str) -> str:
    return path[2:] if path.startswith("./") else path


class _Records(Protocol):
    """Where rg's output goes, in blocks of whole records; ``add_block`` returns ``False`` to stop
    rg early (enough is known)."""

    received_output: bool

    def add_block(self, block: bytes) -> bool: ...


async def _ripgrep_into(
    records: _Records,
    args: list[str],
    workdir: str,
    signal: AbortSignal | None,
    *,
    terminator: bytes,
) -> None:
    """Run ``rg`` to its end with its output going to ``records``, then raise what it refused."""
    async with _running_ripgrep(
        args, workdir, signal, terminator=terminator, on_block=records.add_block
    ) as run:
        exit_code = await run.finish()
    _raise_if_refused(exit_code, run, produced_output=records.received_output)


def _raise_if_refused(exit_code: int | None, run: _RipgrepRun, *, produced_output: bool) -> None:
    """0 = found, 1 = nothing found, 2 = errors on some files (results so far still stand).

    Exit 2 with no output and an error that is not about a file means rg refused the query
    (bad regex or glob) before searching anything.
    """
    if exit_code == 2 and not produced_output and not run.only_file_errors():
        raise ValueError(run.error_message())
    if exit_code is not None and exit_code not in (0, 1, 2):
        raise RuntimeError(f"rg failed with exit code {exit_code}: {run.error_message()}")


class _RipgrepRun:
    """One ``rg``, read and reaped by a thread of its own; the event loop only waits.

    stdout goes to ``on_block`` in blocks of whole records (each ending with ``terminator``)
    until ``on_block`` returns ``False`` (then rg is killed) or the output ends; stderr goes to a
    temporary file, of which the start is kept. Why a thread rather than an asyncio subprocess:
    rg writes once per file, often a few hundred bytes, and waking up for each write costs more
    CPU than parsing the output, CPU that rg, searching on every core, would otherwise have; so
    after a small read the thread waits a moment, or until rg closes its end, to let writes
    gather in the pipe. And an asyncio subprocess starts a watcher thread (and connects its pipes)
    while rg already competes for the cores, which took milliseconds.
    """

    def __init__(
        self,
        args: list[str],
        workdir: str,
        signal: AbortSignal | None,
        *,
        terminator: bytes,
        on_block: Callable[[bytes], bool],
    ) -> None:
        self.signal = signal
        self._terminator = terminator
        self._on_block = on_block
        self._stderr = b""
        self._exit_code: int | None = None
        command = [locate_ripgrep(), *args]
        with contextlib.ExitStack() as opened:
            stderr = opened.enter_context(tempfile.TemporaryFile())
            read_end, write_end = os.pipe()
            opened.callback(os.close, read_end)
            try:
                if sys.platform == "linux":  # room for rg to write on while its output gathers
                    with contextlib.suppress(OSError):
                        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
                self._process = subprocess.Popen(
                    command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=write_end, stderr=stderr
                )
            finally:
                os.close(write_end)  # rg holds it now: the output ends when rg exits
            owned_by_thread = opened.pop_all()
        self._done: concurrent.futures.Future[bool] = concurrent.futures.Future()
        self._done.set_running_or_notify_cancel()  # runs to the end, even for a cancelled call
        # Not threading.Thread: its start() waits until the new thread runs, which took
        # milliseconds once rg was busy on every core. _run reports everything through _done.
        try:
            _thread.start_new_thread(self._run, (read_end, stderr, owned_by_thread))
        except BaseException:
            self.kill()
            self._process.wait()
            owned_by_thread.close()
            raise

    async def finish(self) -> int | None:
        """Wait for rg to end; its exit code, or ``None`` if it was killed for stopping early.

        Raises :class:`~tether.ai.AbortError` when the signal fired during the run.
        """
        stopped_early = await asyncio.wrap_future(self._done)
        if self.signal is not None:
            self.signal.throw_if_aborted()
        return None if stopped_early else self._exit_code

    def kill(self) -> None:
        """Kill rg if it still runs; safe from any thread."""
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()

    async def close(self) -> None:
        """Kill rg if it still runs; return once it is reaped."""
        self.kill()
        await asyncio.wait([asyncio.wrap_future(self._done)])

    def error_message(self) -> str:
        lines = [line.removeprefix("rg: ") for line in self._stderr_lines()]
        return "\n".join(lines) or f"rg exited with code {self._exit_code}"

    def only_file_errors(self) -> bool:
        """Whether every error rg reported concerns one file or directory (an OS error)."""
        lines = self._stderr_lines()
        return bool(lines) and all("(os error" in line for line in lines)

    def _stderr_lines(self) -> list[str]:
        return self._stderr.decode("utf-8", errors="replace").strip().splitlines()

    def _run(self, read_end: int, stderr: IO[bytes], owned: contextlib.ExitStack) -> None:
        """Read rg's output, kill rg if it was cut short, reap it, keep the start of stderr."""
        try:
            with owned:
                complete = self._feed(read_end)
                if not complete:
                    self.kill()
                self._exit_code = self._process.wait()
                stderr.seek(0)
                self._stderr = stderr.read(_STDERR_KEEP)
        except BaseException as error:  # raised again in the awaiting task
            self._done.set_exception(error)
        else:
            self._done.set_result(not complete)

    def _feed(self, read_end: int) -> bool:
        """Hand rg's output to ``on_block``; ``False`` if ``on_block`` stopped it."""
        terminator, on_block = self._terminator, self._on_block
        hangup = select.poll()
        hangup.register(read_end, 0)  # no events asked for: poll reports only the writer's end
        pending: list[bytes] = []  # the start of a record that goes on in the next read
        while chunk := os.read(read_end, _READ_CHUNK):
            end = chunk.rfind(terminator) + 1
            if end == 0:
                pending.append(chunk)
            elif on_block(b"".join([*pending, chunk[:end]])):
                pending = [chunk[end:]]
            else:
                return False
            if len(chunk) < _SMALL_READ:
                hangup.poll(_GATHER_MILLISECONDS)
        return not any(pending) or on_block(b"".join([*pending, terminator]))


@contextlib.asynccontextmanager
async def _running_ripgrep(
    args: list[str],
    workdir: str,
    signal: AbortSignal | None,
    *,
    terminator: bytes,
    on_block: Callable[[bytes], bool],
) -> AsyncIterator[_RipgrepRun]:
    """Start ``rg``, its output going to ``on_block``; whatever happens inside (early exit,
    abort, cancellation) it is dead and reaped after."""
    if signal is not None:
        signal.throw_if_aborted()
    run = _RipgrepRun(args, workdir, signal, terminator=terminator, on_block=on_block)
    remove_listener: Callable[[], None] | None = None
    if signal is not None:
        remove_listener = signal.add_listener(lambda _reason: run.kill())
    try:
        yield run
    finally:
        if remove_listener is not None:
            remove_listener()
        await run.close()
