"""The ``read`` tool: a window of a text file's lines, or an image, for the model.

Text is streamed through :meth:`ReadOperations.read_range` in chunks and the read stops as soon as
the requested window is complete, so the first lines of a multi-GB file cost about what they
return. Line 1 starts the file and each ``\\n`` starts the next line; a final ``\\n`` does not
open an empty last line. Lines are split on ``\\n`` only and shown as stored: a CRLF file keeps
its ``\\r`` characters (the tool reports the file, it does not reinterpret it), and bytes that
are not UTF-8 become U+FFFD.

The window is capped like every tool output (2000 lines / 50 KiB, :func:`truncate_head`) and any
cut ends in a notice that names the next ``offset``. The total line count is given when the read
reached the end of the file anyway; the file is never scanned to the end just to count it, except
to explain an ``offset`` beyond the end.
"""

from __future__ import annotations

import asyncio
import base64
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tether.agent import AgentToolResult, ToolError
from tether.ai import AbortSignal, ImageContent, TextContent
from tether.gate import Review

from ._builtin import BuiltinTool, path_governance
from ._definition import ToolDefinition, run_as_execute
from ._images import IMAGE_MAX_SIDE, ImageDecodeError, detect_image_mime_type, prepare_image
from ._paths import resolve_path
from ._rendering import short
from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
)
from .operations._protocols import ReadOperations

__all__ = ["READ_CHUNK_BYTES", "TOOL", "create_read_tool"]

