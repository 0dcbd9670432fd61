"""``MemoryOperations``: the file operations over an in-memory tree, for tests and sandboxes.

Keys of ``files`` are absolute POSIX paths; directories exist implicitly (every parent of a file)
or explicitly (``make_dir``). Writes replace the bytes in one step, so they are atomic by nature.
Reading and writing a whole file yield to the event loop, as real I/O does, so that concurrent
tool calls interleave here as they would on a disk (and a missing mutation queue shows).
"""

from __future__ import annotations

import asyncio
import posixpath
import re

from tether.ai import AbortSignal

from ._glob import compile_glob
from ._protocols import DirEntry, FileStat, FindOutcome, GrepLine, GrepOutcome, GrepQuery
from ._secret_files import is_secret_file

__all__ = ["MemoryOperations"]


class MemoryOperations:
    """Implements the read, write, edit, ls, grep and find operations in memory.

    grep and find follow ripgrep's rules where they can (Python ``re`` for the regex, globs as
    ripgrep reads them, ``.git`` skipped, files with a NUL byte treated as binary, secret files
    never read by a directory search) but apply no ignore files: every stored file is visible.
    """

    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files: dict[str, bytes] = {}
        self.directories: set[str] = {"/"}
        for path, data in (files or {}).items():
            self._store(path, data)

    def make_dir(self, path: str) -> None:
        path = posixpath.normpath(path)
        missing: list[str] = []
        while path not in self.directories:
            if path in self.files:
                raise NotADirectoryError(f"Not a directory: '{path}'")
            missing.append(path)
            path = posixpath.dirname(path)
        self.directories.update(missing)

    def _store(self, path: str, data: bytes) -> None:
        path = posixpath.normpath(path)
        if path in self.directories:
            raise IsADirectoryError(f"Is a directory: '{path}'")
        self.make_dir(posixpath.dirname(path))
        self.files[path] = bytes(data)

    async def stat(self, path: str) -> FileStat | None:
        path = posixpath.normpath(path)
        if path in self.files:
            return FileStat("file", len(self.files[path]))
        if path in self.directories:
            return FileStat("directory", 0)
        return None

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        return self._read(path)[offset : offset + length]

    async def read_file(self, path: str) -> bytes:
        data = self._read(path)
        await asyncio.sleep(0)  # as real I/O would: others run between a read and a write
        return data

    async def write_file(self, path: str, data: bytes) -> None:
        await asyncio.sleep(0)
        self._store(path, data)

    async def real_path(self, path: str) -> str:
        return posixpath.normpath(path)

    async def list_dir(self, path: str) -> list[DirEntry]:
        path = posixpath.normpath(path)
        if path in self.files:
            raise NotADirectoryError(f"Not a directory: '{path}'")
        if path not in self.directories:
            raise FileNotFoundError(f"No such file or directory: '{path}'")
        entries: dict[str, DirEntry] = {}
        for directory in self.directories:
            if directory != path and posixpath.dirname(directory) == path:
                name = posixpath.basename(directory)
                entries[name] = DirEntry(name, "directory")
        for file_path in self.files:
            if posixpath.dirname(file_path) == path:
                name = posixpath.basename(file_path)
                entries[name] = DirEntry(name, "file")
        return list(entries.values())

    def _read(self, path: str) -> bytes:
        path = posixpath.normpath(path)
        if path in self.files:
            return self.files[path]
        if path in self.directories:
            raise IsADirectoryError(f"Is a directory: '{path}'")
        raise FileNotFoundError(f"No such file or directory: '{path}'")

    async def grep(self, query: GrepQuery, *, signal: AbortSignal | None = None) -> GrepOutcome:
        if signal is not None:
            signal.throw_if_aborted()
        try:
            regex = re.compile(
                re.escape(query.pattern) if query.literal else query.pattern,
                re.IGNORECASE if query.ignore_case else 0,
            )
        except re.error as error:
            raise ValueError(f"regex parse error: {error}") from None
        lines: list[GrepLine] = []
        match_count = 0
        searching_directory = posixpath.normpath(query.path) in self.directories
        for path, shown in self._search_targets(query.path, query.glob):
            if searching_directory and is_secret_file(shown):
                continue
            data = self.files[path]
            if b"\0" in data:
                continue
            texts = data.decode("utf-8", errors="replace").split("\n")
            if texts[-1] == "":
                texts.pop()
            texts = [text.removesuffix("\r") for text in texts]
            hits = [index for index, text in enumerate(texts) if regex.search(text)]
            if not hits:
                continue
            if match_count == query.limit:
                return GrepOutcome(lines, match_count, True)
            room = query.limit - match_count
            end = len(texts)
            if len(hits) > room:
                end = hits[room]  # the first match past the limit: nothing from here on
                hits = hits[:room]
            shown_lines = sorted(
                {
                    index
                    for hit in hits
                    for index in range(max(0, hit - query.context), hit + query.context + 1)
                    if index < end
                }
            )
            hit_set = set(hits)
            lines += [GrepLine(shown, i + 1, texts[i], i in hit_set) for i in shown_lines]
            match_count += len(hits)
            if end < len(texts):
                return GrepOutcome(lines, match_count, True)
        return GrepOutcome(lines, match_count, False)

    async def find(
        self, pattern: str, path: str, limit: int, *, signal: AbortSignal | None = None
    ) -> FindOutcome:
        if signal is not None:
            signal.throw_if_aborted()
        shown = [shown for _, shown in self._search_targets(path, pattern)]
        if posixpath.normpath(path) in self.files and not compile_glob(pattern)(shown[0]):
            return FindOutcome([], False)  # a file named as the path is listed only on a match
        return FindOutcome(shown[:limit], len(shown) > limit)

    def _search_targets(self, path: str, glob: str | None) -> list[tuple[str, str]]:
        """(stored path, path as shown) of the files a search of ``path`` covers, sorted."""
        root = posixpath.normpath(path)
        if root in self.files:
            return [(root, posixpath.basename(root))]
        if root not in self.directories:
            raise FileNotFoundError(f"No such file or directory: '{path}'")
        matcher = compile_glob(glob) if glob else None
        targets = []
        for file_path in self.files:
            shown = posixpath.relpath(file_path, root)
            if shown.startswith("../") or ".git" in shown.split("/"):
                continue
            if matcher is None or matcher(shown):
                targets.append((file_path, shown))
        return sorted(targets, key=lambda target: target[1])
