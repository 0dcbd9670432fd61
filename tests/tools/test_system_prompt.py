"""The system prompt and the coding tool set: tools with a
``prompt_snippet`` listed in order, de-duplicated guidelines, context files, the appended text
and the working directory; ``create_coding_tools`` names, order, errors and parameter names."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, AgentToolResult, agent_loop
from tether.ai import AbortSignal, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools import (
    ContextFile,
    ToolContext,
    ToolDefinition,
    build_system_prompt,
    create_coding_tools,
    wrap_tool_definition,
)

BUILTIN_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")

API_PARAMETER_NAMES = {
    "read": {"path", "offset", "limit"},
    "write": {"path", "content"},
    "edit": {"path", "edits"},
    "bash": {"command", "timeout"},
    "grep": {"pattern", "path", "glob", "ignore_case", "literal", "context", "limit"},
    "find": {"pattern", "path", "limit"},
    "ls": {"path", "limit"},
}


async def _noop(*_args: Any) -> str:
    return "ok"


def definition(
    name: str, snippet: str | None = None, guidelines: list[str] | None = None
) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        label=name.title(),
        description=f"The {name} tool.",
        parameters={"type": "object", "properties": {}},
        execute=_noop,
        prompt_snippet=snippet,
        prompt_guidelines=list(guidelines or []),
    )


def tool_lines(prompt: str, names: tuple[str, ...] = ()) -> list[str]:
    """The ``- name: snippet`` lines in prompt order (only the given names, if any)."""
    pattern = re.compile(r"- ([A-Za-z_]+): ")
    lines = []
    for line in prompt.splitlines():
        match = pattern.match(line)
        if match and (not names or match.group(1) in names):
            lines.append(line)
    return lines


# --- build_system_prompt ------------------------------------------------------------------------


def test_lists_each_tool_with_a_snippet_in_the_given_order() -> None:
    tools = [
        definition("zeta", "Last letter"),
        definition("alpha", "First letter"),
        definition("mid", "In between"),
    ]

    prompt = build_system_prompt(tools, cwd="/p")

    assert tool_lines(prompt) == [
        "- zeta: Last letter",
        "- alpha: First letter",
        "- mid: In between",
    ]


def test_tools_without_a_snippet_are_not_listed() -> None:
    tools = [definition("shown", "Has a snippet"), definition("hidden"), definition("blank", "")]

    prompt = build_system_prompt(tools, cwd="/p")

    assert "- shown: Has a snippet" in prompt
    assert "hidden" not in prompt
    assert "- blank:" not in prompt


def test_guidelines_of_a_tool_without_snippet_still_count() -> None:
    tools = [definition("quiet", None, ["Be quiet."])]

    prompt = build_system_prompt(tools, cwd="/p")

    assert "Be quiet." in prompt
    assert "quiet:" not in prompt


def test_guidelines_are_deduplicated_in_first_seen_order() -> None:
    tools = [
        definition("a", "A", ["Rule one.", "Shared rule."]),
        definition("b", "B", ["Shared rule.", "Rule two."]),
        definition("c", "C", ["Rule one.", "Rule three.", "Shared rule."]),
    ]

    prompt = build_system_prompt(tools, cwd="/p")

    for rule in ("Rule one.", "Rule two.", "Rule three.", "Shared rule."):
        assert prompt.count(rule) == 1, rule
    positions = [prompt.index(rule) for rule in ("Rule one.", "Shared rule.", "Rule two.")]
    positions.append(prompt.index("Rule three."))
    assert positions == sorted(positions)


def test_guidelines_follow_the_tool_list() -> None:
    prompt = build_system_prompt([definition("a", "Snippet A", ["Guideline A."])], cwd="/p")

    assert prompt.index("- a: Snippet A") < prompt.index("Guideline A.")


def test_context_files_as_dataclass_and_tuple() -> None:
    prompt = build_system_prompt(
        [definition("a", "A")],
        cwd="/p",
        context_files=[
            ContextFile("/p/AGENTS.md", "Use tabs.\nRun make test."),
            ("/p/sub/CLAUDE.md", "Never push."),
        ],
    )

    assert "/p/AGENTS.md" in prompt
    assert "Use tabs.\nRun make test." in prompt
    assert "/p/sub/CLAUDE.md" in prompt
    assert "Never push." in prompt
    assert prompt.index("/p/AGENTS.md") < prompt.index("Use tabs.")
    assert prompt.index("Use tabs.") < prompt.index("/p/sub/CLAUDE.md")
    assert prompt.index("/p/sub/CLAUDE.md") < prompt.index("Never push.")


def test_append_text_and_working_directory() -> None:
    prompt = build_system_prompt(
        [definition("a", "A")], cwd="/home/me/project", append="Answer in French."
    )

    assert "Answer in French." in prompt
    assert "Current working directory: /home/me/project" in prompt


def test_no_append_means_no_stray_text() -> None:
    with_append = build_system_prompt([definition("a", "A")], cwd="/p", append="EXTRA-TEXT")
    without = build_system_prompt([definition("a", "A")], cwd="/p")

    assert "EXTRA-TEXT" not in without
    assert "None" not in without
    assert len(with_append) > len(without)


def test_section_order_tools_guidelines_context_cwd() -> None:
    prompt = build_system_prompt(
        [definition("a", "Snippet A", ["Guideline A."])],
        cwd="/p",
        context_files=[("/p/AGENTS.md", "Context body.")],
    )

    order = [
        prompt.index("- a: Snippet A"),
        prompt.index("Guideline A."),
        prompt.index("Context body."),
        prompt.index("Current working directory: /p"),
    ]
    assert order == sorted(order)


def test_accepts_agent_tools_wrapped_from_definitions() -> None:
    tools = [
        wrap_tool_definition(definition("a", "Snippet A", ["Guideline A."])),
        wrap_tool_definition(definition("b", "Snippet B", ["Guideline A.", "Guideline B."])),
    ]
    assert all(isinstance(tool, AgentTool) for tool in tools)

    prompt = build_system_prompt(tools, cwd="/p")

    assert tool_lines(prompt) == ["- a: Snippet A", "- b: Snippet B"]
    assert prompt.count("Guideline A.") == 1
    assert "Guideline B." in prompt


def test_mixed_definitions_wrapped_and_plain_agent_tools() -> None:
    plain = AgentTool(
        name="plain",
        label="Plain",
        description="No prompt text of its own.",
        parameters={"type": "object", "properties": {}},
        execute=_noop,
    )
    tools = [definition("a", "Snippet A"), plain, wrap_tool_definition(definition("b", "B!"))]

    prompt = build_system_prompt(tools, cwd="/p")

    assert tool_lines(prompt) == ["- a: Snippet A", "- b: B!"]


def test_prompt_changes_when_the_tool_set_changes() -> None:
    tools = create_coding_tools("/p")
    by_name = {tool.name: tool for tool in tools}

    full = build_system_prompt(tools, cwd="/p")
    reduced = build_system_prompt([by_name["read"], by_name["edit"]], cwd="/p")

    assert full != reduced
    assert "- bash:" in full
    assert "- bash:" not in reduced
    for guideline in by_name["bash"].prompt_guidelines:
        assert guideline in full
        assert guideline not in reduced
    assert tool_lines(reduced, BUILTIN_NAMES) == [
        f"- read: {by_name['read'].prompt_snippet}",
        f"- edit: {by_name['edit'].prompt_snippet}",
    ]


async def test_the_loop_rebuilds_the_prompt_when_a_result_activates_a_tool(tmp_path: Path) -> None:
    """Dynamic tools end to end: a result adds ``grep``; the next request lists it."""
    cwd = str(tmp_path)
    (tmp_path / "a.txt").write_text("needle\n")
    read, grep = create_coding_tools(cwd, names=("read", "grep"))

    async def unlock(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult([TextContent("search is on")], added_tool_names=["grep"])

    enable_search = AgentTool("enable_search", "Enable", "Turn on search.", {}, unlock)
    model = FauxModel(
        [
            faux_message(faux_tool_call("enable_search", {})),
            faux_message(faux_tool_call("grep", {"pattern": "needle"})),
            faux_message(faux_text("found it")),
        ]
    )
    config = AgentLoopConfig(
        model=model.model,
        stream_fn=model.stream,
        available_tools=[wrap_tool_definition(grep)],
        system_prompt_for=functools.partial(build_system_prompt, cwd=cwd),
    )
    context = AgentContext("", [], [wrap_tool_definition(read), enable_search])
    stream = agent_loop([UserMessage("find the needle")], context, config)
    _ = [event async for event in stream]
    messages = await stream.result()

    first, second, _third = (request.system_prompt for request in model.contexts)
    assert first == build_system_prompt([read], cwd=cwd)
    assert second == build_system_prompt([read, grep], cwd=cwd)
    assert f"- grep: {grep.prompt_snippet}" in second and "- grep:" not in first
    found = [m for m in messages if isinstance(m, ToolResultMessage) and m.tool_name == "grep"]
    assert [(m.is_error, m.content) for m in found] == [(False, [TextContent("a.txt:1: needle")])]


def test_empty_tool_set_still_has_cwd() -> None:
    prompt = build_system_prompt([], cwd="/p")

    assert tool_lines(prompt) == []
    assert "Current working directory: /p" in prompt


def test_builtin_tools_prompt_lists_every_snippet() -> None:
    tools = create_coding_tools("/p", names=BUILTIN_NAMES)

    prompt = build_system_prompt(tools, cwd="/p")

    assert tool_lines(prompt, BUILTIN_NAMES) == [
        f"- {tool.name}: {tool.prompt_snippet}" for tool in tools
    ]
    for tool in tools:
        for guideline in tool.prompt_guidelines:
            assert prompt.count(guideline) == 1


# --- create_coding_tools -----------------------------------------------------------------------


def test_default_coding_tools_are_read_bash_edit_write(tmp_path: Path) -> None:
    tools = create_coding_tools(str(tmp_path))

    assert [tool.name for tool in tools] == ["read", "bash", "edit", "write"]
    assert all(isinstance(tool, ToolDefinition) for tool in tools)


def test_named_coding_tools_in_the_given_order(tmp_path: Path) -> None:
    tools = create_coding_tools(str(tmp_path), names=("grep", "find", "ls"))

    assert [tool.name for tool in tools] == ["grep", "find", "ls"]


def test_names_order_is_respected(tmp_path: Path) -> None:
    tools = create_coding_tools(str(tmp_path), names=["ls", "write", "read"])

    assert [tool.name for tool in tools] == ["ls", "write", "read"]


def test_unknown_name_lists_the_builtins(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as info:
        create_coding_tools(str(tmp_path), names=("read", "telnet"))

    message = str(info.value)
    assert "telnet" in message
    for name in BUILTIN_NAMES:
        assert name in message


def test_duplicate_names_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="read"):
        create_coding_tools(str(tmp_path), names=("read", "ls", "read"))


async def test_coding_tools_are_created_for_their_cwd(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("x")
    (ls_tool,) = create_coding_tools(str(tmp_path), names=("ls",))

    result = await ls_tool.execute("call-1", {"path": "."}, AbortSignal(), None, ToolContext("/"))

    assert isinstance(result, AgentToolResult)
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    assert "marker.txt" in text


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_builtin_tool_has_snippet_and_api_parameter_names(name: str, tmp_path: Path) -> None:
    (tool,) = create_coding_tools(str(tmp_path), names=(name,))

    assert tool.name == name
    assert isinstance(tool.prompt_snippet, str)
    assert tool.prompt_snippet.strip()
    assert "\n" not in tool.prompt_snippet
    assert isinstance(tool.parameters, dict)
    assert tool.parameters.get("type") == "object"
    assert set(tool.parameters["properties"]) == API_PARAMETER_NAMES[name]


def test_edit_items_are_old_text_new_text(tmp_path: Path) -> None:
    (edit,) = create_coding_tools(str(tmp_path), names=("edit",))

    assert isinstance(edit.parameters, dict)
    edits = edit.parameters["properties"]["edits"]
    assert edits["type"] == "array"
    assert set(edits["items"]["properties"]) == {"old_text", "new_text"}
