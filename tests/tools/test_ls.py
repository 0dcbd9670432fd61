"""The ls tool: case-insensitive order, dotfiles, ``/`` for directories, the entry
limit and the output cap with their notices, and clear errors — on a real temp dir and in memory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tether.agent import ToolError
from tether.ai import TextContent
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools.ls import create_ls_tool
from tether.tools.operations import DirEntry, MemoryOperations

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


async def ls(workspace: Workspace, **params: Any) -> Any:
    tool = create_ls_tool(workspace.root, operations=workspace.operations)
    return await call(tool, params, workspace.root)


def populate(workspace: Workspace) -> None:
    for name in ("b.txt", "A.md", ".env", "Zeta", "c/inner.txt", ".git/HEAD", "apple.py"):
        workspace.write(name, "x")
    workspace.mkdir("Docs")


async def test_entries_sorted_case_insensitively_with_dotfiles_and_directory_slashes(
    workspace: Workspace,
) -> None:
    populate(workspace)
    result = await ls(workspace)
    assert result.content == [TextContent(".env\n.git/\nA.md\napple.py\nb.txt\nc/\nDocs/\nZeta")]
    assert result.details["total_entries"] == 8
    assert result.details["entry_limit_reached"] is False


async def test_only_direct_children_are_listed(workspace: Workspace) -> None:
    workspace.write("pkg/sub/deep.py", "x")
    workspace.write("pkg/top.py", "x")
    result = await ls(workspace, path="pkg")
    assert text_of(result.content) == "sub/\ntop.py"


async def test_same_name_in_different_case_keeps_a_stable_order(workspace: Workspace) -> None:
    for name in ("readme", "README", "Readme"):
        workspace.write(name, "x")
    result = await ls(workspace)
    assert text_of(result.content) == "README\nReadme\nreadme"


async def test_empty_directory(workspace: Workspace) -> None:
    workspace.mkdir("void")
    result = await ls(workspace, path="void")
    assert result.content == [TextContent("(empty directory)")]
    assert result.details["total_entries"] == 0


async def test_limit_notice_gives_the_total_and_the_limit_to_use(workspace: Workspace) -> None:
    for n in range(7):
        workspace.write(f"f{n}.txt", "x")
    result = await ls(workspace, limit=3)
    assert text_of(result.content) == (
        "f0.txt\nf1.txt\nf2.txt\n\n[3 entries limit reached; the directory has 7. "
        "Use limit=7 for more.]"
    )
    assert result.details["entry_limit_reached"] is True
    assert result.details["shown_entries"] == 3


async def test_limit_equal_to_the_count_has_no_notice(workspace: Workspace) -> None:
    for n in range(3):
        workspace.write(f"f{n}", "x")
    result = await ls(workspace, limit=3)
    assert text_of(result.content) == "f0\nf1\nf2"


async def test_default_limit_is_500(workspace: Workspace) -> None:
    for n in range(501):
        workspace.write(f"e{n:04d}", "")
    result = await ls(workspace)
    body, notice = text_of(result.content).rsplit("\n\n", 1)
    assert len(body.split("\n")) == 500
    assert body.split("\n")[-1] == "e0499"
    assert notice == "[500 entries limit reached; the directory has 501. Use limit=501 for more.]"


async def test_output_is_capped_at_50_kib(workspace: Workspace) -> None:
    names = [f"{n:03d}-{'n' * 120}" for n in range(600)]
    for name in names:
        workspace.write(name, "")
    result = await ls(workspace, limit=1000)
    body, notice = text_of(result.content).rsplit("\n\n", 1)
    shown = body.split("\n")
    assert shown == names[: len(shown)]
    assert len(body.encode()) <= 50 * 1024 < len(body.encode()) + len(names[len(shown)]) + 1
    assert notice == (
        f"[Output cut at the 50.0KB limit: showing {len(shown)} of 600 entries. "
        "List a subdirectory, or use find with a pattern, to see the rest.]"
    )
    assert result.details["truncation"]["truncated_by"] == "bytes"


async def test_output_is_capped_at_2000_lines(workspace: Workspace) -> None:
    for n in range(2100):
        workspace.write(f"{n:04d}", "")
    result = await ls(workspace, limit=5000)
    body, notice = text_of(result.content).rsplit("\n\n", 1)
    assert len(body.split("\n")) == 2000
    assert notice == (
        "[Output cut at the 2000-line limit: showing 2000 of 2100 entries. "
        "List a subdirectory, or use find with a pattern, to see the rest.]"
    )


async def test_missing_path(workspace: Workspace) -> None:
    with pytest.raises(ToolError, match=r"^Path not found: nowhere$"):
        await ls(workspace, path="nowhere")


async def test_a_file_is_not_a_directory(workspace: Workspace) -> None:
    workspace.write("main.py", "x")
    with pytest.raises(ToolError, match=r"^Not a directory: main\.py$"):
        await ls(workspace, path="main.py")


async def test_at_prefix_and_home_directory(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace.write("src/a.py", "x")
    result = await ls(workspace, path="@src")
    assert text_of(result.content) == "a.py"
    monkeypatch.setenv("HOME", workspace.path("home"))
    workspace.write("home/.bashrc", "x")
    workspace.mkdir("home/projects")
    result = await ls(workspace, path="~")
    assert text_of(result.content) == ".bashrc\nprojects/"
    with pytest.raises(ToolError, match=r"^Path not found: ~/missing$"):
        await ls(workspace, path="~/missing")


async def test_ls_through_agent_loop(workspace: Workspace) -> None:
    workspace.write("README.md", "x")
    workspace.mkdir("src")
    fm = FauxModel(
        [
            faux_message(faux_tool_call("ls", {}, id="l1")),
            faux_message(faux_tool_call("ls", {"path": "README.md"}, id="l2")),
            faux_message(faux_text("Listed.")),
        ]
    )
    tool = create_ls_tool(workspace.root, operations=workspace.operations)
    results = await run_through_agent_loop(tool, fm, workspace.root)
    assert [(r.tool_call_id, r.is_error) for r in results] == [("l1", False), ("l2", True)]
    assert results[0].content == [TextContent("README.md\nsrc/")]
    assert results[1].content == [TextContent("Not a directory: README.md")]


async def test_default_operations_list_this_machine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "file").write_text("x")
    tool = create_ls_tool(str(tmp_path))
    result = await call(tool, {}, str(tmp_path))
    assert text_of(result.content) == "file\nreal/"
    assert set(tool.parameters["properties"]) == {"path", "limit"}


class RefusingMemory(MemoryOperations):
    async def list_dir(self, path: str) -> list[DirEntry]:
        raise PermissionError(13, "Permission denied", path)


async def test_a_directory_that_cannot_be_listed_is_permission_denied() -> None:
    operations = RefusingMemory()
    operations.make_dir("/srv/private")
    tool = create_ls_tool("/srv", operations=operations)
    with pytest.raises(ToolError, match=r"^Permission denied: cannot list private\.$"):
        await call(tool, {"path": "private"}, "/srv")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may list anything")
async def test_an_unreadable_directory_is_permission_denied(tmp_path: Path) -> None:
    (tmp_path / "private").mkdir(mode=0o000)
    try:
        tool = create_ls_tool(str(tmp_path))
        with pytest.raises(ToolError, match=r"^Permission denied: cannot list private\.$"):
            await call(tool, {"path": "private"}, str(tmp_path))
    finally:
        (tmp_path / "private").chmod(0o755)


async def test_a_name_that_is_not_utf8_is_listed_with_escapes(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"bad\xff.txt")).write_text("x")
    (tmp_path / "good.txt").write_text("x")
    tool = create_ls_tool(str(tmp_path))

    result = await call(tool, {}, str(tmp_path))

    text = text_of(result.content)
    assert text == "bad\\xff.txt\ngood.txt"
    text.encode("utf-8")  # showable and recordable