READ_CHUNK_BYTES = 64 * 1024
"""How much one ``read_range`` call asks for."""
LONG_LINE_MEASURE_LIMIT = 8 * 1024 * 1024
"""How far past the cap an overlong line is followed to report its exact size."""
IMAGE_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Larger image files are refused rather than loaded whole."""
_PIECE_BYTES = 50_000

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "File to read: relative to the working directory, or absolute.",
        },
        "offset": {
            "type": "integer",
            "minimum": 1,
            "description": "Line number to start reading at (1-based). Default: 1.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "Maximum number of lines to return. Default: as many as fit the cap.",
        },
    },
    "required": ["path"],
}


class _FileStream:
    """The file as consecutive chunks; a short read means the end of the file was reached."""

    def __init__(
        self, operations: ReadOperations, path: str, signal: AbortSignal, chunk_bytes: int
    ) -> None:
        self._operations = operations
        self._path = path
        self._signal = signal
        self._chunk_bytes = chunk_bytes
        self.position = 0
        self.at_end = False

    async def next_chunk(self, size: int | None = None) -> bytes:
        if self.at_end:
            return b""
        self._signal.throw_if_aborted()
        wanted = size or self._chunk_bytes
        data = await self._operations.read_range(self._path, self.position, wanted)
        self.position += len(data)
        if len(data) < wanted:
            self.at_end = True
        return data


class _LineScanner:
    """Splits the stream on ``\\n``, pulling a chunk only when the lines in hand run out.

    ``mid_line`` is true when part of the current line has been consumed without its ``\\n``
    (a skipped or cut long line), so a long line never has to be held in memory to be passed.
    """

    def __init__(self, stream: _FileStream, first_chunk: bytes) -> None:
        self._stream = stream
        self._buffer = first_chunk
        self._start = 0
        self.mid_line = False

    async def _pull(self) -> bool:
        chunk = await self._stream.next_chunk()
        if not chunk:
            return False
        self._buffer = self._buffer[self._start :] + chunk
        self._start = 0
        return True

    async def skip_lines(self, count: int) -> int:
        """Pass ``count`` lines; returns how many were passed (fewer when the file ends)."""
        skipped = 0
        while skipped < count:
            newlines = self._buffer.count(b"\n", self._start)
            if newlines >= count - skipped:
                for _ in range(count - skipped):
                    self._start = self._buffer.index(b"\n", self._start) + 1
                self.mid_line = False
                return count
            skipped += newlines
            if self._start < len(self._buffer):
                self.mid_line = not self._buffer.endswith(b"\n")
            self._buffer, self._start = b"", 0
            if not await self._pull():
                if self.mid_line:
                    skipped += 1
                    self.mid_line = False
                return skipped
        return skipped

    async def has_more(self) -> bool:
        """Whether any byte follows what has been consumed."""
        return self.mid_line or self._start < len(self._buffer) or await self._pull()

    async def take_lines(self, want: int, max_bytes: int) -> tuple[list[bytes], bool]:
        """Up to ``want`` lines, stopping once they exceed ``max_bytes`` (as joined by ``\\n``).

        When a line alone would pass the budget only its first bytes are taken and the second
        value is true; :func:`truncate_head` then drops that part line, so it is never shown.
        """
        lines: list[bytes] = []
        used = 0
        scan_from = self._start
        while len(lines) < want:
            index = self._buffer.find(b"\n", scan_from)
            if index >= 0:
                line = self._buffer[self._start : index]
                self._start = scan_from = index + 1
                used += len(line) + (1 if lines else 0)
                lines.append(line)
                if used > max_bytes:
                    break
                continue
            pending = len(self._buffer) - self._start
            if pending and used + pending + (1 if lines else 0) > max_bytes:
                lines.append(self._buffer[self._start :])
                self._buffer, self._start = b"", 0
                self.mid_line = True
                return lines, True
            scan_from = pending
            if not await self._pull():
                if self._start < len(self._buffer):
                    lines.append(self._buffer[self._start :])
                    self._buffer, self._start = b"", 0
                break
        return lines, False

    async def measure_rest_of_line(self, limit: int) -> int | None:
        """Pass the rest of the current line and return its size in bytes.

        Gives up, returning ``None``, once more than ``limit`` bytes have been passed.
        """
        counted = 0
        while counted <= limit:
            index = self._buffer.find(b"\n", self._start)
            if index >= 0:
                counted += index - self._start
                self._start = index + 1
                self.mid_line = False
                return counted
            counted += len(self._buffer) - self._start
            self._buffer, self._start = b"", 0
            if not await self._pull():
                self.mid_line = False
                return counted if counted <= limit else None
        return None

    def lines_left_if_known(self) -> int | None:
        """Lines after the consumed ones, when the end of the file is already in hand."""
        if not self._stream.at_end:
            return None
        rest = self._buffer[self._start :]
        return rest.count(b"\n") + (1 if rest and not rest.endswith(b"\n") else 0)


@dataclass(frozen=True, slots=True)
class _Window:
    start_line: int
    lines: list[bytes]
    cut_inside_line: bool
    more_follow: bool
    total_lines: int | None


def create_read_tool(
    cwd: str,
    *,
    operations: ReadOperations | None = None,
    auto_resize_images: bool = True,
) -> ToolDefinition:
    """The ``read`` tool rooted at ``cwd``.

    ``auto_resize_images=False`` sends images as they are on disk, whatever their size.
    """
    return TOOL.create(cwd, operations=operations, auto_resize_images=auto_resize_images)


def _define(cwd: str, ops: ReadOperations, *, auto_resize_images: bool = True) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        path: str = params["path"]
        offset: int | None = params.get("offset")
        limit: int | None = params.get("limit")
        resolved = resolve_path(path, cwd)
        stat = await ops.stat(resolved)
        if stat is None:
            raise ToolError(f"File not found: {path}")
        if stat.kind == "directory":
            raise ToolError(f"{path} is a directory, not a file. Use ls to list its entries.")
        if stat.kind != "file":
            raise ToolError(
                f"{path} is not a regular file (a device, pipe or socket); read only reads files."
            )
        stream = _FileStream(ops, resolved, signal, READ_CHUNK_BYTES)
        try:
            first_chunk = await stream.next_chunk()
            mime_type = detect_image_mime_type(first_chunk)
            if mime_type is not None:
                return await _read_image(
                    path, resolved, stream, first_chunk, mime_type, auto_resize_images
                )
            return await _read_text(path, resolved, stream, first_chunk, offset or 1, limit)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {path}") from exc
        except FileNotFoundError as exc:
            raise ToolError(f"File not found: {path}") from exc
        except IsADirectoryError as exc:
            raise ToolError(
                f"{path} is a directory, not a file. Use ls to list its entries."
            ) from exc

    return ToolDefinition(
        name="read",
        label="Read",
        description=(
            "Read a file. Text comes back as stored, up to "
            f"{DEFAULT_MAX_LINES} lines or {format_size(DEFAULT_MAX_BYTES)} per call; a notice "
            "at the end gives the offset to continue from. Use offset (1-based line number) and "
            "limit to read a part of a large file. Images (PNG, JPEG, GIF, WebP, recognised by "
            f"their content) come back as images, scaled down to at most {IMAGE_MAX_SIDE} px "
            "per side."
        ),
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prompt_snippet="Read a text file (a window of its lines) or look at an image",
        prompt_guidelines=[
            "Use read to look at files instead of cat, head, tail or sed.",
            "Read large files in pieces: follow the continuation notice's offset.",
        ],
    )


async def _read_text(
    path: str,
    resolved: str,
    stream: _FileStream,
    first_chunk: bytes,
    offset: int,
    limit: int | None,
) -> AgentToolResult:
    scanner = _LineScanner(stream, first_chunk)
    skipped = await scanner.skip_lines(offset - 1)
    if skipped < offset - 1 or not await scanner.has_more():
        if offset == 1:
            empty = {"path": resolved, "total_lines": 0}
            return AgentToolResult([TextContent("[The file is empty.]")], details=empty)
        raise ToolError(
            f"Offset {offset} is beyond the end of {path}, which has {skipped} "
            f"line{'s' if skipped != 1 else ''}."
        )
    want = min(limit, DEFAULT_MAX_LINES) if limit is not None else DEFAULT_MAX_LINES
    lines, cut_inside_line = await scanner.take_lines(want, DEFAULT_MAX_BYTES)
    more_follow = cut_inside_line or await scanner.has_more()
    left = scanner.lines_left_if_known()
    total = offset - 1 + len(lines) + left if left is not None else None
    window = _Window(offset, lines, cut_inside_line, more_follow, total)
    text = b"\n".join(lines).decode("utf-8", errors="replace")
    truncation = truncate_head(text, max_lines=want, max_bytes=DEFAULT_MAX_BYTES)
    if truncation.first_line_exceeds_limit:
        return await _overlong_line(path, resolved, scanner, window, truncation)
    shown = truncation.output_lines if truncation.truncated else len(lines)
    end_line = offset + shown - 1
    notice = _continuation_notice(window, truncation, limit, end_line)
    details: dict[str, Any] = {
        "path": resolved,
        "start_line": offset,
        "end_line": end_line,
        "total_lines": total,
        "next_offset": end_line + 1 if notice else None,
        "truncation": _truncation_details(truncation) if truncation.truncated else None,
    }
    body = truncation.content
    return AgentToolResult(
        [TextContent(f"{body}\n\n{notice}" if notice else body)], details=details
    )


def _continuation_notice(
    window: _Window, truncation: TruncationResult, limit: int | None, end_line: int
) -> str | None:
    """The closing ``[...]`` line telling the model where the rest starts, if anything is left."""
    if not truncation.truncated and not window.more_follow:
        return None
    start, total, next_offset = window.start_line, window.total_lines, end_line + 1
    if truncation.truncated:
        cap = f"{format_size(DEFAULT_MAX_BYTES)} limit"
    elif limit is not None and limit <= DEFAULT_MAX_LINES:
        if total is not None:
            left = total - end_line
            plural = "s" if left != 1 else ""
            return f"[{left} more line{plural} in file. Use offset={next_offset} to continue.]"
        return f"[More lines follow. Use offset={next_offset} to continue.]"
    else:
        cap = f"{DEFAULT_MAX_LINES}-line limit"
    if total is not None:
        return (
            f"[Showing lines {start}-{end_line} of {total} ({cap}). "
            f"Use offset={next_offset} to continue.]"
        )
    return (
        f"[Showing lines {start}-{end_line} ({cap}). "
        f"More lines follow; use offset={next_offset} to continue.]"
    )


async def _overlong_line(
    path: str,
    resolved: str,
    scanner: _LineScanner,
    window: _Window,
    truncation: TruncationResult,
) -> AgentToolResult:
    """Nothing fits: say how big line ``start`` is and how to read it in pieces with bash."""
    line = window.start_line
    size: int | None = len(window.lines[0])
    lines_after: bool | None = len(window.lines) > 1 or window.more_follow
    if window.cut_inside_line:
        rest = await scanner.measure_rest_of_line(LONG_LINE_MEASURE_LIMIT)
        size = None if rest is None else len(window.lines[0]) + rest
        lines_after = None if rest is None else await scanner.has_more()
    described = (
        f"{size} bytes ({format_size(size)})"
        if size is not None
        else f"more than {format_size(LONG_LINE_MEASURE_LIMIT)}"
    )
    quoted = shlex.quote(path)
    notice = (
        f"[Line {line} is {described}, more than the {format_size(DEFAULT_MAX_BYTES)} output "
        f"limit, so it cannot be shown here. Read it in pieces with bash: "
        f"sed -n '{line}p' {quoted} | cut -c1-{_PIECE_BYTES}, then "
        f"cut -c{_PIECE_BYTES + 1}-{2 * _PIECE_BYTES}, and so on."
    )
    if lines_after:
        notice += f" Use offset={line + 1} to read the lines after it."
    elif lines_after is None:
        notice += f" Any lines after it start at offset={line + 1}."
    notice += "]"
    details = {
        "path": resolved,
        "start_line": line,
        "line_bytes": size,
        "total_lines": window.total_lines,
        "next_offset": line + 1,
        "truncation": _truncation_details(truncation),
    }
    return AgentToolResult([TextContent(notice)], details=details)


def _truncation_details(truncation: TruncationResult) -> dict[str, Any]:
    return {
        "truncated_by": truncation.truncated_by,
        "output_lines": truncation.output_lines,
        "output_bytes": truncation.output_bytes,
        "max_lines": truncation.max_lines,
        "max_bytes": truncation.max_bytes,
        "first_line_exceeds_limit": truncation.first_line_exceeds_limit,
    }


async def _read_image(
    path: str, resolved: str, stream: _FileStream, first_chunk: bytes, mime_type: str, resize: bool
) -> AgentToolResult:
    chunks = [first_chunk]
    loaded = len(first_chunk)
    while not stream.at_end:
        chunk = await stream.next_chunk(1024 * 1024)
        loaded += len(chunk)
        if loaded > IMAGE_MAX_FILE_BYTES:
            raise ToolError(
                f"{path} is a {mime_type} image larger than {format_size(IMAGE_MAX_FILE_BYTES)}; "
                f"too large to load. Make a smaller copy first (e.g. with bash: "
                f"convert {shlex.quote(path)} -resize {IMAGE_MAX_SIDE}x{IMAGE_MAX_SIDE} small.png)."
            )
        chunks.append(chunk)
    data = b"".join(chunks)
    try:
        image = await asyncio.to_thread(prepare_image, data, mime_type, resize=resize)
    except ImageDecodeError as exc:
        raise ToolError(
            f"{path} starts like a {mime_type} image but could not be decoded: {exc}"
        ) from exc
    note = f"Read image file [{image.mime_type}]"
    if image.resized:
        note += (
            f"\nOriginal size {image.original_width}x{image.original_height} px, "
            f"resized to {image.width}x{image.height} px to fit the model's image limits."
        )
    else:
        note += f"\nSize {image.width}x{image.height} px."
    details = {
        "path": resolved,
        "mime_type": image.mime_type,
        "original_width": image.original_width,
        "original_height": image.original_height,
        "width": image.width,
        "height": image.height,
        "file_bytes": len(data),
    }
    encoded = base64.b64encode(image.data).decode("ascii")
    return AgentToolResult(
        [TextContent(note), ImageContent(data=encoded, mime_type=image.mime_type)], details=details
    )


def _render_call(args: Mapping[str, Any]) -> str:
    offset, limit = args.get("offset"), args.get("limit")
    if offset is None and limit is None:
        return f"read {short(args.get('path'))}"
    first = offset or 1
    last = f"{first + limit - 1}" if isinstance(limit, int) and isinstance(first, int) else ""
    return f"read {short(args.get('path'))}:{first}-{last}"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    if "mime_type" in details:
        shown = f"image {details['mime_type']} {details['width']}x{details['height']}"
        original = (details["original_width"], details["original_height"])
        if original != (details["width"], details["height"]):
            shown += f" (resized from {original[0]}x{original[1]})"
        return shown
    total = details.get("total_lines")
    if total == 0:
        return "empty file"
    if "line_bytes" in details:
        return f"line {details['start_line']} alone is {details['line_bytes']:,} bytes: not shown"
    shown = f"lines {details['start_line']}-{details['end_line']}"
    shown += f" of {total}" if total is not None else ""
    if details.get("next_offset"):
        shown += f", more from offset={details['next_offset']}"
    return shown


TOOL = BuiltinTool(
    name="read",
    define=_define,
    exposure={"path": Review.INCLUDE, "offset": Review.INCLUDE, "limit": Review.INCLUDE},
    governance=path_governance("read"),
    read_only=True,
    idempotent=True,
    render_call=_render_call,
    render_result=_render_result,
    default=True,
)
"""``read``: its definition, review exposure, governance and renderers."""
