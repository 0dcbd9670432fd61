"""The grep tool: ripgrep semantics, output format, limits and notices, errors.

Core cases run against a real temp tree both with ``LocalOperations`` (the real ``rg``) and with
``MemoryOperations``; ignore files, rg's own messages and process handling are local only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sysconfig
from pathlib import Path
from typing import Any

import psutil
import pytest

from tether.agent import AgentContext, AgentLoopConfig, ToolError, agent_loop
from tether.ai import AbortController, AbortSignal, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import PathPolicy
from tether.tools._definition import ToolContext, ToolDefinition, wrap_tool_definition
from tether.tools.grep import create_grep_tool
from tether.tools.operations import GrepLine, GrepQuery, LocalOperations, MemoryOperations
from tether.tools.operations._ripgrep import locate_ripgrep
from tether.tools.operations._secret_files import is_secret_file

BACKENDS = ["local", "memory"]

TREE: dict[str, str] = {
    "sub/a.txt": "alpha\nbeta a.b\ngamma axb\ndelta\n",
    "sub/deep/b.py": "def alpha():\n    return 'ALPHA'\n",
    "top.py": "alpha = 1\n",
    "notes.md": "nothing here\n",
}


def make_tool(backend: str, root: Path, files: dict[str, str | bytes]) -> ToolDefinition:
    """Write ``files`` under ``root`` and build a grep tool for ``root`` on ``backend``."""
    stored: dict[str, bytes] = {}
    for relative, content in files.items():
        data = content.encode() if isinstance(content, str) else content
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        stored[str(target)] = data
    operations: Any = LocalOperations() if backend == "local" else MemoryOperations(stored)
    if backend == "memory":
        operations.make_dir(str(root))
    return create_grep_tool(str(root), operations=operations)


async def grep(tool: ToolDefinition, signal: AbortSignal | None = None, **params: Any) -> str:
    """Run the tool and return its text."""
    signal = signal if signal is not None else AbortController().signal
    result = await tool.execute("call", params, signal, None, ToolContext("/"))
    assert not isinstance(result, str)
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.parametrize("backend", BACKENDS)
async def test_matches_are_file_line_text_with_relative_paths_sorted(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    text = await grep(tool, pattern="alpha")
    assert text.splitlines() == [
        "sub/a.txt:1: alpha",
        "sub/deep/b.py:1: def alpha():",
        "top.py:1: alpha = 1",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_context_lines_use_dashes_and_true_line_numbers(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {"f.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"})
    text = await grep(tool, pattern="three|four", context=1)
    assert text.splitlines() == [
        "f.txt-2- two",
        "f.txt:3: three",
        "f.txt:4: four",
        "f.txt-5- five",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_ignore_case(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    assert await grep(tool, pattern="ALPHA") == "sub/deep/b.py:2:     return 'ALPHA'"
    text = await grep(tool, pattern="ALPHA", ignore_case=True, path="sub/deep")
    assert text.splitlines() == ["b.py:1: def alpha():", "b.py:2:     return 'ALPHA'"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_regex_by_default_literal_on_request(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    regex = await grep(tool, pattern="a.b", path="sub")
    assert regex.splitlines() == ["a.txt:2: beta a.b", "a.txt:3: gamma axb"]
    literal = await grep(tool, pattern="a.b", path="sub", literal=True)
    assert literal.splitlines() == ["a.txt:2: beta a.b"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_filters_files(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    by_name = await grep(tool, pattern="alpha", glob="*.py")
    assert by_name.splitlines() == ["sub/deep/b.py:1: def alpha():", "top.py:1: alpha = 1"]
    by_path = await grep(tool, pattern="alpha", glob="sub/**/*.py")
    assert by_path.splitlines() == ["sub/deep/b.py:1: def alpha():"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_hidden_files_are_searched(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {".hidden/x.txt": "secret alpha\n", "y.txt": "alpha\n"})
    text = await grep(tool, pattern="alpha")
    assert text.splitlines() == [".hidden/x.txt:1: secret alpha", "y.txt:1: alpha"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_searching_a_single_file_shows_its_name(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    text = await grep(tool, pattern="a", path="sub/a.txt")
    assert text.splitlines()[0] == "a.txt:1: alpha"
    assert len(text.splitlines()) == 4


@pytest.mark.parametrize("backend", BACKENDS)
async def test_no_matches(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    assert await grep(tool, pattern="zzz_not_there") == "No matches found"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_match_limit_keeps_limit_matches_and_says_how_to_get_more(
    backend: str, tmp_path: Path
):
    tool = make_tool(backend, tmp_path, {"f.txt": "".join(f"hit {n}\n" for n in range(1, 6))})
    text = await grep(tool, pattern="hit", limit=2)
    assert text == (
        "f.txt:1: hit 1\nf.txt:2: hit 2\n\n"
        "[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_exactly_limit_matches_is_not_reported_as_cut(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {"f.txt": "hit\nhit\nmiss\n", "g.txt": "miss\n"})
    text = await grep(tool, pattern="hit", limit=2)
    assert text == "f.txt:1: hit\nf.txt:2: hit"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_limit_across_files_with_context_keeps_trailing_context_only(
    backend: str, tmp_path: Path
):
    content = "hit 1\nx\ny\nz\nhit 2\nw\n"
    tool = make_tool(backend, tmp_path, {"a.txt": content})
    text = await grep(tool, pattern="hit", limit=1, context=2)
    assert text.splitlines() == [
        "a.txt:1: hit 1",
        "a.txt-2- x",
        "a.txt-3- y",
        "",
        "[1 matches limit reached. Use limit=2 for more, or refine pattern]",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_long_lines_are_cut_at_500_chars_with_notice(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {"long.txt": "x" * 600 + " needle\nshort needle\n"})
    text = await grep(tool, pattern="needle")
    lines = text.splitlines()
    assert lines[0] == "long.txt:1: " + "x" * 500 + "... [truncated]"
    assert lines[1] == "long.txt:2: short needle"
    assert lines[-1] == "[Some lines truncated to 500 chars. Use read to see full lines]"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_output_is_capped_at_50_kib_with_notice(backend: str, tmp_path: Path):
    body = "".join(f"needle {n:04d} {'y' * 400}\n" for n in range(300))
    tool = make_tool(backend, tmp_path, {"big.txt": body})
    text = await grep(tool, pattern="needle", limit=1000)
    shown, notice = text.split("\n\n")
    assert len(shown.encode()) <= 50 * 1024
    kept = shown.splitlines()
    assert kept[0].startswith("big.txt:1: needle 0000 ")
    assert kept[-1].startswith(f"big.txt:{len(kept)}: needle {len(kept) - 1:04d} ")
    assert notice == (
        f"[Output capped at 50.0KB: showing {len(kept)} of 300 lines. "
        "Narrow the search with path or glob, or refine pattern, to see the rest]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_output_is_capped_at_2000_lines_with_notice(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, {"many.txt": "".join(f"hit {n}\n" for n in range(2500))})
    text = await grep(tool, pattern="hit", limit=5000)
    shown, notice = text.split("\n\n")
    kept = shown.split("\n")
    assert len(kept) == 2000
    assert (kept[0], kept[-1]) == ("many.txt:1: hit 0", "many.txt:2000: hit 1999")
    assert notice == (
        "[Output capped at 2000 lines: showing 2000 of 2500 lines. "
        "Narrow the search with path or glob, or refine pattern, to see the rest]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_missing_path_is_an_error_naming_it(backend: str, tmp_path: Path):
    tool = make_tool(backend, tmp_path, TREE)
    with pytest.raises(ToolError, match=r"^Path not found: no/such/dir$"):
        await grep(tool, pattern="alpha", path="no/such/dir")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_invalid_regex_is_an_error_with_the_reason_and_a_way_out(
    backend: str, tmp_path: Path
):
    tool = make_tool(backend, tmp_path, TREE)
    with pytest.raises(ToolError) as caught:
        await grep(tool, pattern="a(b")
    message = str(caught.value)
    assert message.startswith("Invalid search for pattern 'a(b': regex parse error")
    assert message.endswith("To search for the text as written, set literal=true.")


async def test_rg_message_for_invalid_regex_is_passed_on(tmp_path: Path):
    tool = make_tool("local", tmp_path, TREE)
    with pytest.raises(ToolError, match="unclosed group"):
        await grep(tool, pattern="a(b")


async def test_invalid_glob_is_an_error(tmp_path: Path):
    tool = make_tool("local", tmp_path, TREE)
    with pytest.raises(ToolError, match=r"error parsing glob 'a\['"):
        await grep(tool, pattern="alpha", glob="a[")


@pytest.mark.parametrize("with_git_dir", [False, True])
async def test_gitignore_is_respected_inside_and_outside_a_git_repo(
    tmp_path: Path, with_git_dir: bool
):
    files: dict[str, str | bytes] = {
        ".gitignore": "ignored/\n*.log\n",
        "ignored/x.txt": "alpha\n",
        "debug.log": "alpha\n",
        "kept.txt": "alpha\n",
    }
    if with_git_dir:
        files[".git/config"] = "alpha\n"
        files[".git/HEAD"] = "ref: refs/heads/alpha\n"
    tool = make_tool("local", tmp_path, files)
    assert await grep(tool, pattern="alpha") == "kept.txt:1: alpha"


@pytest.mark.parametrize("glob", ["*.py", "**/*.py", "src/*.py", "*"])
async def test_a_glob_never_brings_back_ignored_files(tmp_path: Path, glob: str):
    files: dict[str, str | bytes] = {
        ".gitignore": "gen.py\n",
        "src/gen.py": "alpha\n",
        "src/a.py": "alpha\n",
    }
    tool = make_tool("local", tmp_path, files)
    assert await grep(tool, pattern="alpha", glob=glob) == "src/a.py:1: alpha"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_path_glob_limit_counts_only_files_it_accepts(backend: str, tmp_path: Path):
    files: dict[str, str | bytes] = {"a/x.py": "hit\nhit\n", "b/y.py": "hit\n"}
    tool = make_tool(backend, tmp_path, files)
    assert await grep(tool, pattern="hit", glob="b/*.py", limit=1) == "b/y.py:1: hit"


async def test_ignored_file_is_searched_when_named_explicitly(tmp_path: Path):
    tool = make_tool("local", tmp_path, {".gitignore": "*.log\n", "debug.log": "alpha\n"})
    assert await grep(tool, pattern="alpha", path="debug.log") == "debug.log:1: alpha"


async def test_crlf_and_invalid_utf8_lines_are_shown_cleanly(tmp_path: Path):
    tool = make_tool("local", tmp_path, {"w.txt": b"caf\xe9 alpha\r\nnext\r\n"})
    assert await grep(tool, pattern="alpha") == "w.txt:1: caf\ufffd alpha"


async def test_binary_files_are_skipped_in_a_tree_but_searched_when_named(tmp_path: Path):
    tool = make_tool("local", tmp_path, {"data.bin": b"alpha\0beta\nalpha 2\n", "t.txt": "alpha\n"})
    assert await grep(tool, pattern="alpha") == "t.txt:1: alpha"
    named = await grep(tool, pattern="alpha", path="data.bin")
    assert named.splitlines() == ["data.bin:1: alpha\0beta", "data.bin:2: alpha 2"]


async def test_rgs_note_on_a_binary_file_is_not_taken_for_a_line(tmp_path: Path):
    # Past rg's first buffer a NUL stops the search after matches were printed; rg then adds a
    # warning line of its own to the output.
    text = "".join(f"alpha {n}\n" for n in range(60_000)).encode() + b"\0alpha late\n"
    tool = make_tool("local", tmp_path, {"big.bin": text})
    result = await tool.execute(
        "call",
        {"pattern": "alpha", "limit": 100_000},
        AbortController().signal,
        None,
        ToolContext("/"),
    )
    count = result.details["match_count"]
    assert 0 < count < 60_000
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert "WARNING" not in block.text
    assert block.text.splitlines()[0] == "big.bin:1: alpha 0"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_lines_looking_like_rg_output_are_shown_as_they_are(backend: str, tmp_path: Path):
    content = "12-34: x\n--\n7:8 hit\n-1-\n\n"
    tool = make_tool(backend, tmp_path, {"odd.txt": content})
    text = await grep(tool, pattern="hit", context=2)
    assert text.splitlines() == [
        "odd.txt-1- 12-34: x",
        "odd.txt-2- --",
        "odd.txt:3: 7:8 hit",
        "odd.txt-4- -1-",
        "odd.txt-5- ",
    ]


async def test_a_line_longer_than_rgs_output_reads_is_whole(tmp_path: Path):
    long_line = "needle " + "x" * 3_000_000
    tool = make_tool("local", tmp_path, {"a.txt": f"{long_line}\nneedle 2\n", "b.txt": "needle\n"})
    text = await grep(tool, pattern="needle")
    assert text.splitlines()[:3] == [
        "a.txt:1: " + long_line[:500] + "... [truncated]",
        "a.txt:2: needle 2",
        "b.txt:1: needle",
    ]


async def test_a_path_with_a_newline_is_one_path(tmp_path: Path):
    tool = make_tool("local", tmp_path, {"new\nline.txt": "alpha\nbeta\n", "z.txt": "alpha\n"})
    text = await grep(tool, pattern="alpha|beta", context=1)
    assert text.splitlines() == [
        "new",
        "line.txt:1: alpha",
        "new",
        "line.txt:2: beta",
        "z.txt:1: alpha",
    ]


async def test_paths_and_lines_that_are_not_utf8_are_shown_lossily(tmp_path: Path):
    directory = os.fsencode(tmp_path) + b"/d\xff"
    os.mkdir(directory)
    with open(directory + b"/f\xfe.txt", "wb") as handle:
        handle.write(b"alpha \xff\n")
    tool = make_tool("local", tmp_path, {})
    assert await grep(tool, pattern="alpha") == "d\ufffd/f\ufffd.txt:1: alpha \ufffd"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("extra", "one_more_line", "shown"), [(0, False, 0), (0, True, 0), (1, False, -1)]
)
async def test_output_right_at_50_kib_is_not_capped_beyond_it_is(
    backend: str, tmp_path: Path, extra: int, one_more_line: bool, shown: int
):
    # Lines of at most 500 characters whose rendering, joined by newlines, is 50 KiB (+ extra).
    texts: list[str] = []
    size = -1
    while size + len(f"f.txt:{len(texts) + 1}: ") + 491 <= 50 * 1024:
        texts.append("needle " + "y" * 483)
        size += len(f"f.txt:{len(texts)}: ") + 491
    room = 50 * 1024 - size + extra
    for index in range(len(texts)):
        texts[index] += "y" * min(room, 10)
        room -= min(room, 10)
    kept = len(texts) + shown
    if one_more_line:
        texts.append("needle")
    tool = make_tool(backend, tmp_path, {"f.txt": "".join(f"{text}\n" for text in texts)})
    text = await grep(tool, pattern="needle", limit=1000)
    if kept == len(texts):
        assert len(text.encode()) == 50 * 1024
        assert len(text.splitlines()) == kept
    else:
        head, notice = text.split("\n\n")
        assert len(head.splitlines()) == kept
        assert notice.startswith(f"[Output capped at 50.0KB: showing {kept} of {len(texts)} lines.")


async def test_outcome_lines_read_like_a_list(tmp_path: Path):
    files = {"b.txt": "hit 1\nmiss\nhit 2\n", "a.txt": "hit 3\n"}
    make_tool("local", tmp_path, files)
    query = GrepQuery("hit", str(tmp_path), context=1)
    outcome = await LocalOperations().grep(query)
    expected = [
        GrepLine("a.txt", 1, "hit 3", True),
        GrepLine("b.txt", 1, "hit 1", True),
        GrepLine("b.txt", 2, "miss", False),
        GrepLine("b.txt", 3, "hit 2", True),
    ]
    assert list(outcome.lines) == expected
    assert len(outcome.lines) == 4
    assert [outcome.lines[i] for i in range(-4, 4)] == expected + expected
    assert outcome.lines[1:3] == expected[1:3]
    assert outcome.lines[::-2] == expected[::-2]
    with pytest.raises(IndexError):
        outcome.lines[4]
    assert outcome.match_count == 3


async def test_default_path_is_the_tools_cwd(tmp_path: Path):
    make_tool("local", tmp_path, TREE)
    tool = create_grep_tool(str(tmp_path / "sub"))
    text = await grep(tool, pattern="alpha")
    assert text.splitlines() == ["a.txt:1: alpha", "deep/b.py:1: def alpha():"]


async def test_missing_rg_names_the_package_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    tool = make_tool("local", tmp_path, TREE)
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(tmp_path / "no-scripts"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    locate_ripgrep.cache_clear()
    try:
        with pytest.raises(RuntimeError, match=r"install the 'ripgrep' Python package"):
            await grep(tool, pattern="alpha")
    finally:
        locate_ripgrep.cache_clear()


def test_rg_is_found_beside_the_interpreter_first():
    locate_ripgrep.cache_clear()
    scripts_rg = os.path.join(sysconfig.get_path("scripts"), "rg")
    assert locate_ripgrep() == (scripts_rg if os.path.exists(scripts_rg) else shutil.which("rg"))


def rg_children() -> list[psutil.Process]:
    return [
        child
        for child in psutil.Process(os.getpid()).children(recursive=True)
        if child.name() == "rg"
    ]


async def test_abort_kills_rg_and_fails_the_call(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # rg blocks opening a FIFO nobody writes to: a search that never ends
    tool = make_tool("local", tmp_path, {})
    controller = AbortController()
    call = asyncio.ensure_future(grep(tool, signal=controller.signal, pattern="x", path="pipe"))
    for _ in range(200):
        if rg_children():
            break
        await asyncio.sleep(0.01)
    assert rg_children(), "rg did not start"
    controller.abort()
    with pytest.raises(ToolError, match="grep for 'x' was aborted"):
        await asyncio.wait_for(call, 10)
    assert rg_children() == []


async def test_cancellation_kills_rg(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tool = make_tool("local", tmp_path, {})
    call = asyncio.ensure_future(grep(tool, pattern="x", path="pipe"))
    for _ in range(200):
        if rg_children():
            break
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, 10)
    assert rg_children() == []


async def test_already_aborted_signal_runs_nothing(tmp_path: Path):
    tool = make_tool("local", tmp_path, TREE)
    controller = AbortController()
    controller.abort()
    with pytest.raises(ToolError, match="aborted"):
        await grep(tool, signal=controller.signal, pattern="alpha")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_through_the_agent_loop(backend: str, tmp_path: Path):
    definition = make_tool(backend, tmp_path, TREE)
    tool = wrap_tool_definition(definition)
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("grep", {"pattern": "alpha", "glob": "*.py", "limit": "5"}),
                faux_tool_call("grep", {"pattern": "a(b"}),
            ),
            faux_message(faux_text("done")),
        ]
    )
    context = AgentContext("", [], [tool])
    stream = agent_loop(
        [UserMessage("find alpha")], context, AgentLoopConfig(model=fm.model, stream_fn=fm.stream)
    )
    _ = [event async for event in stream]
    results = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    assert [result.is_error for result in results] == [False, True]
    found = results[0].content[0]
    assert isinstance(found, TextContent)
    assert found.text == "sub/deep/b.py:1: def alpha():\ntop.py:1: alpha = 1"
    assert results[0].details["match_count"] == 2
    failed = results[1].content[0]
    assert isinstance(failed, TextContent)
    assert failed.text.startswith("Invalid search for pattern 'a(b'")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_directory_search_never_reads_secret_files(backend: str, tmp_path: Path) -> None:
    """Everything the path policy would deny, found by name or path tail, any case."""
    files = {
        ".env": "API_TOKEN=alpha-secret\n",
        ".env.local": "alpha local\n",
        "keys/id_ed25519": "alpha key\n",
        "cert.pem": "alpha pem\n",
        "tls/Server.KEY": "alpha tls key\n",
        "home/.aws/credentials": "alpha aws\n",
        ".aws/config": "alpha aws config\n",
        "home/.ssh/config": "alpha ssh\n",
        ".gnupg/private-keys-v1.d/k": "alpha gpg\n",
        ".netrc": "alpha netrc\n",
        "deploy/.docker/config.json": "alpha docker\n",
        "svc/.env/lib/site.py": "alpha in a virtualenv named .env\n",
        "app.py": "alpha = 1\n",
        "aws/credentials.py": "alpha = 2\n",
    }
    tool = make_tool(backend, tmp_path, files)
    assert (await grep(tool, pattern="alpha")).splitlines() == [
        "app.py:1: alpha = 1",
        "aws/credentials.py:1: alpha = 2",
    ]
    named = await grep(tool, pattern="alpha", path=str(tmp_path / ".env.local"))
    assert named.splitlines() == [".env.local:1: alpha local"]


def test_every_secret_the_path_policy_names_is_excluded_from_directory_searches() -> None:
    policy = PathPolicy("/w")
    relative = [
        "id_rsa",
        "a/id_ecdsa_sk",
        "x.pem",
        "x.KEY",
        "b.p12",
        "c.pfx",
        ".env",
        ".env.prod",
        ".ssh/id_custom",
        ".aws/credentials",
        ".aws/config",
        ".netrc",
        ".pgpass",
        ".git-credentials",
        ".docker/config.json",
        ".kube/config",
        ".config/gh/hosts.yml",
        ".pypirc",
        ".gnupg/pubring.kbx",
        ".password-store/site.gpg",
    ]
    for path in relative:
        assert policy.check(f"/w/{path}", "read").decision == "deny", path
        assert is_secret_file(path), path
    for path in ["app.py", "aws/credentials.py", "docs/env.md", ".envrc", "key.txt"]:
        assert not is_secret_file(path), path
