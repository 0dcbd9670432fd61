"""The read tool: windows of lines, caps and their notices, errors, images, and a
lazy read that costs about what it returns — on a real temp dir and in memory."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from tether.agent import ToolError
from tether.ai import AbortController, AbortError, ImageContent, TextContent
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools import read as read_module
from tether.tools._images import prepare_image
from tether.tools.operations import FileStat, MemoryOperations
from tether.tools.read import READ_CHUNK_BYTES, create_read_tool

from .file_workspace import (
    WORKSPACE_KINDS,
    Workspace,
    call,
    make_workspace,
    run_through_agent_loop,
    text_of,
)

MAX_BYTES = 50 * 1024


@pytest.fixture(params=WORKSPACE_KINDS)
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Workspace:
    return make_workspace(request.param, tmp_path)


class CountingOperations:
    """Wraps read operations and counts the bytes ``read_range`` hands back."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.bytes_read = 0
        self.calls = 0

    async def stat(self, path: str) -> FileStat | None:
        result: FileStat | None = await self.inner.stat(path)
        return result

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        data: bytes = await self.inner.read_range(path, offset, length)
        self.calls += 1
        self.bytes_read += len(data)
        return data


class SyntheticHugeFile:
    """A 4 GiB file of fixed-width numbered lines, generated on demand (nothing on disk)."""

    LINE = 16
    SIZE = 4 * 1024**3

    @staticmethod
    def line(number: int) -> str:
        return f"line {number:010d}"

    async def stat(self, path: str) -> FileStat | None:
        return FileStat("file", self.SIZE)

    async def read_range(self, path: str, offset: int, length: int) -> bytes:
        end = min(offset + length, self.SIZE)
        first, last = offset // self.LINE, (end - 1) // self.LINE
        block = "".join(f"{self.line(n + 1)}\n" for n in range(first, last + 1)).encode()
        start = offset - first * self.LINE
        return block[start : start + end - offset]


async def read(workspace: Workspace, **params: Any) -> Any:
    return await call(
        create_read_tool(workspace.root, operations=workspace.operations), params, workspace.root
    )


