"""``ToolDefinition`` and ``wrap_tool_definition`` (API layer 3): the wrapped ``AgentTool`` keeps
the definition's fields, carries ``governance`` in its metadata, and injects a ``ToolContext`` as
a fifth ``execute`` argument that the agent loop and the model never see."""

from __future__ import annotations

import dataclasses
import inspect
import os
from typing import Any

import pydantic

from tether.agent import (
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    agent_loop,
)
from tether.ai import AbortController, AbortSignal, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.tools import ToolContext, ToolDefinition, wrap_tool_definition

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "Where."}},
    "required": ["path"],
}


class Recorder:
    """An ``execute`` for a definition that records every call, including its ``ctx``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, AbortSignal, Any, ToolContext]] = []

    async def __call__(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal,
        on_update: Any,
        ctx: ToolContext,
    ) -> AgentToolResult:
        self.calls.append((tool_call_id, params, signal, on_update, ctx))
        return AgentToolResult([TextContent(f"cwd={ctx.cwd}")])


def make_definition(execute: Any = None, **overrides: Any) -> ToolDefinition:
    fields: dict[str, Any] = {
        "name": "probe",
        "label": "Probe",
        "description": "Looks at a path.",
        "parameters": SCHEMA,
        "execute": execute or Recorder(),
    }
    fields.update(overrides)
    return ToolDefinition(**fields)


def prepare(args: Any) -> Any:
    return args


class Governance:
    """Stand-in for ``tether.gate.Governance``: any object must pass through untouched."""


# --- the wrapped AgentTool ---------------------------------------------------------------------


def test_wrapped_tool_is_an_agent_tool_with_the_definition_fields() -> None:
    definition = make_definition(prepare_arguments=prepare, execution_mode="sequential")

    tool = wrap_tool_definition(definition)

    assert isinstance(tool, AgentTool)
    assert tool.name == "probe"
    assert tool.label == "Probe"
    assert tool.description == "Looks at a path."
    assert tool.parameters == SCHEMA
    assert tool.prepare_arguments is prepare
    assert tool.execution_mode == "sequential"


def test_wrapped_tool_defaults_for_optional_fields() -> None:
    tool = wrap_tool_definition(make_definition())

    assert tool.prepare_arguments is None
    assert tool.execution_mode is None


def test_pydantic_parameters_pass_through_as_the_model_class() -> None:
    class Params(pydantic.BaseModel):
        path: str

    tool = wrap_tool_definition(make_definition(parameters=Params))

    assert tool.parameters is Params


def test_governance_lands_in_metadata() -> None:
    governance = Governance()
    definition = make_definition(governance=governance)

    tool = wrap_tool_definition(definition)

    assert tool.metadata["governance"] is governance


def test_no_governance_key_when_governance_is_none() -> None:
    tool = wrap_tool_definition(make_definition())

    assert "governance" not in tool.metadata


def test_definition_metadata_is_kept_and_not_mutated() -> None:
    original = {"origin": "test"}
    definition = make_definition(metadata=original, governance=Governance())

    tool = wrap_tool_definition(definition)

    assert tool.metadata["origin"] == "test"
    assert original == {"origin": "test"}
    assert definition.metadata == {"origin": "test"}


def test_agent_tool_execute_takes_four_arguments() -> None:
    tool = wrap_tool_definition(make_definition())

    params = list(inspect.signature(tool.execute).parameters)

    assert len(params) == 4


# --- ctx injection ------------------------------------------------------------------------------


async def test_default_ctx_has_process_cwd_and_the_call_signal() -> None:
    recorder = Recorder()
    tool = wrap_tool_definition(make_definition(recorder))
    signal = AbortController().signal

    result = await tool.execute("call-1", {"path": "x"}, signal, None)

    assert len(recorder.calls) == 1
    tool_call_id, params, seen_signal, on_update, ctx = recorder.calls[0]
    assert tool_call_id == "call-1"
    assert params == {"path": "x"}
    assert seen_signal is signal
    assert on_update is None
    assert isinstance(ctx, ToolContext)
    assert ctx.cwd == os.getcwd()
    assert ctx.signal is signal
    assert isinstance(result, AgentToolResult)
    assert result.content == [TextContent(f"cwd={os.getcwd()}")]


async def test_default_ctx_follows_the_process_cwd_at_call_time(tmp_path: Any, monkeypatch) -> None:
    recorder = Recorder()
    tool = wrap_tool_definition(make_definition(recorder))
    monkeypatch.chdir(tmp_path)

    await tool.execute("call-1", {"path": "x"}, AbortSignal(), None)

    assert recorder.calls[0][4].cwd == os.getcwd() == str(tmp_path)


async def test_on_update_is_passed_through() -> None:
    recorder = Recorder()
    tool = wrap_tool_definition(make_definition(recorder))
    updates: list[AgentToolResult] = []

    await tool.execute("call-1", {"path": "x"}, AbortSignal(), updates.append)

    assert recorder.calls[0][3] == updates.append


async def test_ctx_factory_is_called_once_per_call() -> None:
    recorder = Recorder()
    made: list[ToolContext] = []

    def factory() -> ToolContext:
        ctx = ToolContext(f"/work/session-{len(made)}", extra={"n": len(made)})
        made.append(ctx)
        return ctx

    tool = wrap_tool_definition(make_definition(recorder), factory)
    assert made == []  # not called while wrapping

    for index in range(3):
        await tool.execute(f"call-{index}", {"path": "x"}, AbortSignal(), None)

    assert len(made) == 3
    assert [call[4] for call in recorder.calls] == made
    assert all(call[4] is ctx for call, ctx in zip(recorder.calls, made, strict=True))
    assert [call[4].cwd for call in recorder.calls] == [
        "/work/session-0",
        "/work/session-1",
        "/work/session-2",
    ]


async def test_ctx_factory_context_is_used_instead_of_default() -> None:
    recorder = Recorder()
    session_signal = AbortController().signal
    tool = wrap_tool_definition(
        make_definition(recorder), lambda: ToolContext("/elsewhere", session_signal)
    )

    result = await tool.execute("call-1", {"path": "x"}, AbortSignal(), None)

    ctx = recorder.calls[0][4]
    assert ctx.cwd == "/elsewhere"
    assert ctx.signal is session_signal
    assert isinstance(result, AgentToolResult)
    assert result.content == [TextContent("cwd=/elsewhere")]


async def test_execute_errors_propagate() -> None:
    async def failing(*_args: Any) -> str:
        raise RuntimeError("boom")

    tool = wrap_tool_definition(make_definition(failing))

    try:
        await tool.execute("call-1", {"path": "x"}, AbortSignal(), None)
    except RuntimeError as error:
        assert str(error) == "boom"
    else:
        raise AssertionError("the definition's error was swallowed")


# --- through the real agent loop ----------------------------------------------------------------


async def run_loop(tool: AgentTool, fm: FauxModel) -> list[ToolResultMessage]:
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("system", [], [tool]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    _ = [event async for event in stream]
    messages = await stream.result()
    return [m for m in messages if isinstance(m, ToolResultMessage)]


async def test_agent_loop_calls_execute_with_four_args_and_ctx_is_injected() -> None:
    recorder = Recorder()
    made: list[ToolContext] = []

    def factory() -> ToolContext:
        made.append(ToolContext("/project"))
        return made[-1]

    wrapped = wrap_tool_definition(
        make_definition(recorder, governance=Governance(), metadata={"origin": "test"}),
        factory,
    )
    loop_calls: list[tuple[Any, ...]] = []

    async def spy(*args: Any, **kwargs: Any) -> Any:
        loop_calls.append(args)
        assert kwargs == {}
        return await wrapped.execute(*args, **kwargs)

    tool = dataclasses.replace(wrapped, execute=spy)
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("probe", {"path": "a"}, id="t1"),
                faux_tool_call("probe", {"path": "b"}, id="t2"),
            ),
            faux_message(faux_text("done")),
        ]
    )

    results = await run_loop(tool, fm)

    assert [r.tool_call_id for r in results] == ["t1", "t2"]
    assert all(not r.is_error for r in results)
    assert [r.content for r in results] == [[TextContent("cwd=/project")]] * 2
    # the loop passed exactly four arguments; the definition received a fifth, the ctx
    assert [len(args) for args in loop_calls] == [4, 4]
    assert not any(isinstance(arg, ToolContext) for args in loop_calls for arg in args)
    assert len(made) == 2
    assert sorted(call[0] for call in recorder.calls) == ["t1", "t2"]
    assert all(isinstance(call[2], AbortSignal) for call in recorder.calls)
    assert {id(call[4]) for call in recorder.calls} == {id(ctx) for ctx in made}


async def test_agent_loop_default_ctx_gets_the_signal_the_loop_passed() -> None:
    recorder = Recorder()
    tool = wrap_tool_definition(make_definition(recorder))
    fm = FauxModel(
        [
            faux_message(faux_tool_call("probe", {"path": "a"}, id="t1")),
            faux_message(faux_text("done")),
        ]
    )

    results = await run_loop(tool, fm)

    assert len(results) == 1
    assert not results[0].is_error
    _, _, signal, _, ctx = recorder.calls[0]
    assert ctx.signal is signal
    assert ctx.cwd == os.getcwd()


async def test_model_sees_only_name_description_parameters() -> None:
    recorder = Recorder()
    tool = wrap_tool_definition(
        make_definition(
            recorder,
            governance=Governance(),
            prompt_snippet="Probe a path",
            prompt_guidelines=["Probe carefully."],
            metadata={"secret": "system-side"},
        ),
        lambda: ToolContext("/project"),
    )
    fm = FauxModel([faux_message(faux_text("no tools needed"))])

    await run_loop(tool, fm)

    assert len(fm.contexts) == 1
    model_tools = fm.contexts[0].tools
    assert len(model_tools) == 1
    model_tool = model_tools[0]
    assert [f.name for f in dataclasses.fields(model_tool)] == [
        "name",
        "description",
        "parameters",
    ]
    assert model_tool.name == "probe"
    assert model_tool.description == "Looks at a path."
    assert model_tool.parameters == SCHEMA
    for hidden in ("governance", "metadata", "label", "prompt_snippet", "execute", "ctx"):
        assert not hasattr(model_tool, hidden)
    assert "system-side" not in repr(model_tool)
