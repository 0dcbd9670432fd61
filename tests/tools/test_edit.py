"""The ``edit`` tool: exact and tolerant matching against the original, all-or-nothing errors that
name the edit and path, line endings and BOM, diff details, the argument shim, and parallel edits
of one file through the agent loop (the file mutation queue)."""

from __future__ import annotations

import json
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.agent import (
    AbortController,
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    ToolError,
    agent_loop,
)
from tether.ai import AbortError, TextContent, ToolCall, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools._definition import ToolContext, ToolDefinition, wrap_tool_definition
from tether.tools.edit import create_edit_tool
from tether.tools.operations._local import LocalOperations
from tether.tools.operations._memory import MemoryOperations

# --- backends -------------------------------------------------------------------------------------


@dataclass
class Backend:
    """One place files live: a real temp dir (LocalOperations) or memory (MemoryOperations)."""

    name: str
    cwd: str
    ops: LocalOperations | MemoryOperations

    def write(self, relative: str, data: bytes | str) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path = posixpath.join(self.cwd, relative)
        if isinstance(self.ops, MemoryOperations):
            self.ops.make_dir(posixpath.dirname(path))
            self.ops.files[path] = raw
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(raw)

    def read(self, relative: str) -> bytes:
        path = posixpath.join(self.cwd, relative)
        if isinstance(self.ops, MemoryOperations):
            return self.ops.files[path]
        return Path(path).read_bytes()

    def mkdir(self, relative: str) -> None:
        path = posixpath.join(self.cwd, relative)
        if isinstance(self.ops, MemoryOperations):
            self.ops.make_dir(path)
        else:
            Path(path).mkdir(parents=True)

    def tool(self) -> ToolDefinition:
        return create_edit_tool(self.cwd, operations=self.ops)


