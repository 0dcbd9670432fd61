"""The built-in tools' ``render_call`` / ``render_result``: one line per call and result, as a
front end shows them, from what the agent loop hands out (real tools on a temp directory)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tether.agent import (
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    ToolExecutionEnd,
    ToolExecutionStart,
    agent_loop,
)
from tether.ai import TextContent, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools import (
    create_bash_tool,
    create_edit_tool,
    create_find_tool,
    create_grep_tool,
    create_ls_tool,
    create_read_tool,
    create_write_tool,
    wrap_tool_definition,
)

Calls = list[tuple[str, dict[str, Any]]]


async def rendered(tmp_path: Path, calls: Calls) -> list[tuple[str, str]]:
    """Run ``calls`` one per turn through the agent loop; (rendered call, rendered result)."""
    root = str(tmp_path)
    definitions = {
        d.name: d
        for d in (
            create_read_tool(root),
            create_write_tool(root),
            create_edit_tool(root),
            create_bash_tool(root, sandbox=False),
            create_grep_tool(root),
            create_find_tool(root),
            create_ls_tool(root),
        )
    }
    script = [faux_message(faux_tool_call(name, args)) for name, args in calls]
    model = FauxModel([*script, faux_message(faux_text("done"))])
    context = AgentContext("", [], [wrap_tool_definition(d) for d in definitions.values()])
    config = AgentLoopConfig(model=model.model, stream_fn=model.stream)
    shown: list[tuple[str, str]] = []
    call_line = ""
    async for event in agent_loop([UserMessage("go")], context, config):
        definition = definitions.get(getattr(event, "tool_name", ""))
        if definition is None:
            continue
        assert definition.render_call is not None and definition.render_result is not None
        if isinstance(event, ToolExecutionStart):
            call_line = definition.render_call(event.args)
        elif isinstance(event, ToolExecutionEnd):
            shown.append((call_line, definition.render_result(event.result, event.is_error)))
    return shown


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
    return buffer.getvalue()


async def test_each_tool_renders_its_call_and_result(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "wide.png").write_bytes(png(3000, 1000))
    (tmp_path / "empty.txt").write_text("")
    calls: Calls = [
        ("read", {"path": "notes.txt"}),
        ("read", {"path": "notes.txt", "offset": 2, "limit": 1}),
        ("read", {"path": "wide.png"}),
        ("read", {"path": "empty.txt"}),
        ("write", {"path": "new/hello.txt", "content": "héllo"}),
        ("edit", {"path": "notes.txt", "edits": [{"old_text": "beta", "new_text": "BETA"}]}),
        ("bash", {"command": "echo hi", "timeout": 30}),
        ("grep", {"pattern": "a$", "ignore_case": True, "glob": "*.txt"}),
        ("find", {"pattern": "*.txt"}),
        ("ls", {}),
    ]
    assert await rendered(tmp_path, calls) == [
        ("read notes.txt", "lines 1-3 of 3"),
        ("read notes.txt:2-2", "lines 2-2 of 3, more from offset=3"),
        ("read wide.png", "image image/png 2000x667 (resized from 3000x1000)"),
        ("read empty.txt", "empty file"),
        ("write new/hello.txt (6 bytes)", "wrote 6 bytes"),
        ("edit notes.txt (1 edit)", "+1 -1 lines, first change at line 2"),
        ("$ echo hi  (timeout 30 s)", "exit 0"),
        ('grep "a$" (ignore case, glob *.txt)', "3 matches"),
        ('find "*.txt"', "3 files"),
        ("ls .", "4 entries"),
    ]


async def test_errors_render_as_their_first_line_or_what_ended_the_command(
    tmp_path: Path,
) -> None:
    calls: Calls = [
        ("read", {"path": "missing.txt"}),
        ("bash", {"command": "echo out; exit 3"}),
        ("bash", {"command": "sleep 30", "timeout": 0.2}),
        ("ls", {"path": "nowhere"}),
        ("grep", {"pattern": "a("}),
        ("edit", {"path": "nothing.txt", "edits": []}),
    ]
    shown = await rendered(tmp_path, calls)
    assert shown[:4] == [
        ("read missing.txt", "error: File not found: missing.txt"),
        ("$ echo out; exit 3", "error: exit 3"),
        ("$ sleep 30  (timeout 0.2 s)", "error: timed out"),
        ("ls nowhere", "error: Path not found: nowhere"),
    ]
    assert shown[4][0] == 'grep "a("'
    assert shown[4][1].startswith("error: Invalid search for pattern")
    assert shown[5] == ("edit nothing.txt (0 edits)", shown[5][1])
    assert shown[5][1].startswith('error: Invalid arguments for tool "edit"')


async def test_long_and_multiline_values_stay_on_one_short_line(tmp_path: Path) -> None:
    command = "printf 'x%.0s' $(seq 200)\n" + "echo " + "y" * 200
    [(call, result)] = await rendered(tmp_path, [("bash", {"command": command})])
    assert "\n" not in call and len(call) <= 82 and call.endswith("...")
    assert result == "exit 0"


@pytest.mark.parametrize("name", ["read", "write", "edit", "bash", "grep", "find", "ls"])
def test_odd_values_never_break_a_front_end(name: str, tmp_path: Path) -> None:
    definition = {
        "read": create_read_tool,
        "write": create_write_tool,
        "edit": create_edit_tool,
        "bash": create_bash_tool,
        "grep": create_grep_tool,
        "find": create_find_tool,
        "ls": create_ls_tool,
    }[name](str(tmp_path))
    assert definition.render_call is not None and definition.render_result is not None
    assert isinstance(definition.render_call(None), str)
    assert isinstance(definition.render_call({"path": 3, "edits": "x", "timeout": "soon"}), str)
    odd = AgentToolResult([TextContent("rewritten by a hook")], details={"unexpected": True})
    assert definition.render_result(odd, False) == "rewritten by a hook"
    assert definition.render_result(AgentToolResult([], details=None), True) == "error: ?"


async def test_diff_lines_that_look_like_headers_are_counted(tmp_path: Path) -> None:
    (tmp_path / "q.sql").write_text("select 1;\n-- comment\n")
    edits = [{"old_text": "-- comment", "new_text": "++ new"}]
    [(_, result)] = await rendered(tmp_path, [("edit", {"path": "q.sql", "edits": edits})])
    assert result == "+1 -1 lines, first change at line 2"


def test_values_a_model_chose_are_printed_safely() -> None:
    bash = create_bash_tool("/tmp", sandbox=False)
    assert bash.render_call is not None
    shown = bash.render_call({"command": "echo \x1b[2J\x1b]0;owned\x07hi\u202e \x9b31m"})
    assert shown == "$ echo hi"
    masked = bash.render_call({"command": "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234"})
    assert "abcdefghijklmnop1234" not in masked and "[REDACTED" in masked
    assert bash.render_call({"command": "sleep 1", "timeout": True}) == "$ sleep 1"


def test_a_read_of_unknown_length_says_so() -> None:
    read = create_read_tool("/tmp")
    assert read.render_result is not None
    details = {"start_line": 1, "end_line": 2000, "total_lines": None, "next_offset": 2001}
    result = AgentToolResult([TextContent("...")], details=details)
    assert read.render_result(result, False) == "lines 1-2000, more from offset=2001"


async def test_a_single_byte_reads_in_the_singular(tmp_path: Path) -> None:
    ((call, result),) = await rendered(tmp_path, [("write", {"path": "a", "content": "x"})])
    assert (call, result) == ("write a (1 byte)", "wrote 1 byte")
