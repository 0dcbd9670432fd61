"""A built-in tool is one value in one place: the toy ``size`` tool below is defined only here,
registered, and is then offered by the command, governed, rendered and callable — with no
table elsewhere to extend."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentToolResult, ToolError
from tether.ai import TextContent, ToolResultMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.cli._commands import settings_from
from tether.cli._parser import build_parser
from tether.gate import Review
from tether.mcp import annotations_for, governed_tools
from tether.runtime import build_runtime
from tether.tools import (
    BUILTIN_TOOLS,
    BuiltinTool,
    ToolDefinition,
    builtin_governance,
    coding_tool_catalog,
    path_governance,
    resolve_path,
)
from tether.tools.operations import ReadOperations

# --- the whole toy tool -------------------------------------------------------------------------


def _define(cwd: str, ops: ReadOperations) -> ToolDefinition:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        stat = await ops.stat(resolve_path(params["path"], cwd))
        if stat is None:
            raise ToolError(f"File not found: {params['path']}")
        return AgentToolResult([TextContent(f"{stat.size} bytes")], details={"bytes": stat.size})

    return ToolDefinition(
        name="size",
        label="Size",
        description="The size of a file in bytes.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}, "why": {"type": "string"}},
            "required": ["path"],
        },
        execute=execute,
        prompt_snippet="Tell the size of a file",
    )


def _render_call(args: Mapping[str, Any]) -> str:
    return f"size {args['path']}"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    return f"{details['bytes']:,} bytes"


SIZE = BuiltinTool(
    name="size",
    define=_define,
    exposure={"path": Review.INCLUDE, "why": Review.REDACT},
    governance=path_governance("read"),
    render_call=_render_call,
    render_result=_render_result,
    read_only=True,
    idempotent=True,
)

# ------------------------------------------------------------------------------------------------


@pytest.fixture
def size_tool() -> Iterator[BuiltinTool]:
    unregister = BUILTIN_TOOLS.register(SIZE)
    try:
        yield SIZE
    finally:
        unregister()


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TETHER_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.bin").write_bytes(b"x" * 1234)
    (project / ".env").write_text("TOKEN=s3cret\n")
    (tmp_path / "outside.txt").write_text("not in the workspace\n")
    return project


async def test_the_command_offers_governs_renders_and_runs_the_new_tool(size_tool, workspace):
    args = build_parser().parse_args(["--tools", "read,size", "-p", "how big?"])
    settings = settings_from(args)
    settings.cwd, settings.no_session = str(workspace), True
    assert settings.tools == ("read", "size")
    script = [
        faux_message(faux_tool_call("size", {"path": "data.bin", "why": "a private reason"})),
        faux_message(faux_tool_call("size", {"path": ".env"})),
        faux_message(faux_tool_call("size", {"path": str(workspace.parent / "outside.txt")})),
        faux_message(faux_text("1,234 bytes")),
    ]
    faux = FauxModel(script)
    runtime = build_runtime(settings, None, model=faux.model, stream_fn=faux.stream)
    try:
        assert [tool.name for tool in runtime.agent.state.tools] == ["read", "size"]
        await runtime.prompt("how big?")
    finally:
        runtime.close()
    results = [m for m in runtime.agent.state.messages if isinstance(m, ToolResultMessage)]
    inside, secret, outside = results
    assert not inside.is_error and inside.content[0].text == "1234 bytes"
    assert secret.is_error and "Denied by policy: secret" in secret.content[0].text
    assert outside.is_error and "read outside the workspace" in outside.content[0].text
    definition = runtime.definitions["size"]
    assert definition.render_call is not None and definition.render_result is not None
    assert definition.render_call({"path": "data.bin"}) == "size data.bin"
    assert definition.render_result(AgentToolResult([], details={"bytes": 1234}), False) == (
        "1,234 bytes"
    )
    assert definition.render_result(AgentToolResult([TextContent("no\nmore")]), True) == "error: no"


def test_its_review_exposure_and_access_come_from_its_one_declaration(size_tool, workspace):
    catalog = coding_tool_catalog(str(workspace), names=["size"])
    tool = catalog.get("size")
    review = tool.metadata["review_schema"]["properties"]
    assert {key: spec["x-review"] for key, spec in review.items()} == {
        "path": "include",
        "why": "redact",
    }
    assert "x-review" not in str(tool.parameters)  # the model sees the plain schema
    governance = builtin_governance("size", str(workspace))
    assert governance.policy_check is not None and governance.action_key is None


def test_every_list_of_built_in_tools_names_it(size_tool, workspace):
    assert "size" in build_parser().format_help()
    (served,) = governed_tools(str(workspace), ["size"], sandbox=False)
    hints = annotations_for(served)
    assert hints["read_only_hint"] and hints["idempotent_hint"] and not hints["open_world_hint"]


def test_unregistered_it_is_gone_everywhere(workspace):
    unregister = BUILTIN_TOOLS.register(SIZE)
    unregister()
    assert "size" not in BUILTIN_TOOLS
    with pytest.raises(ValueError, match="Unknown tool name"):
        coding_tool_catalog(str(workspace), names=["size"])


def test_a_name_is_registered_once(size_tool):
    with pytest.raises(ValueError, match="already registered"):
        BUILTIN_TOOLS.register(SIZE)


def test_a_parameter_without_review_exposure_is_refused_when_the_tool_is_made(workspace):
    careless = BuiltinTool(
        name="careless",
        define=lambda cwd, ops: replace(_define(cwd, ops), name="careless"),
        exposure={"path": Review.INCLUDE},
        governance=path_governance("read"),
        render_call=_render_call,
        render_result=_render_result,
    )
    with pytest.raises(ValueError, match=r"'careless': parameter\(s\) why have no review exposure"):
        careless.create(str(workspace))


def test_an_exposure_that_is_not_a_review_value_is_refused_at_definition():
    with pytest.raises(ValueError, match=r"must be tether\.gate\.Review values"):
        BuiltinTool(
            name="sloppy",
            define=_define,
            exposure={"path": "include"},  # type: ignore[dict-item]
            governance=path_governance("read"),
            render_call=_render_call,
            render_result=_render_result,
        )