@pytest.fixture(params=["local", "memory"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "local":
        return Backend("local", str(tmp_path), LocalOperations())
    return Backend("memory", "/work/project", MemoryOperations())


async def edit(backend: Backend, path: str, edits: list[dict[str, str]]) -> AgentToolResult:
    result = await backend.tool().execute(
        "call-1",
        {"path": path, "edits": edits},
        AbortController().signal,
        None,
        ToolContext(backend.cwd),
    )
    assert isinstance(result, AgentToolResult)
    return result


async def edit_error(backend: Backend, path: str, edits: list[dict[str, str]]) -> str:
    with pytest.raises(ToolError) as caught:
        await edit(backend, path, edits)
    return str(caught.value)


def text_of(result: AgentToolResult | ToolResultMessage) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def replace(old_text: str, new_text: str) -> dict[str, str]:
    return {"old_text": old_text, "new_text": new_text}


# --- applying edits -------------------------------------------------------------------------------


async def test_single_edit_replaces_the_text(backend: Backend) -> None:
    backend.write("f.txt", "alpha\nbeta\ngamma\n")
    result = await edit(backend, "f.txt", [replace("beta", "BETA")])
    assert backend.read("f.txt") == b"alpha\nBETA\ngamma\n"
    assert text_of(result) == "Successfully replaced 1 block(s) in f.txt."


async def test_multiple_edits_in_any_order_all_apply(backend: Backend) -> None:
    backend.write("src/m.py", "a = 1\nb = 2\nc = 3\nd = 4\n")
    result = await edit(
        backend,
        "src/m.py",
        [replace("d = 4", "d = 40"), replace("a = 1\n", ""), replace("b = 2", "b = 20")],
    )
    assert backend.read("src/m.py") == b"b = 20\nc = 3\nd = 40\n"
    assert text_of(result) == "Successfully replaced 3 block(s) in src/m.py."


async def test_every_old_text_is_matched_against_the_original(backend: Backend) -> None:
    backend.write("f.txt", "one\ntwo\n")
    message = await edit_error(
        backend, "f.txt", [replace("one", "uno"), replace("uno\ntwo", "uno\ndos")]
    )
    assert message.startswith("Edit 2 of 2 in f.txt: old_text was not found.")
    assert backend.read("f.txt") == b"one\ntwo\n"


async def test_edits_are_not_applied_to_each_others_output(backend: Backend) -> None:
    backend.write("f.txt", "cat\ndog\n")
    await edit(backend, "f.txt", [replace("cat", "dog"), replace("dog", "cat")])
    assert backend.read("f.txt") == b"dog\ncat\n"


async def test_path_forms_resolve_against_cwd(backend: Backend) -> None:
    backend.write("dir/f.txt", "x\n")
    await edit(backend, "@dir/f.txt", [replace("x", "y")])
    await edit(backend, posixpath.join(backend.cwd, "dir", "f.txt"), [replace("y", "z")])
    assert backend.read("dir/f.txt") == b"z\n"


# --- errors: each names the edit and the path, and changes nothing --------------------------------


async def test_empty_old_text_is_an_error(backend: Backend) -> None:
    backend.write("f.txt", "x\n")
    message = await edit_error(backend, "f.txt", [replace("x", "y"), replace("", "z")])
    assert "Edit 2 of 2 in f.txt: old_text is empty" in message


async def test_missing_old_text_suggests_rereading(backend: Backend) -> None:
    backend.write("f.txt", "x = 1\n")
    message = await edit_error(backend, "f.txt", [replace("x = 2", "x = 3")])
    assert message.startswith("Edit 1 of 1 in f.txt: old_text was not found")
    assert "re-read the file" in message


async def test_ambiguous_old_text_gives_the_count(backend: Backend) -> None:
    backend.write("f.txt", "x = 1\ny = 0\nx = 1\nx = 1\n")
    message = await edit_error(backend, "f.txt", [replace("y = 0", "y"), replace("x = 1", "x")])
    assert message.startswith("Edit 2 of 2 in f.txt: old_text was found 3 times")
    assert "Add surrounding lines" in message


async def test_self_overlapping_occurrences_count_as_ambiguous(backend: Backend) -> None:
    backend.write("f.txt", "aaa\n")
    message = await edit_error(backend, "f.txt", [replace("aa", "b")])
    assert "Edit 1 of 1 in f.txt: old_text was found 2 times" in message


async def test_overlapping_edits_name_both_indices(backend: Backend) -> None:
    backend.write("f.txt", "head\nabc\nabd\ntail\n")
    message = await edit_error(
        backend,
        "f.txt",
        [replace("head", "HEAD"), replace("abc\nab", "x"), replace("c\nabd", "y")],
    )
    assert message.startswith("Edit 3 of 3 in f.txt: its old_text overlaps that of edit 2")
    assert "lines 2-3" in message


async def test_every_failing_edit_is_reported_at_once(backend: Backend) -> None:
    backend.write("f.txt", "a\nb\nb\n")
    message = await edit_error(
        backend, "f.txt", [replace("", "x"), replace("zzz", "x"), replace("b", "x")]
    )
    lines = message.splitlines()
    assert lines[0].startswith("Edit 1 of 3 in f.txt: old_text is empty")
    assert lines[1].startswith("Edit 2 of 3 in f.txt: old_text was not found")
    assert lines[2].startswith("Edit 3 of 3 in f.txt: old_text was found 2 times")
    assert lines[3] == "No edits were applied; f.txt is unchanged."


async def test_an_edit_set_that_changes_nothing_is_an_error(backend: Backend) -> None:
    backend.write("f.txt", "same\nother\n")
    message = await edit_error(backend, "f.txt", [replace("same", "same")])
    assert message.startswith("No changes made to f.txt: edit 1 of 1 has new_text identical")
    message = await edit_error(
        backend, "f.txt", [replace("same", "same"), replace("other", "other")]
    )
    assert "edits 1, 2 of 2 have new_text identical" in message


async def test_a_missing_file_is_an_error(backend: Backend) -> None:
    message = await edit_error(backend, "nope/missing.txt", [replace("a", "b")])
    assert message.startswith("File not found: nope/missing.txt")
    assert "write tool" in message


async def test_a_directory_is_not_a_file(backend: Backend) -> None:
    backend.mkdir("folder")
    message = await edit_error(backend, "folder", [replace("a", "b")])
    assert message == "folder is a directory, not a file; edit changes files only."


async def test_a_non_utf8_file_is_refused(backend: Backend) -> None:
    backend.write("latin1.txt", "caf\u00e9\n".encode("latin-1"))
    message = await edit_error(backend, "latin1.txt", [replace("caf", "bar")])
    assert "latin1.txt is not valid UTF-8 text (byte 0xe9 at offset 3)" in message
    assert backend.read("latin1.txt") == "caf\u00e9\n".encode("latin-1")


async def test_a_failed_edit_leaves_the_file_unchanged(backend: Backend) -> None:
    original = b"keep\r\nthis\r\nfile\r\n"
    backend.write("f.txt", original)
    await edit_error(backend, "f.txt", [replace("keep", "KEEP"), replace("missing", "x")])
    await edit_error(backend, "f.txt", [replace("keep", "KEEP"), replace("e", "x")])
    assert backend.read("f.txt") == original


async def test_an_aborted_call_does_not_write(backend: Backend) -> None:
    backend.write("f.txt", "x\n")
    controller = AbortController()
    controller.abort("stop")
    with pytest.raises(AbortError):
        await backend.tool().execute(
            "c",
            {"path": "f.txt", "edits": [replace("x", "y")]},
            controller.signal,
            None,
            ToolContext(backend.cwd),
        )
    assert backend.read("f.txt") == b"x\n"


# --- line endings and BOM -------------------------------------------------------------------------


async def test_crlf_file_keeps_crlf_everywhere(backend: Backend) -> None:
    backend.write("f.txt", b"one\r\ntwo\r\nthree\r\n")
    await edit(backend, "f.txt", [replace("two\nthree", "TWO\nTWO and a half\nTHREE")])
    assert backend.read("f.txt") == b"one\r\nTWO\r\nTWO and a half\r\nTHREE\r\n"


async def test_crlf_in_old_text_matches_an_lf_file(backend: Backend) -> None:
    backend.write("f.txt", b"one\ntwo\n")
    await edit(backend, "f.txt", [replace("one\r\ntwo", "1\r\n2")])
    assert backend.read("f.txt") == b"1\n2\n"


async def test_mixed_line_endings_outside_the_edit_are_untouched(backend: Backend) -> None:
    backend.write("f.txt", b"a\r\nb\nc\r\nd\n")
    await edit(backend, "f.txt", [replace("c\n", "C\n")])
    assert backend.read("f.txt") == b"a\r\nb\nC\r\nd\n"


async def test_bom_is_preserved(backend: Backend) -> None:
    backend.write("bom.txt", b"\xef\xbb\xbfhello\r\nworld\r\n")
    result = await edit(backend, "bom.txt", [replace("world", "there")])
    assert backend.read("bom.txt") == b"\xef\xbb\xbfhello\r\nthere\r\n"
    assert "\ufeff" not in result.details["diff"]


# --- tolerant matching ----------------------------------------------------------------------------

UNTOUCHED_BEFORE = "keep \u2018this\u2019 \u2013 as\u00a0is  "
UNTOUCHED_AFTER = "and \u201cthis\u201d \u2014 too \ufb01ne\t"


@pytest.mark.parametrize(
    ("file_line", "old_text", "new_text", "expected_line"),
    [
        pytest.param(
            "print(\u201chello\u201d)",
            'print("hello")',
            'print("bye")',
            'print("bye")',
            id="smart-double-quotes",
        ),
        pytest.param(
            "it\u2019s \u2018here\u2019",
            "it's 'here'",
            "it is here",
            "it is here",
            id="smart-single",
        ),
        pytest.param(
            "value = 1   ", "value = 1\n", "value = 2\n", "value = 2", id="file-trailing-spaces"
        ),
        pytest.param(
            "value = 1", "value = 1  ", "value = 2", "value = 2", id="old-trailing-spaces"
        ),
        pytest.param("x\u00a0=\u00a01", "x = 1", "x = 2", "x = 2", id="nbsp"),
        pytest.param("a \u2013 b", "a - b", "a + b", "a + b", id="en-dash"),
        pytest.param("a \u2014 b \u2212 c", "a - b - c", "abc", "abc", id="em-dash-and-minus"),
        pytest.param("\uff21\uff22\uff23 = 1", "ABC = 1", "abc = 1", "abc = 1", id="full-width"),
        pytest.param("de\ufb01ne(x)", "define(x)", "declare(x)", "declare(x)", id="fi-ligature"),
        pytest.param(
            "say \u2018hi\u2019 to \u2018bob\u2019",
            "'hi'",
            "'hey'",
            "say 'hey' to \u2018bob\u2019",
            id="rest-of-touched-line-kept",
        ),
        pytest.param(
            "pro\ufb01le = 1", "ile = 1", "ile = 2", "profile = 2", id="match-splits-a-ligature"
        ),
        pytest.param("x = 1\u2003\u00a0", "x = 1 ", "x = 9", "x = 9", id="trailing-unicode-spaces"),
    ],
)
async def test_tolerant_match_rewrites_only_the_touched_line(
    backend: Backend, file_line: str, old_text: str, new_text: str, expected_line: str
) -> None:
    original = f"{UNTOUCHED_BEFORE}\n{file_line}\n{UNTOUCHED_AFTER}\n".encode()
    backend.write("f.txt", original)
    await edit(backend, "f.txt", [replace(old_text, new_text)])
    before, touched, after, end = backend.read("f.txt").split(b"\n")
    assert before == UNTOUCHED_BEFORE.encode()
    assert after == UNTOUCHED_AFTER.encode()
    assert end == b""
    assert touched.decode() == expected_line


async def test_tolerant_match_across_lines_keeps_other_lines_byte_identical(
    backend: Backend,
) -> None:
    original = "top \u201cq\u201d  \r\ndef f():  \r\n    return \u2018x\u2019\r\nbottom\u00a0\r\n"
    backend.write("f.txt", original.encode())
    result = await edit(
        backend, "f.txt", [replace("def f():\n    return 'x'", "def f():\n    return 'y'")]
    )
    lines = backend.read("f.txt").split(b"\r\n")
    assert lines == [
        "top \u201cq\u201d  ".encode(),
        b"def f():",
        b"    return 'y'",
        "bottom\u00a0".encode(),
        b"",
    ]
    assert result.details["first_changed_line"] == 2


async def test_tolerant_duplicates_are_counted_after_normalisation(backend: Backend) -> None:
    backend.write("f.txt", "s = \u2018v\u2019\nmid\ns = \u2019v\u2018\n")
    message = await edit_error(backend, "f.txt", [replace("s = 'v'", "s = 'w'")])
    assert message.startswith("Edit 1 of 1 in f.txt: old_text was found 2 times")
    assert "normalised" in message


async def test_a_unique_exact_match_wins_over_tolerant_lookalikes(backend: Backend) -> None:
    backend.write("f.txt", "s = 'v'\ns = \u2018v\u2019\n")
    await edit(backend, "f.txt", [replace("s = 'v'", "s = 'w'")])
    assert backend.read("f.txt") == "s = 'w'\ns = \u2018v\u2019\n".encode()


async def test_whitespace_only_old_text_does_not_match_tolerantly(backend: Backend) -> None:
    backend.write("f.txt", "a\nb\n")
    message = await edit_error(backend, "f.txt", [replace("  ", "x")])
    assert "Edit 1 of 1 in f.txt: old_text was not found" in message


# --- result details -------------------------------------------------------------------------------


async def test_details_carry_a_unified_diff_and_the_first_changed_line(backend: Backend) -> None:
    backend.write("pkg/f.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    result = await edit(backend, "pkg/f.txt", [replace("line 5\nline 6", "line 5\nSIX")])
    assert result.details["first_changed_line"] == 6
    diff = result.details["diff"]
    assert diff.startswith("--- a/pkg/f.txt\n+++ b/pkg/f.txt\n@@ -3,7 +3,7 @@\n")
    assert "-line 6\n+SIX\n" in diff
    assert " line 3\n" in diff
    assert " line 9\n" in diff
    assert "line 2\n" not in diff


async def test_diff_marks_a_last_line_without_newline(backend: Backend) -> None:
    backend.write("f.txt", "a\nb")
    result = await edit(backend, "f.txt", [replace("b", "c")])
    assert result.details["diff"].endswith(
        "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    )
    assert result.details["first_changed_line"] == 2


async def test_first_changed_line_after_deleting_the_end(backend: Backend) -> None:
    backend.write("f.txt", "a\nb\nc")
    result = await edit(backend, "f.txt", [replace("\nb\nc", "")])
    assert backend.read("f.txt") == b"a"
    assert result.details["first_changed_line"] == 1


async def test_diff_of_a_file_outside_cwd_uses_its_absolute_path(backend: Backend) -> None:
    backend.write("f.txt", "x\n")
    absolute = posixpath.join(backend.cwd, "f.txt")
    definition = create_edit_tool(posixpath.join(backend.cwd, "elsewhere"), operations=backend.ops)
    result = await definition.execute(
        "c",
        {"path": absolute, "edits": [replace("x", "y")]},
        AbortController().signal,
        None,
        ToolContext(backend.cwd),
    )
    assert isinstance(result, AgentToolResult)
    assert result.details["diff"].startswith(f"--- a/{absolute.lstrip('/')}\n")


# --- through the agent loop: the argument shim ----------------------------------------------------


async def run_agent(backend: Backend, calls: list[ToolCall]) -> list[ToolResultMessage]:
    """One assistant message with ``calls`` (run as one batch), then a closing text message."""
    fm = FauxModel([faux_message(*calls), faux_message(faux_text("done"))])
    tool = wrap_tool_definition(backend.tool(), lambda: ToolContext(backend.cwd))
    context = AgentContext("", [], [tool])
    stream = agent_loop(
        [UserMessage("edit")], context, AgentLoopConfig(model=fm.model, stream_fn=fm.stream)
    )
    async for _ in stream:
        pass
    messages = await stream.result()
    return [m for m in messages if isinstance(m, ToolResultMessage)]


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param(
            {"path": "f.txt", "edits": json.dumps([replace("b = 2", "b = 3")])}, id="json-string"
        ),
        pytest.param(
            {"path": "f.txt", "edits": json.dumps(replace("b = 2", "b = 3"))},
            id="json-string-object",
        ),
        pytest.param({"path": "f.txt", "edits": replace("b = 2", "b = 3")}, id="single-object"),
        pytest.param({"path": "f.txt", "old_text": "b = 2", "new_text": "b = 3"}, id="legacy"),
        pytest.param({"path": "f.txt", "oldText": "b = 2", "newText": "b = 3"}, id="legacy-camel"),
        pytest.param(
            {"path": "f.txt", "edits": [{"oldText": "b = 2", "newText": "b = 3"}]},
            id="camel-items",
        ),
    ],
)
async def test_argument_shim_through_the_agent_loop(
    backend: Backend, arguments: dict[str, Any]
) -> None:
    backend.write("f.txt", "a = 1\nb = 2\n")
    [result] = await run_agent(backend, [faux_tool_call("edit", arguments)])
    assert not result.is_error, text_of(result)
    assert text_of(result) == "Successfully replaced 1 block(s) in f.txt."
    assert backend.read("f.txt") == b"a = 1\nb = 3\n"


async def test_legacy_fields_join_existing_edits(backend: Backend) -> None:
    backend.write("f.txt", "a = 1\nb = 2\n")
    arguments: dict[str, object] = {
        "path": "f.txt",
        "edits": [replace("a = 1", "a = 0")],
        **replace("b = 2", "b = 3"),
    }
    [result] = await run_agent(backend, [faux_tool_call("edit", arguments)])
    assert text_of(result) == "Successfully replaced 2 block(s) in f.txt."
    assert backend.read("f.txt") == b"a = 0\nb = 3\n"


@pytest.mark.parametrize(
    ("arguments", "failing_path"),
    [
        pytest.param({"path": "f.txt", "edits": "not json ["}, "edits", id="bad-json"),
        pytest.param({"path": "f.txt", "edits": []}, "edits", id="empty-list"),
        pytest.param({"path": "f.txt", "edits": [{"old_text": "a"}]}, "new_text", id="no-new"),
        pytest.param({"path": "f.txt", "old_text": "a = 1"}, "edits", id="half-legacy"),
    ],
)
async def test_unrepairable_arguments_reach_validation(
    backend: Backend, arguments: dict[str, Any], failing_path: str
) -> None:
    backend.write("f.txt", "a = 1\n")
    [result] = await run_agent(backend, [faux_tool_call("edit", arguments)])
    assert result.is_error
    assert text_of(result).startswith('Invalid arguments for tool "edit"')
    assert failing_path in text_of(result)
    assert backend.read("f.txt") == b"a = 1\n"


def test_prepare_arguments_passes_other_shapes_through() -> None:
    prepare = create_edit_tool("/tmp", operations=MemoryOperations()).prepare_arguments
    assert prepare is not None
    assert prepare("just a string") == "just a string"
    assert prepare({"path": "p", "edits": 7}) == {"path": "p", "edits": 7}
    assert prepare({"path": "p"}) == {"path": "p"}
    assert prepare({"path": "p", "edits": '"quoted"'}) == {"path": "p", "edits": '"quoted"'}


async def test_an_error_result_through_the_loop_names_edit_and_path(backend: Backend) -> None:
    backend.write("f.txt", "a\n")
    arguments: dict[str, object] = {
        "path": "f.txt",
        "edits": [replace("a", "b"), replace("q", "r")],
    }
    [result] = await run_agent(backend, [faux_tool_call("edit", arguments)])
    assert result.is_error
    assert text_of(result).startswith("Edit 2 of 2 in f.txt: old_text was not found")


# --- parallel edits of one file -------------------------------------------------------------------

LINE_COUNT = 100


def numbered_lines() -> str:
    return "".join(f"line {n}\n" for n in range(1, LINE_COUNT + 1))


def edit_call(path: str, n: int) -> ToolCall:
    return faux_tool_call(
        "edit", {"path": path, "edits": [replace(f"line {n}\n", f"LINE {n}\n")]}, id=f"edit-{n}"
    )


async def test_one_parallel_batch_of_100_edits_to_one_file_all_apply(backend: Backend) -> None:
    backend.write("big.txt", numbered_lines())
    results = await run_agent(backend, [edit_call("big.txt", n) for n in range(1, LINE_COUNT + 1)])
    assert [r.tool_call_id for r in results] == [f"edit-{n}" for n in range(1, LINE_COUNT + 1)]
    assert [r.is_error for r in results] == [False] * LINE_COUNT
    assert backend.read("big.txt").decode() == numbered_lines().replace("line", "LINE")


async def test_parallel_edits_through_a_symlink_share_the_queue(tmp_path: Path) -> None:
    backend = Backend("local", str(tmp_path), LocalOperations())
    backend.write("big.txt", numbered_lines())
    os.symlink(tmp_path / "big.txt", tmp_path / "link.txt")
    calls = [edit_call("link.txt" if n % 2 else "big.txt", n) for n in range(1, LINE_COUNT + 1)]
    results = await run_agent(backend, calls)
    assert [r.is_error for r in results] == [False] * LINE_COUNT
    assert (tmp_path / "link.txt").is_symlink()
    assert backend.read("big.txt").decode() == numbered_lines().replace("line", "LINE")
