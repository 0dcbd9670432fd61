"""Dynamic tools (``docs/concepts.md``): a result's ``added_tool_names`` activates available
tools from that transcript point on, a replayed transcript activates the same ones, and the
system prompt is rebuilt whenever the active set changes."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tether.agent import (
    Agent,
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    agent_loop_continue,
)
from tether.ai import TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call

from .support import Recorder, echo_tool, make_tool, run, text_of


def unlocking_tool(*names: str) -> AgentTool:
    """A tool whose result activates ``names``."""

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return AgentToolResult([TextContent("unlocked")], added_tool_names=list(names))

    return make_tool("unlock", execute)


def prompt_for(tools: list[AgentTool]) -> str:
    return "tools: " + ",".join(tool.name for tool in tools)


def shown_tools(model: FauxModel) -> list[list[str]]:
    """The tool names of each request the model received."""
    return [[tool.name for tool in context.tools] for context in model.contexts]


async def test_an_added_tool_is_shown_and_callable_from_the_next_turn() -> None:
    calls = Recorder()
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_tool_call("search", {"text": "found"})),
            faux_message(faux_text("done")),
        ]
    )
    outcome = await run(
        model,
        [unlocking_tool("search")],
        available_tools=[echo_tool("search", calls)],
        system_prompt_for=prompt_for,
    )
    assert shown_tools(model) == [["unlock"], ["unlock", "search"], ["unlock", "search"]]
    assert [context.system_prompt for context in model.contexts] == [
        "tools: unlock",
        "tools: unlock,search",
        "tools: unlock,search",
    ]
    results = outcome.tool_results
    assert [(r.tool_name, r.is_error, r.added_tool_names) for r in results] == [
        ("unlock", False, ["search"]),
        ("search", False, None),
    ]
    assert calls.params == [{"text": "found"}]


async def test_an_available_tool_is_not_callable_before_it_is_added() -> None:
    calls = Recorder()
    model = FauxModel(
        [faux_message(faux_tool_call("search", {"text": "x"})), faux_message(faux_text("ok"))]
    )
    available = [echo_tool("search", calls)]
    outcome = await run(model, [unlocking_tool("search")], available_tools=available)
    [result] = outcome.tool_results
    assert result.is_error
    assert text_of(result) == 'Tool "search" not found. Available tools: unlock.'
    assert calls.params == []
    assert shown_tools(model) == [["unlock"], ["unlock"]]


async def test_a_replayed_transcript_activates_the_same_tools() -> None:
    history = [
        UserMessage("earlier"),
        faux_message(faux_tool_call("unlock", {}, id="u1")),
        ToolResultMessage("u1", "unlock", [TextContent("unlocked")], None, False, ["search"]),
        faux_message(faux_text("search is unlocked")),
        UserMessage("now search"),
    ]
    model = FauxModel([faux_message(faux_text("searching"))])
    context = AgentContext("stale prompt", history, [unlocking_tool("search")])
    config = AgentLoopConfig(
        model=model.model,
        stream_fn=model.stream,
        available_tools=[echo_tool("search")],
        system_prompt_for=prompt_for,
    )
    stream = agent_loop_continue(context, config)
    _ = [event async for event in stream]
    assert shown_tools(model) == [["unlock", "search"]]
    assert model.contexts[0].system_prompt == "tools: unlock,search"
    assert [tool.name for tool in context.tools] == ["unlock"]  # the caller's context is kept


async def test_an_unknown_added_name_is_logged_and_nothing_else_changes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = FauxModel([faux_message(faux_tool_call("unlock", {})), faux_message(faux_text("ok"))])
    with caplog.at_level(logging.WARNING, logger="tether.agent"):
        outcome = await run(
            model, [unlocking_tool("nothing-like-it")], system_prompt_for=prompt_for
        )
    assert not outcome.tool_results[0].is_error
    assert shown_tools(model) == [["unlock"], ["unlock"]]
    assert "adds unknown tool 'nothing-like-it'" in caplog.text


async def test_the_agent_keeps_the_activated_set_and_a_new_agent_replays_it() -> None:
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_text("unlocked")),
            faux_message(faux_tool_call("search", {"text": "again"})),
            faux_message(faux_text("done")),
        ]
    )
    options: dict[str, Any] = {
        "available_tools": [echo_tool("search")],
        "system_prompt_for": prompt_for,
    }
    agent = Agent(
        model=model.model, stream_fn=model.stream, tools=[unlocking_tool("search")], **options
    )
    assert agent.state.system_prompt == "tools: unlock"
    await agent.prompt("unlock search")
    assert [tool.name for tool in agent.state.tools] == ["unlock", "search"]
    assert agent.state.system_prompt == "tools: unlock,search"

    agent.set_tools([unlocking_tool("search"), echo_tool("echo")])
    assert [tool.name for tool in agent.state.tools] == ["unlock", "echo", "search"]
    assert agent.state.system_prompt == "tools: unlock,echo,search"

    restored = Agent(
        model=model.model,
        stream_fn=model.stream,
        tools=[unlocking_tool("search")],
        messages=agent.state.messages,
        **options,
    )
    assert [tool.name for tool in restored.state.tools] == ["unlock", "search"]
    new = await restored.prompt("search again")
    assert shown_tools(model)[-2:] == [["unlock", "search"], ["unlock", "search"]]
    assert [m.is_error for m in new if isinstance(m, ToolResultMessage)] == [False]


def test_system_prompt_and_its_builder_are_exclusive() -> None:
    model = FauxModel([])
    with pytest.raises(TypeError, match="not both"):
        Agent(
            model=model.model,
            stream_fn=model.stream,
            system_prompt="fixed",
            system_prompt_for=prompt_for,
        )


async def test_a_rewound_or_replaced_transcript_gives_its_own_tool_set() -> None:
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_text("unlocked")),
            faux_message(faux_text("fresh start")),
        ]
    )
    agent = Agent(
        model=model.model,
        stream_fn=model.stream,
        tools=[unlocking_tool("search")],
        available_tools=[echo_tool("search")],
        system_prompt_for=prompt_for,
    )
    await agent.prompt("unlock")
    saved = list(agent.state.messages)
    del agent.state.messages[:]
    await agent.prompt("start over")
    assert shown_tools(model)[-1] == ["unlock"]
    assert model.contexts[-1].system_prompt == "tools: unlock"

    agent.state.messages[:] = saved
    agent.set_tools([unlocking_tool("search")])
    assert [tool.name for tool in agent.state.tools] == ["unlock", "search"]
    assert agent.state.system_prompt == "tools: unlock,search"


async def test_a_failing_prompt_builder_keeps_the_last_prompt_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fragile(tools: list[AgentTool]) -> str:
        if len(tools) > 1:
            raise RuntimeError("template missing")
        return prompt_for(tools)

    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_tool_call("search", {"text": "still works"})),
            faux_message(faux_text("done")),
        ]
    )
    with caplog.at_level(logging.ERROR, logger="tether.agent"):
        outcome = await run(
            model,
            [unlocking_tool("search")],
            available_tools=[echo_tool("search")],
            system_prompt_for=fragile,
        )
    assert [context.system_prompt for context in model.contexts] == ["tools: unlock"] * 3
    assert shown_tools(model)[1] == ["unlock", "search"]
    assert [r.is_error for r in outcome.tool_results] == [False, False]
    assert outcome.types[-1] == "agent_end"
    assert "system_prompt_for failed" in caplog.text


async def test_a_tool_added_in_a_batch_is_not_callable_in_that_same_batch() -> None:
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {}), faux_tool_call("search", {"text": "x"})),
            faux_message(faux_tool_call("search", {"text": "now"})),
            faux_message(faux_text("done")),
        ]
    )
    outcome = await run(model, [unlocking_tool("search")], available_tools=[echo_tool("search")])
    assert [(r.tool_name, r.is_error) for r in outcome.tool_results] == [
        ("unlock", False),
        ("search", True),  # the model was not shown it when it wrote the call
        ("search", False),
    ]


async def test_an_active_tool_keeps_its_place_over_an_available_one_of_the_same_name() -> None:
    active, offered = Recorder(), Recorder()
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_tool_call("search", {"text": "which"})),
            faux_message(faux_text("done")),
        ]
    )
    await run(
        model,
        [unlocking_tool("search"), echo_tool("search", active)],
        available_tools=[echo_tool("search", offered)],
    )
    assert shown_tools(model)[1] == ["unlock", "search"]
    assert (active.count, offered.count) == (1, 0)


async def test_an_unknown_name_is_warned_about_once_not_at_every_replay(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = FauxModel(
        [
            faux_message(faux_tool_call("unlock", {})),
            faux_message(faux_text("a")),
            faux_message(faux_text("b")),
        ]
    )
    agent = Agent(model=model.model, stream_fn=model.stream, tools=[unlocking_tool("ghost")])
    with caplog.at_level(logging.WARNING, logger="tether.agent"):
        await agent.prompt("one")
        await agent.prompt("two")
        agent.set_tools([unlocking_tool("ghost")])
    assert caplog.text.count("adds unknown tool 'ghost'") == 1


async def test_tools_for_request_picks_each_requests_tools_and_the_hooks_judge_by_them() -> None:
    calls = Recorder()
    local, remote = echo_tool("search", Recorder()), echo_tool("search", calls)
    switched: list[bool] = []
    judged: list[AgentTool] = []

    async def tools_for_request(active: list[AgentTool]) -> list[AgentTool]:
        return [remote] if switched else active

    async def select(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        switched.append(True)
        return AgentToolResult([TextContent("switched")])

    async def before(ctx: Any, signal: Any) -> None:
        judged.extend(t for t in ctx.context.tools if t.name == "search")

    model = FauxModel(
        [
            faux_message(faux_tool_call("select", {})),
            faux_message(faux_tool_call("search", {"text": "there"})),
            faux_message(faux_text("done")),
        ]
    )
    await run(
        model,
        [make_tool("select", select), local],
        tools_for_request=tools_for_request,
        before_tool_call=before,
    )
    assert shown_tools(model) == [["select", "search"], ["search"], ["search"]]
    assert calls.params == [{"text": "there"}]  # the call resolved against the tools shown
    assert judged == [local, remote]  # the hook saw, per batch, the tools that request showed


async def test_a_failing_tools_for_request_is_logged_and_the_active_tools_are_shown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(active: list[AgentTool]) -> list[AgentTool]:
        raise RuntimeError("no hand")

    model = FauxModel([faux_message(faux_text("done"))])
    with caplog.at_level(logging.ERROR, logger="tether.agent"):
        await run(model, [echo_tool("search", Recorder())], tools_for_request=broken)
    assert shown_tools(model) == [["search"]]
    assert "tools_for_request failed" in caplog.text