def numbered(count: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {n}\n" for n in range(1, count + 1))


def split_notice(text: str) -> tuple[str, str | None]:
    if "\n\n[" in text:
        body, notice = text.rsplit("\n\n", 1)
        return body, notice
    return text, None


# --- text windows and notices -------------------------------------------------------------


async def test_small_file_is_returned_whole_without_notice(workspace: Workspace) -> None:
    workspace.write("notes.txt", "alpha\nbeta\ngamma\n")
    result = await read(workspace, path="notes.txt")
    assert result.content == [TextContent("alpha\nbeta\ngamma")]
    assert result.details["start_line"] == 1
    assert result.details["end_line"] == 3
    assert result.details["total_lines"] == 3
    assert result.details["next_offset"] is None
    assert result.details["truncation"] is None


async def test_offset_and_limit_select_a_window_and_name_the_next_offset(
    workspace: Workspace,
) -> None:
    workspace.write("ten.txt", numbered(10))
    result = await read(workspace, path="ten.txt", offset=3, limit=2)
    assert text_of(result.content) == (
        "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    )
    assert result.details["next_offset"] == 5


async def test_limit_reaching_the_last_line_has_no_notice(workspace: Workspace) -> None:
    workspace.write("ten.txt", numbered(10))
    result = await read(workspace, path="ten.txt", offset=8, limit=3)
    assert text_of(result.content) == "line 8\nline 9\nline 10"


async def test_last_line_without_newline_is_a_line(workspace: Workspace) -> None:
    workspace.write("tail.txt", "a\nb\nc")
    result = await read(workspace, path="tail.txt", offset=3)
    assert text_of(result.content) == "c"
    with pytest.raises(
        Exception, match=r"^Offset 4 is beyond the end of tail.txt, which has 3 lines\.$"
    ):
        await read(workspace, path="tail.txt", offset=4)


async def test_line_cap_gives_total_when_the_end_was_read_anyway(workspace: Workspace) -> None:
    workspace.write("long.txt", numbered(2500))
    result = await read(workspace, path="long.txt")
    body, notice = split_notice(text_of(result.content))
    assert body.splitlines() == [f"line {n}" for n in range(1, 2001)]
    assert (
        notice == "[Showing lines 1-2000 of 2500 (2000-line limit). Use offset=2001 to continue.]"
    )
    rest = await read(workspace, path="long.txt", offset=2001)
    assert text_of(rest.content).splitlines() == [f"line {n}" for n in range(2001, 2501)]


async def test_line_cap_without_known_total_says_more_lines_follow(workspace: Workspace) -> None:
    workspace.write("huge.txt", numbered(100_000))
    result = await read(workspace, path="huge.txt")
    body, notice = split_notice(text_of(result.content))
    assert len(body.splitlines()) == 2000
    assert (
        notice == "[Showing lines 1-2000 (2000-line limit). More lines follow; "
        "use offset=2001 to continue.]"
    )
    assert result.details["total_lines"] is None
    assert result.details["next_offset"] == 2001


async def test_limit_above_the_line_cap_is_capped(workspace: Workspace) -> None:
    workspace.write("long.txt", numbered(2500))
    result = await read(workspace, path="long.txt", limit=5000)
    _, notice = split_notice(text_of(result.content))
    assert (
        notice == "[Showing lines 1-2000 of 2500 (2000-line limit). Use offset=2001 to continue.]"
    )


async def test_byte_cap_cuts_at_a_line_boundary_and_names_the_next_offset(
    workspace: Workspace,
) -> None:
    line = "x" * 99
    workspace.write("wide.txt", "".join(f"{line}\n" for _ in range(1000)))
    result = await read(workspace, path="wide.txt")
    body, notice = split_notice(text_of(result.content))
    shown = body.split("\n")
    assert all(item == line for item in shown)
    assert len(body.encode()) <= MAX_BYTES < len(body.encode()) + 1 + len(line)
    count = len(shown)
    assert notice == (
        f"[Showing lines 1-{count} (50.0KB limit). More lines follow; use offset={count + 1} "
        "to continue.]"
    )
    assert result.details["truncation"]["truncated_by"] == "bytes"


async def test_lines_filling_the_byte_cap_exactly_are_shown_whole_without_notice(
    workspace: Workspace,
) -> None:
    # 25,599 + 1 + 25,600 bytes of content is exactly the cap; only the final newline exceeds it.
    workspace.write("exact.txt", "a" * 25_599 + "\n" + "b" * 25_600 + "\n")
    result = await read(workspace, path="exact.txt")
    assert text_of(result.content) == "a" * 25_599 + "\n" + "b" * 25_600
    assert result.details["end_line"] == 2
    assert result.details["total_lines"] == 2
    assert result.details["next_offset"] is None


async def test_byte_cap_with_a_limit_still_reports_the_cap(workspace: Workspace) -> None:
    workspace.write("wide.txt", "".join(f"{'y' * 199}\n" for _ in range(300)))
    result = await read(workspace, path="wide.txt", limit=290)
    _, notice = split_notice(text_of(result.content))
    assert notice == "[Showing lines 1-256 of 300 (50.0KB limit). Use offset=257 to continue.]"


async def test_offset_beyond_the_end_gives_offset_and_total(workspace: Workspace) -> None:
    workspace.write("three.txt", "one\ntwo\nthree\n")
    with pytest.raises(
        Exception, match=r"^Offset 10 is beyond the end of three.txt, which has 3 lines\.$"
    ):
        await read(workspace, path="three.txt", offset=10)
    with pytest.raises(Exception, match="Offset 4 is beyond"):
        await read(workspace, path="three.txt", offset=4)


async def test_offset_beyond_the_end_of_a_large_file_counts_all_lines(workspace: Workspace) -> None:
    workspace.write("big.txt", numbered(30_000))
    with pytest.raises(
        Exception, match=r"Offset 40000 is beyond the end of big.txt, which has 30000 lines\."
    ):
        await read(workspace, path="big.txt", offset=40_000)


async def test_empty_file(workspace: Workspace) -> None:
    workspace.write("empty.txt", b"")
    result = await read(workspace, path="empty.txt")
    assert text_of(result.content) == "[The file is empty.]"
    with pytest.raises(
        Exception, match=r"Offset 2 is beyond the end of empty.txt, which has 0 lines\."
    ):
        await read(workspace, path="empty.txt", offset=2)


async def test_overlong_line_at_the_offset_says_its_size_and_how_to_read_it(
    workspace: Workspace,
) -> None:
    workspace.write("min.js", "short\n" + "z" * 60_000 + "\nafter\n")
    result = await read(workspace, path="min.js", offset=2)
    assert text_of(result.content) == (
        "[Line 2 is 60000 bytes (58.6KB), more than the 50.0KB output limit, so it cannot be "
        "shown here. Read it in pieces with bash: sed -n '2p' min.js | cut -c1-50000, then "
        "cut -c50001-100000, and so on. Use offset=3 to read the lines after it.]"
    )
    assert result.details["line_bytes"] == 60_000
    assert result.details["truncation"]["first_line_exceeds_limit"] is True
    before = await read(workspace, path="min.js")
    assert text_of(before.content) == (
        "short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]"
    )


async def test_overlong_line_spanning_many_chunks_is_measured_exactly(workspace: Workspace) -> None:
    workspace.write("blob.txt", "a" * (5 * READ_CHUNK_BYTES + 7))
    result = await read(workspace, path="blob.txt")
    text = text_of(result.content)
    assert text.startswith(f"[Line 1 is {5 * READ_CHUNK_BYTES + 7} bytes (320.0KB)")
    assert "sed -n '1p' blob.txt | cut -c1-50000" in text
    assert "offset=2" not in text


async def test_overlong_line_path_with_spaces_is_shell_quoted(workspace: Workspace) -> None:
    workspace.write("my file.txt", "q" * 70_000)
    result = await read(workspace, path="my file.txt")
    assert "sed -n '1p' 'my file.txt' | cut -c1-50000" in text_of(result.content)


async def test_missing_file(workspace: Workspace) -> None:
    with pytest.raises(Exception, match=r"^File not found: nope\.txt$"):
        await read(workspace, path="nope.txt")


async def test_directory_is_refused_with_a_pointer_to_ls(workspace: Workspace) -> None:
    workspace.mkdir("src")
    with pytest.raises(
        Exception, match=r"^src is a directory, not a file\. Use ls to list its entries\.$"
    ):
        await read(workspace, path="src")


async def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    tool = create_read_tool(str(tmp_path))
    with pytest.raises(
        ToolError, match=r"^pipe is not a regular file \(a device, pipe or socket\)"
    ):
        await asyncio.wait_for(call(tool, {"path": "pipe"}, str(tmp_path)), timeout=10)


async def test_refused_access_is_reported() -> None:
    class Locked:
        async def stat(self, path: str) -> FileStat | None:
            return FileStat("file", 10)

        async def read_range(self, path: str, offset: int, length: int) -> bytes:
            raise PermissionError(13, "Permission denied", path)

    tool = create_read_tool("/srv", operations=Locked())
    with pytest.raises(ToolError, match=r"^Permission denied: secret\.txt$"):
        await call(tool, {"path": "secret.txt"}, "/srv")


async def test_invalid_utf8_is_replaced(workspace: Workspace) -> None:
    workspace.write("latin1.txt", b"caf\xe9\nna\xefve\n")
    result = await read(workspace, path="latin1.txt")
    assert text_of(result.content) == "caf\ufffd\nna\ufffdve"


async def test_crlf_lines_keep_their_carriage_returns(workspace: Workspace) -> None:
    workspace.write("dos.txt", b"one\r\ntwo\r\nthree\r\n")
    result = await read(workspace, path="dos.txt", limit=2)
    assert (
        text_of(result.content)
        == "one\r\ntwo\r\n\n[1 more line in file. Use offset=3 to continue.]"
    )


async def test_at_prefix_and_home_directory(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace.write("notes.txt", "from cwd\n")
    result = await read(workspace, path="@notes.txt")
    assert text_of(result.content) == "from cwd"
    monkeypatch.setenv("HOME", workspace.path("home"))
    workspace.write("home/todo.md", "from home\n")
    result = await read(workspace, path="~/todo.md")
    assert text_of(result.content) == "from home"
    result = await read(workspace, path="@~/todo.md")
    assert text_of(result.content) == "from home"


async def test_an_aborted_signal_stops_the_read(workspace: Workspace) -> None:
    workspace.write("notes.txt", "x\n")
    controller = AbortController()
    controller.abort("user pressed stop")
    tool = create_read_tool(workspace.root, operations=workspace.operations)
    with pytest.raises(AbortError):
        await call(tool, {"path": "notes.txt"}, workspace.root, controller.signal)


def reference_lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n") if data else []
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(
        st.sampled_from([b"a", b"bc", b"\n", b"\r\n", b"\xe9", b"\xc3\xa9"]), max_size=40
    ).map(b"".join),
    offset=st.integers(min_value=1, max_value=25),
    limit=st.none() | st.integers(min_value=1, max_value=25),
    chunk=st.integers(min_value=1, max_value=9),
)
def test_windows_match_a_plain_split_whatever_the_chunk_size(
    data: bytes, offset: int, limit: int | None, chunk: int
) -> None:
    """Chunk boundaries anywhere (even inside a UTF-8 sequence or a CRLF) never change a window."""
    lines = reference_lines(data)
    ops = MemoryOperations({"/w/f.txt": data})
    tool = create_read_tool("/w", operations=ops)
    params: dict[str, Any] = {"path": "f.txt", "offset": offset}
    if limit is not None:
        params["limit"] = limit
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(read_module, "READ_CHUNK_BYTES", chunk)
        if not lines and offset == 1:
            result = asyncio.run(call(tool, params, "/w"))
            assert text_of(result.content) == "[The file is empty.]"
            return
        if offset > len(lines):
            with pytest.raises(ToolError, match=f"which has {len(lines)} line"):
                asyncio.run(call(tool, params, "/w"))
            return
        result = asyncio.run(call(tool, params, "/w"))
    window = lines[offset - 1 : offset - 1 + limit] if limit is not None else lines[offset - 1 :]
    body = b"\n".join(window).decode("utf-8", errors="replace")
    text = text_of(result.content)
    more = offset - 1 + len(window) < len(lines)
    assert result.details["next_offset"] == (offset + len(window) if more else None)
    assert result.details["total_lines"] in (None, len(lines))
    if more:
        assert text.startswith(f"{body}\n\n[")
        assert text.endswith(f"offset={offset + len(window)} to continue.]")
    else:
        assert text == body


# --- laziness -----------------------------------------------------------------------------


async def test_first_lines_of_a_multi_gigabyte_file_read_only_what_they_need() -> None:
    counting = CountingOperations(SyntheticHugeFile())
    tool = create_read_tool("/data", operations=counting)
    result = await call(tool, {"path": "huge.log"}, "/data")
    body, notice = split_notice(text_of(result.content))
    assert body.splitlines() == [SyntheticHugeFile.line(n) for n in range(1, 2001)]
    assert (
        notice == "[Showing lines 1-2000 (2000-line limit). More lines follow; "
        "use offset=2001 to continue.]"
    )
    assert counting.bytes_read <= READ_CHUNK_BYTES
    window = await call(tool, {"path": "huge.log", "offset": 1_000_000, "limit": 3}, "/data")
    assert split_notice(text_of(window.content))[0].splitlines() == [
        SyntheticHugeFile.line(n) for n in (1_000_000, 1_000_001, 1_000_002)
    ]
    assert counting.bytes_read < 1_000_003 * SyntheticHugeFile.LINE + 2 * READ_CHUNK_BYTES


async def test_fifty_megabyte_sparse_file_is_read_lazily(workspace: Workspace) -> None:
    head = numbered(3000).encode()
    size = 50 * 1024 * 1024
    if workspace.kind == "local":
        target = workspace.write("sparse.bin", head)
        with open(target, "r+b") as handle:
            handle.truncate(size)
    else:
        workspace.write("sparse.bin", head + bytes(size - len(head)))
    counting = CountingOperations(workspace.operations)
    tool = create_read_tool(workspace.root, operations=counting)
    result = await call(tool, {"path": "sparse.bin"}, workspace.root)
    assert split_notice(text_of(result.content))[0].splitlines() == [
        f"line {n}" for n in range(1, 2001)
    ]
    assert counting.bytes_read <= READ_CHUNK_BYTES
    counting.bytes_read = 0
    # Line 3001 is ~50 MB of NUL bytes: measured only up to a bound, never loaded whole.
    tail = await call(tool, {"path": "sparse.bin", "offset": 3001}, workspace.root)
    assert text_of(tail.content).startswith("[Line 3001 is more than 8.0MB, more than the 50.0KB")
    assert "Any lines after it start at offset=3002." in text_of(tail.content)
    assert counting.bytes_read < 9 * 1024 * 1024


# --- images -------------------------------------------------------------------------------


def image_bytes(fmt: str, size: tuple[int, int] = (40, 30)) -> bytes:
    image = Image.new("RGB", size, (200, 30, 90))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def decoded(block: ImageContent) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(block.data)))


