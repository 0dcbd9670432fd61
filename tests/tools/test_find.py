"""The find tool (``docs/coding-tools.md``): glob semantics, sorted relative paths, limits,
ignore files, errors.

Core cases run against a real temp tree both with ``LocalOperations`` (the real ``rg``) and with
``MemoryOperations``; ignore files and rg's own messages are local only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, ToolError, agent_loop
from tether.ai import AbortController, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools._definition import ToolContext, ToolDefinition, wrap_tool_definition
from tether.tools.find import create_find_tool
from tether.tools.operations import LocalOperations, MemoryOperations, _ripgrep
from tether.tools.operations import _ripgrep as ripgrep_module

BACKENDS = ["local", "memory"]

TREE = [
    "src/app.py",
    "src/util/helpers.py",
    "src/util/data.json",
    "tests/test_app.py",
    "package.json",
    "README.md",
    ".config/settings.json",
]


def make_tool(backend: str, root: Path, files: list[str] | dict[str, str]) -> ToolDefinition:
    """Create ``files`` under ``root`` and build a find tool for ``root`` on ``backend``."""
    contents = files if isinstance(files, dict) else dict.fromkeys(files, "x\n")
    stored: dict[str, bytes] = {}
    for relative, content in contents.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        stored[str(target)] = content.encode()
    operations: Any = LocalOperations() if backend == "local" else MemoryOperations(stored)
    if backend == "memory":
        operations.make_dir(str(root))
    return create_find_tool(str(root), operations=operations)


async def find(tool: ToolDefinition, **params: Any) -> str:
    result = await tool.execute("call", params, AbortController().signal, None, ToolContext("/"))
    assert not isinstance(result, str)
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.parametrize("backend", BACKENDS)
async def test_name_glob_matches_at_any_depth_sorted(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    text = await find(tool, pattern="*.py")
    assert text.splitlines() == ["src/app.py", "src/util/helpers.py", "tests/test_app.py"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_double_star_and_anchored_globs(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    assert (await find(tool, pattern="**/*.json")).splitlines() == [
        ".config/settings.json",
        "package.json",
        "src/util/data.json",
    ]
    assert (await find(tool, pattern="src/*.py")).splitlines() == ["src/app.py"]
    assert (await find(tool, pattern="src/**/*.py")).splitlines() == [
        "src/app.py",
        "src/util/helpers.py",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_path_narrows_the_search_and_paths_are_relative_to_it(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    text = await find(tool, pattern="*", path="src/util")
    assert text.splitlines() == ["data.json", "helpers.py"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_hidden_files_are_listed(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    assert await find(tool, pattern="settings.json") == ".config/settings.json"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_limit_keeps_the_first_sorted_paths_and_says_how_to_get_more(
    backend: str, tmp_path: Path
):
    tool = make_tool(backend, tmp_path, ["e.txt", "c.txt", "a.txt", "d.txt", "b.txt"])
    text = await find(tool, pattern="*.txt", limit=2)
    assert text == (
        "a.txt\nb.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert (await find(tool, pattern="*.txt", limit=5)).splitlines() == [
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "e.txt",
    ]


@pytest.mark.parametrize("slack", [3, 1_000_000])
async def test_limit_keeps_the_first_sorted_paths_of_a_large_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slack: int
):
    # rg lists files in no particular order; the listing holds at most limit + slack paths.
    monkeypatch.setattr(_ripgrep, "_FIND_PRUNE_SLACK", slack)
    names = [f"d{n % 7}/f{(n * 37) % 100:03d}.txt" for n in range(100)]
    tool = make_tool("local", tmp_path, names)
    text = await find(tool, pattern="*.txt", limit=5)
    shown, notice = text.split("\n\n")
    assert shown.splitlines() == sorted(names)[:5]
    assert notice == "[5 results limit reached. Use limit=10 for more, or refine pattern]"


async def test_a_name_with_a_newline_is_one_path(tmp_path: Path):
    tool = make_tool("local", tmp_path, ["new\nline.txt", "z.txt"])
    result = await tool.execute(
        "call", {"pattern": "*.txt"}, AbortController().signal, None, ToolContext("/")
    )
    assert result.details["count"] == 2
    assert await find(tool, pattern="*.txt") == "new\nline.txt\nz.txt"


async def test_names_that_are_not_utf8_are_listed_lossily(tmp_path: Path):
    directory = os.fsencode(tmp_path) + b"/d\xff"
    os.mkdir(directory)
    with open(directory + b"/f\xfe.txt", "wb"):
        pass
    tool = make_tool("local", tmp_path, ["a.txt"])
    assert (await find(tool, pattern="*.txt")).splitlines() == ["a.txt", "d\ufffd/f\ufffd.txt"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_output_is_capped_at_50_kib_with_notice(backend: str, tmp_path: Path):
    names = [f"{n:04d}_{'n' * 70}.txt" for n in range(800)]
    tool = make_tool(backend, tmp_path, names)
    text = await find(tool, pattern="*.txt", limit=5000)
    shown, notice = text.split("\n\n")
    assert len(shown.encode()) <= 50 * 1024
    kept = shown.splitlines()
    assert kept == sorted(names)[: len(kept)]
    assert notice == (
        f"[Output capped at 50.0KB: showing {len(kept)} of 800 paths. "
        "Refine pattern or search a subdirectory to see the rest]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_output_is_capped_at_2000_lines_with_notice(backend: str, tmp_path: Path):
    names = [f"{n:04d}.txt" for n in range(2500)]
    tool = make_tool(backend, tmp_path, names)
    text = await find(tool, pattern="*.txt", limit=5000)
    shown, notice = text.split("\n\n")
    assert shown.splitlines() == names[:2000]
    assert notice == (
        "[Output capped at 2000 lines: showing 2000 of 2500 paths. "
        "Refine pattern or search a subdirectory to see the rest]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_nothing_found(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    assert await find(tool, pattern="*.rs") == "No files found matching pattern"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_missing_path_is_an_error_naming_it(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    with pytest.raises(ToolError, match=r"^Path not found: nowhere$"):
        await find(tool, pattern="*", path="nowhere")


async def test_invalid_glob_is_an_error_with_rgs_reason(tmp_path: Path):
    tool = make_tool("local", tmp_path, TREE)
    with pytest.raises(ToolError, match=r"^Invalid glob pattern 'a\[': error parsing glob"):
        await find(tool, pattern="a[")


@pytest.mark.parametrize("with_git_dir", [False, True])
async def test_gitignore_is_respected_and_git_dir_is_never_listed(
    tmp_path: Path, with_git_dir: bool
):
    files = {".gitignore": "build/\n*.log\n", "build/out.txt": "", "x.log": "", "src/a.txt": ""}
    if with_git_dir:
        files[".git/HEAD"] = "ref: refs/heads/main\n"
        files[".git/info/exclude"] = ""
    tool = make_tool("local", tmp_path, files)
    assert (await find(tool, pattern="*")).splitlines() == [".gitignore", "src/a.txt"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*", ["HEADER.md", "app.py", "sub/.github/ci.py", "vendor/lib/lib.py"]),
        ("**/*.py", ["app.py", "sub/.github/ci.py", "vendor/lib/lib.py"]),
        ("*HEAD*", ["HEADER.md"]),
        (".git", ["No files found matching pattern"]),
        ("**/.git/**", ["No files found matching pattern"]),
    ],
)
async def test_no_git_directory_or_git_file_is_listed_at_any_depth(
    backend: str, tmp_path: Path, pattern: str, expected: list[str]
):
    files = {".git/HEAD": "", ".git/hooks/pre_commit.py": "", "app.py": "", "HEADER.md": ""}
    files |= {"vendor/lib/.git/HEAD": "", "vendor/lib/.git/x.py": "", "vendor/lib/lib.py": ""}
    files |= {"sub/.git": "gitdir: ../.git/modules/sub\n", "sub/.github/ci.py": ""}
    tool = make_tool(backend, tmp_path, files)
    assert (await find(tool, pattern=pattern)).splitlines() == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["src/a.py"]),
        ("**/*.py", ["src/a.py"]),
        ("src/*.py", ["src/a.py"]),
        ("src/**", ["src/a.py", "src/b.ts"]),
        ("*", [".gitignore", "src/a.py", "src/b.ts"]),
        ("**", [".gitignore", "src/a.py", "src/b.ts"]),
        ("!*.py", [".gitignore", "src/b.ts"]),
    ],
)
async def test_a_glob_never_brings_back_ignored_files(
    tmp_path: Path, pattern: str, expected: list[str]
):
    files = {".gitignore": "gen.py\nbuild/\n", "src/gen.py": "", "build/c.py": ""}
    files |= {"src/a.py": "", "src/b.ts": ""}
    tool = make_tool("local", tmp_path, files)
    assert (await find(tool, pattern=pattern)).splitlines() == expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.{ts,tsx}", ["web/a.ts", "web/b.tsx"]),
        ("web/?.ts", ["web/a.ts"]),
        ("[ab].*", ["web/a.ts", "web/b.tsx"]),
        ("/top.md", ["top.md"]),
        ("deep/", ["web/deep/c.md"]),
        ("web/**/*.md", ["web/deep/c.md"]),
        ("!*.ts*", ["top.md", "web/deep/c.md"]),
    ],
)
async def test_glob_syntax(backend: str, tmp_path: Path, pattern: str, expected: list[str]):
    tool = make_tool(backend, tmp_path, ["web/a.ts", "web/b.tsx", "web/deep/c.md", "top.md"])
    assert (await find(tool, pattern=pattern)).splitlines() == expected


@pytest.mark.parametrize("repository", [False, True])
async def test_rg_prunes_git_only_where_the_searched_directory_has_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repository: bool
) -> None:
    """A store of loose objects would double rg's walk; elsewhere the exclusion is pure cost."""
    real_rg, log = ripgrep_module.locate_ripgrep(), tmp_path / "argv.log"
    wrapper = tmp_path / "rg-wrapper"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\nexec {real_rg} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(ripgrep_module, "locate_ripgrep", lambda: str(wrapper))
    files = {"work/a.py": "", "work/.git/objects/ab/cdef": "", "work/.git/hooks/x.py": ""}
    if not repository:
        files = {"work/a.py": "", "work/lib/.git/hooks/x.py": ""}
    tool = make_tool("local", tmp_path, files)
    assert await find(tool, pattern="*.py", path=str(tmp_path / "work")) == "a.py"
    argv = log.read_text().splitlines()
    assert ("!.git" in argv) is repository


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_git_file_named_as_the_path_is_found(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {"sub/.git": "gitdir: ../.git/modules/sub\n"})
    assert await find(tool, pattern="*", path=str(tmp_path / "sub" / ".git")) == ".git"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_file_named_as_the_path_is_listed_only_when_the_pattern_matches_it(
    backend: str, tmp_path: Path
):
    tool = make_tool(backend, tmp_path, TREE)
    assert await find(tool, pattern="*.py", path="src/app.py") == "app.py"
    assert await find(tool, pattern="*.json", path="src/app.py") == (
        "No files found matching pattern"
    )
    assert "only if pattern matches its name" in tool.description


