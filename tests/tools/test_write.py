"""The write tool: UTF-8 byte counts, parent directories, clear errors, atomic
replacement through the operations, and same-file writes kept in order by the mutation queue."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from tether.agent import ToolError
from tether.ai import TextContent
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools.operations import LocalOperations, MemoryOperations
from tether.tools.write import create_write_tool

from .file_workspace import (
    WORKSPACE_KINDS,
    Workspace,
    call,
    make_workspace,
    run_through_agent_loop,
    text_of,
)


@pytest.fixture(params=WORKSPACE_KINDS)
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Workspace:
    return make_workspace(request.param, tmp_path)


async def write(workspace: Workspace, path: str, content: str) -> Any:
    tool = create_write_tool(workspace.root, operations=workspace.operations)
    return await call(tool, {"path": path, "content": content}, workspace.root)


async def test_creates_a_file_and_reports_ascii_bytes(workspace: Workspace) -> None:
    result = await write(workspace, "hello.txt", "hello\n")
    assert result.content == [TextContent("Successfully wrote 6 bytes to hello.txt")]
    assert workspace.read("hello.txt") == b"hello\n"
    assert result.details == {"path": workspace.path("hello.txt"), "bytes": 6}


async def test_reports_utf8_bytes_not_characters(workspace: Workspace) -> None:
    content = "héllo ✓ 🚀\n"
    result = await write(workspace, "unicode.txt", content)
    expected = content.encode("utf-8")
    assert len(expected) != len(content)
    assert text_of(result.content) == f"Successfully wrote {len(expected)} bytes to unicode.txt"
    assert workspace.read("unicode.txt") == expected


async def test_empty_content_writes_an_empty_file(workspace: Workspace) -> None:
    result = await write(workspace, "empty.txt", "")
    assert text_of(result.content) == "Successfully wrote 0 bytes to empty.txt"
    assert workspace.read("empty.txt") == b""


async def test_one_byte_is_reported_in_the_singular(workspace: Workspace) -> None:
    result = await write(workspace, "one.txt", "x")
    assert text_of(result.content) == "Successfully wrote 1 byte to one.txt"


async def test_creates_parent_directories(workspace: Workspace) -> None:
    await write(workspace, "a/b/c/deep.txt", "deep")
    assert workspace.read("a/b/c/deep.txt") == b"deep"
    assert workspace.names_in("a/b") == ["c"]


async def test_replaces_an_existing_file_whole(workspace: Workspace) -> None:
    workspace.write("config.toml", "old = true\nmuch longer old content\n")
    await write(workspace, "config.toml", "new = 1\n")
    assert workspace.read("config.toml") == b"new = 1\n"


async def test_at_prefix_and_home_directory(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = await write(workspace, "@notes.md", "at\n")
    assert text_of(result.content) == "Successfully wrote 3 bytes to @notes.md"
    assert workspace.read("notes.md") == b"at\n"
    monkeypatch.setenv("HOME", workspace.path("home"))
    await write(workspace, "~/todo.md", "home\n")
    assert workspace.read("home/todo.md") == b"home\n"


async def test_a_directory_cannot_be_written(workspace: Workspace) -> None:
    workspace.mkdir("src")
    with pytest.raises(ToolError, match=r"^Cannot write src: it is a directory\.$"):
        await write(workspace, "src", "x")


async def test_a_file_in_the_parent_path_is_an_error(workspace: Workspace) -> None:
    workspace.write("notes.txt", "keep me\n")
    with pytest.raises(
        ToolError,
        match=r"^Cannot write notes.txt/inner.txt: part of its parent path is a file, "
        r"not a directory\.$",
    ):
        await write(workspace, "notes.txt/inner.txt", "x")
    assert workspace.read("notes.txt") == b"keep me\n"


async def test_no_temp_files_remain_after_writes(workspace: Workspace) -> None:
    workspace.write("keep.txt", "old")
    await write(workspace, "keep.txt", "new")
    await write(workspace, "fresh.txt", "fresh")
    assert workspace.names_in(".") == ["fresh.txt", "keep.txt"]


async def test_same_file_writes_run_one_after_another(workspace: Workspace) -> None:
    log: list[str] = []

    class SlowWrites:
        async def write_file(self, path: str, data: bytes) -> None:
            log.append(f"start {data.decode()}")
            await asyncio.sleep(0.01)
            await workspace.operations.write_file(path, data)
            log.append(f"end {data.decode()}")

        async def real_path(self, path: str) -> str:
            resolved: str = await workspace.operations.real_path(path)
            return resolved

    tool = create_write_tool(workspace.root, operations=SlowWrites())
    await asyncio.gather(
        *(call(tool, {"path": "same.txt", "content": text}, workspace.root) for text in "abc")
    )
    assert log == ["start a", "end a", "start b", "end b", "start c", "end c"]
    assert workspace.read("same.txt") == b"c"


async def test_write_through_agent_loop(workspace: Workspace) -> None:
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("write", {"path": "out/result.txt", "content": "42\n"}, id="w1")
            ),
            faux_message(faux_text("Written.")),
        ]
    )
    tool = create_write_tool(workspace.root, operations=workspace.operations)
    results = await run_through_agent_loop(tool, fm, workspace.root)
    assert [r.tool_call_id for r in results] == ["w1"]
    assert results[0].is_error is False
    assert results[0].content == [TextContent("Successfully wrote 3 bytes to out/result.txt")]
    assert workspace.read("out/result.txt") == b"42\n"


# --- atomicity of LocalFileOperations.write_file ------------------------------------------


async def test_crash_before_rename_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "data.json"
    target.write_text('{"version": 1}\n')

    def crash(src: str, dst: str) -> None:
        raise OSError(5, "Input/output error (simulated crash)")

    monkeypatch.setattr(os, "replace", crash)
    tool = create_write_tool(str(tmp_path), operations=LocalOperations())
    with pytest.raises(ToolError, match=r"^Cannot write data.json: Input/output error"):
        await call(tool, {"path": "data.json", "content": '{"version": 2}\n'}, str(tmp_path))
    assert target.read_text() == '{"version": 1}\n'
    assert sorted(os.listdir(tmp_path)) == ["data.json"]


async def test_replacing_keeps_permission_bits(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    tool = create_write_tool(str(tmp_path))
    await call(tool, {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}, str(tmp_path))
    assert script.stat().st_mode & 0o777 == 0o750
    assert script.read_text() == "#!/bin/sh\necho hi\n"


async def test_writing_through_a_symlink_replaces_the_target(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    (tmp_path / "link.txt").symlink_to(real)
    tool = create_write_tool(str(tmp_path))
    await call(tool, {"path": "link.txt", "content": "new"}, str(tmp_path))
    assert (tmp_path / "link.txt").is_symlink()
    assert real.read_text() == "new"


def test_schema_names_and_describes_both_parameters() -> None:
    tool = create_write_tool("/")
    assert tool.name == "write"
    assert tool.parameters["required"] == ["path", "content"]
    assert all("description" in spec for spec in tool.parameters["properties"].values())
    assert tool.governance is not None
    assert tool.parameters["properties"]["content"]["x-review"] == "redact"


class RefusingMemory(MemoryOperations):
    """An in-memory tree whose writes fail the way a file system refuses them."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    async def write_file(self, path: str, data: bytes) -> None:
        raise self.error


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (PermissionError(13, "Permission denied"), "Permission denied: cannot write out.txt."),
        (OSError(28, "No space left on device"), "Cannot write out.txt: No space left on device."),
        (OSError(30, "Read-only file system"), "Cannot write out.txt: Read-only file system."),
    ],
)
async def test_refused_writes_are_clear_errors(error: OSError, message: str) -> None:
    tool = create_write_tool("/srv", operations=RefusingMemory(error))
    with pytest.raises(ToolError) as caught:
        await call(tool, {"path": "out.txt", "content": "x"}, "/srv")
    assert str(caught.value) == message


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
async def test_a_read_only_directory_is_permission_denied(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        tool = create_write_tool(str(tmp_path), operations=LocalOperations())
        with pytest.raises(ToolError, match=r"^Permission denied: cannot write locked/a\.txt\.$"):
            await call(tool, {"path": "locked/a.txt", "content": "x"}, str(tmp_path))
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)