@pytest.mark.parametrize(
    ("fmt", "name", "mime"),
    [
        ("PNG", "pic.png", "image/png"),
        ("JPEG", "photo.jpg", "image/jpeg"),
        ("GIF", "anim.gif", "image/gif"),
        ("WEBP", "pic.webp", "image/webp"),
        ("PNG", "actually-png.txt", "image/png"),
        ("JPEG", "no-extension", "image/jpeg"),
    ],
)
async def test_images_are_detected_by_magic_bytes(
    workspace: Workspace, fmt: str, name: str, mime: str
) -> None:
    data = image_bytes(fmt)
    workspace.write(name, data)
    result = await read(workspace, path=name)
    note, image = result.content
    assert note == TextContent(f"Read image file [{mime}]\nSize 40x30 px.")
    assert isinstance(image, ImageContent)
    assert image.mime_type == mime
    assert base64.b64decode(image.data) == data
    assert result.details["width"] == 40


async def test_text_named_like_an_image_is_read_as_text(workspace: Workspace) -> None:
    workspace.write("logo.png", "not really an image\n")
    result = await read(workspace, path="logo.png")
    assert result.content == [TextContent("not really an image")]


@pytest.mark.parametrize(
    ("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")]
)
async def test_large_image_is_resized_keeping_aspect_ratio(
    workspace: Workspace, fmt: str, mime: str
) -> None:
    workspace.write("wide", image_bytes(fmt, (3000, 1000)))
    result = await read(workspace, path="wide")
    note, image = result.content
    assert isinstance(note, TextContent) and isinstance(image, ImageContent)
    assert note.text == (
        f"Read image file [{mime}]\nOriginal size 3000x1000 px, resized to 2000x667 px "
        "to fit the model's image limits."
    )
    assert image.mime_type == mime
    assert decoded(image).size == (2000, 667)
    assert decoded(image).format == fmt
    assert result.details["original_width"] == 3000