async def test_nested_gitignore_applies_to_its_directory(tmp_path: Path):
    files = {"pkg/.gitignore": "*.tmp\n", "pkg/a.tmp": "", "b.tmp": ""}
    tool = make_tool("local", tmp_path, files)
    assert (await find(tool, pattern="*.tmp")).splitlines() == ["b.tmp"]


async def test_default_path_is_the_tools_cwd(tmp_path: Path):
    make_tool("local", tmp_path, TREE)
    tool = create_find_tool(str(tmp_path / "src"))
    assert (await find(tool, pattern="*.py")).splitlines() == ["app.py", "util/helpers.py"]


async def test_paths_are_posix_and_relative(tmp_path: Path):
    tool = make_tool("local", tmp_path, TREE)
    text = await find(tool, pattern="helpers.py", path=str(tmp_path))
    assert text == "src/util/helpers.py"
    assert os.sep == "/" or "\\" not in text


@pytest.mark.parametrize("backend", BACKENDS)
async def test_find_through_the_agent_loop(backend: str, tmp_path: Path):
    tool = wrap_tool_definition(make_tool(backend, tmp_path, TREE))
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("find", {"pattern": "*.json", "limit": 2}),
                faux_tool_call("find", {"pattern": "*", "path": "missing"}),
            ),
            faux_message(faux_text("done")),
        ]
    )
    stream = agent_loop(
        [UserMessage("list json")],
        AgentContext("", [], [tool]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    _ = [event async for event in stream]
    results = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    assert [result.is_error for result in results] == [False, True]
    listed = results[0].content[0]
    assert isinstance(listed, TextContent)
    assert listed.text == (
        ".config/settings.json\npackage.json\n\n"
        "[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert results[0].details == {
        "count": 2,
        "result_limit_reached": 2,
        "truncated_by": None,
    }
    missing = results[1].content[0]
    assert isinstance(missing, TextContent)
    assert missing.text == "Path not found: missing"