async def test_tall_gif_is_resized_on_its_long_side(workspace: Workspace) -> None:
    workspace.write("tall.gif", image_bytes("GIF", (500, 2500)))
    result = await read(workspace, path="tall.gif")
    image = result.content[1]
    assert decoded(image).size == (400, 2000)
    assert image.mime_type == "image/gif"


def test_an_image_over_the_byte_budget_shrinks_until_it_fits() -> None:
    noise = Image.frombytes("RGB", (600, 300), random.Random(7).randbytes(600 * 300 * 3))
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG")
    assert len(buffer.getvalue()) > 200_000
    prepared = prepare_image(buffer.getvalue(), "image/png", max_bytes=60_000)
    assert len(prepared.data) <= 60_000
    assert prepared.resized and prepared.mime_type == "image/png"
    assert prepared.width == 2 * prepared.height
    assert Image.open(io.BytesIO(prepared.data)).size == (prepared.width, prepared.height)


async def test_image_magic_with_garbage_is_an_error(workspace: Workspace) -> None:
    workspace.write("broken.png", b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    with pytest.raises(
        Exception, match=r"^broken.png starts like a image/png image but could not be decoded"
    ):
        await read(workspace, path="broken.png")


async def test_resizing_can_be_turned_off(workspace: Workspace) -> None:
    data = image_bytes("PNG", (2100, 10))
    workspace.write("strip.png", data)
    tool = create_read_tool(
        workspace.root, operations=workspace.operations, auto_resize_images=False
    )
    result = await call(tool, {"path": "strip.png"}, workspace.root)
    assert base64.b64decode(result.content[1].data) == data


# --- through the agent loop ---------------------------------------------------------------


async def test_read_through_agent_loop(workspace: Workspace) -> None:
    workspace.write("src/app.py", "print('hi')\n")
    fm = FauxModel(
        [
            faux_message(faux_tool_call("read", {"path": "src/app.py", "limit": "5"}, id="r1")),
            faux_message(faux_text("It prints hi.")),
        ]
    )
    tool = create_read_tool(workspace.root, operations=workspace.operations)
    results = await run_through_agent_loop(tool, fm, workspace.root)
    assert len(results) == 1
    assert results[0].tool_call_id == "r1"
    assert results[0].is_error is False
    assert results[0].content == [TextContent("print('hi')")]
    assert fm.contexts[1].messages[-1].content == [TextContent("print('hi')")]


async def test_read_error_through_agent_loop(workspace: Workspace) -> None:
    fm = FauxModel(
        [faux_message(faux_tool_call("read", {"path": "gone.txt"})), faux_message(faux_text("ok"))]
    )
    tool = create_read_tool(workspace.root, operations=workspace.operations)
    results = await run_through_agent_loop(tool, fm, workspace.root)
    assert results[0].is_error is True
    assert results[0].content == [TextContent("File not found: gone.txt")]


async def test_default_operations_are_local(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("on this machine\n")
    tool = create_read_tool(str(tmp_path))
    result = await call(tool, {"path": "a.txt"}, str(tmp_path))
    assert result.content == [TextContent("on this machine")]
    assert set(tool.parameters["properties"]) == {"path", "offset", "limit"}
    assert all("description" in spec for spec in tool.parameters["properties"].values())
