"""The stateful ``Agent``: transcript, one run at a time, queues, listeners, abort, options."""

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tether.agent import (
    AbortSignal,
    AfterToolCallResult,
    Agent,
    AgentBusyError,
    AgentContext,
    AgentLoopConfig,
    AgentOptions,
    AgentTool,
    AgentToolResult,
    BeforeToolCallResult,
    agent_loop,
    agent_loop_continue,
)
from tether.ai import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    StreamStart,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.faux import FauxModel, faux_message, faux_tool_call

OBJECT = {"type": "object"}


def make_tool(name: str, execute: Any, **options: Any) -> AgentTool:
    return AgentTool(name, name.title(), f"The {name} tool.", OBJECT, execute, **options)


def ok_tool(name: str, calls: list[str] | None = None) -> AgentTool:
    async def execute(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        if calls is not None:
            calls.append(call_id)
        return f"{name} ok"

    return make_tool(name, execute)


def gated_tool(name: str, started: asyncio.Event, release: asyncio.Event) -> AgentTool:
    """A slow tool: signals that it started, then waits for the test to release it."""

    async def execute(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        started.set()
        await release.wait()
        return f"{name} done"

    return make_tool(name, execute)


def text_of(message: Any) -> str:
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return message.content
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def summary(messages: list[Any]) -> list[tuple[str, str]]:
    """(role, text-or-tool-call-id) per message, for compact transcript assertions."""
    out = []
    for m in messages:
        if isinstance(m, ToolResultMessage):
            out.append(("tool_result", m.tool_call_id))
        elif isinstance(m, AssistantMessage) and m.tool_calls():
            out.append(("assistant", ",".join(c.id for c in m.tool_calls())))
        else:
            out.append((m.role, text_of(m)))
    return out


async def wait_until(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), timeout=2)


# --- transcript ---------------------------------------------------------------------------------


async def test_prompt_appends_user_and_assistant_messages() -> None:
    fm = FauxModel([faux_message("hello there")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, system_prompt="be brief")

    added = await agent.prompt("hi")

    assert summary(agent.state.messages) == [("user", "hi"), ("assistant", "hello there")]
    assert added == agent.state.messages
    assert fm.contexts[0].system_prompt == "be brief"
    assert summary(fm.contexts[0].messages) == [("user", "hi")]
    assert agent.state.is_running is False
    assert agent.state.error is None


async def test_second_prompt_continues_the_transcript() -> None:
    calls: list[str] = []
    fm = FauxModel(
        [
            faux_message(faux_tool_call("lookup", {}, id="t1")),
            faux_message("first answer"),
            faux_message("second answer"),
        ]
    )
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("lookup", calls)])

    await agent.prompt("one")
    added = await agent.prompt(UserMessage("two"))

    assert calls == ["t1"]
    expected_first = [
        ("user", "one"),
        ("assistant", "t1"),
        ("tool_result", "t1"),
        ("assistant", "first answer"),
    ]
    assert summary(fm.contexts[2].messages) == [*expected_first, ("user", "two")]
    assert summary(agent.state.messages) == [
        *expected_first,
        ("user", "two"),
        ("assistant", "second answer"),
    ]
    assert summary(added) == [("user", "two"), ("assistant", "second answer")]


# --- one run at a time --------------------------------------------------------------------------


async def test_prompt_while_running_raises_busy_error_and_is_running_tracks_the_run() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    fm = FauxModel([faux_message(faux_tool_call("slow", {}, id="s1")), faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[gated_tool("slow", started, release)])
    assert agent.state.is_running is False

    task = asyncio.create_task(agent.prompt("hi"))
    await wait_until(started)
    assert agent.state.is_running is True
    with pytest.raises(AgentBusyError) as busy:
        await agent.prompt("again")
    assert "steer" in str(busy.value)
    assert "follow_up" in str(busy.value)
    with pytest.raises(AgentBusyError):
        await agent.resume()
    release.set()
    await asyncio.wait_for(task, timeout=2)

    assert agent.state.is_running is False
    assert ("user", "again") not in summary(agent.state.messages)
    assert summary(agent.state.messages)[-1] == ("assistant", "done")
    assert len(fm.contexts) == 2


async def test_steer_is_delivered_after_the_whole_batch() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    calls: list[str] = []
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("slow", {}, id="a1"),
                faux_tool_call("fast", {}, id="a2"),
            ),
            faux_message("steered answer"),
        ]
    )
    agent = Agent(
        model=fm.model,
        stream_fn=fm.stream,
        tools=[gated_tool("slow", started, release), ok_tool("fast", calls)],
        tool_execution="sequential",
    )

    task = asyncio.create_task(agent.prompt("hi"))
    await wait_until(started)
    agent.steer("change course")
    release.set()
    await asyncio.wait_for(task, timeout=2)

    assert calls == ["a2"]  # the batch was not interrupted by the steering message
    assert summary(agent.state.messages) == [
        ("user", "hi"),
        ("assistant", "a1,a2"),
        ("tool_result", "a1"),
        ("tool_result", "a2"),
        ("user", "change course"),
        ("assistant", "steered answer"),
    ]
    assert summary(fm.contexts[1].messages)[-1] == ("user", "change course")


async def test_follow_up_is_delivered_when_the_run_would_stop() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    fm = FauxModel(
        [
            faux_message(faux_tool_call("slow", {}, id="f1")),
            faux_message("answer"),
            faux_message("follow-up answer"),
        ]
    )
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[gated_tool("slow", started, release)])

    task = asyncio.create_task(agent.prompt("hi"))
    await wait_until(started)
    agent.follow_up(UserMessage("and then?"))
    release.set()
    await asyncio.wait_for(task, timeout=2)

    assert summary(agent.state.messages) == [
        ("user", "hi"),
        ("assistant", "f1"),
        ("tool_result", "f1"),
        ("assistant", "answer"),
        ("user", "and then?"),
        ("assistant", "follow-up answer"),
    ]
    assert len(fm.contexts) == 3


async def test_follow_up_queued_by_a_listener_during_the_run_is_delivered_in_that_run() -> None:
    fm = FauxModel([faux_message("first"), faux_message("second"), faux_message("third")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)

    def listener(event: Any) -> None:
        if event.type == "message_end" and text_of(event.message) == "first":
            assert agent.state.is_running
            agent.follow_up("more")

    agent.subscribe(listener)
    await agent.prompt("hi")
    assert summary(agent.state.messages) == [
        ("user", "hi"),
        ("assistant", "first"),
        ("user", "more"),
        ("assistant", "second"),
    ]


# --- abort --------------------------------------------------------------------------------------


async def test_abort_ends_the_run_and_wait_for_idle_returns() -> None:
    started = asyncio.Event()

    async def stubborn(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        started.set()
        await asyncio.sleep(30)  # ignores the signal
        return "never"

    fm = FauxModel([faux_message(faux_tool_call("stubborn", {}, id="x1")), faux_message("no")])
    agent = Agent(
        model=fm.model,
        stream_fn=fm.stream,
        tools=[make_tool("stubborn", stubborn)],
        abort_grace=0.1,
    )
    await asyncio.wait_for(agent.wait_for_idle(), timeout=1)  # idle before any run

    task = asyncio.create_task(agent.prompt("go"))
    await wait_until(started)
    agent.abort()
    await asyncio.wait_for(agent.wait_for_idle(), timeout=1.5)

    assert agent.state.is_running is False
    await asyncio.wait_for(task, timeout=0.5)
    last = agent.state.messages[-1]
    assert isinstance(last, ToolResultMessage)
    assert last.tool_call_id == "x1"
    assert last.is_error
    assert "aborted" in text_of(last).lower()
    assert len(fm.contexts) == 1


async def test_abort_during_streaming_records_the_aborted_message_and_error() -> None:
    fm = FauxModel([faux_message("a long answer " * 50)], chunk_size=2, delay=0.001)
    agent = Agent(model=fm.model, stream_fn=fm.stream)

    def abort_on_first_update(event: Any) -> None:
        if event.type == "message_update":
            agent.abort("user pressed stop")

    agent.subscribe(abort_on_first_update)
    await asyncio.wait_for(agent.prompt("go"), timeout=2)

    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted"
    assert agent.state.error is not None
    assert agent.state.is_running is False


# --- listeners ----------------------------------------------------------------------------------


async def test_listeners_are_awaited_in_subscription_order_for_every_event() -> None:
    fm = FauxModel([faux_message(faux_tool_call("t", {}, id="l1")), faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("t")])
    record: list[tuple[str, str]] = []

    async def first(event: Any) -> None:
        record.append(("1-start", event.type))
        await asyncio.sleep(0.001)
        record.append(("1-end", event.type))

    def second(event: Any) -> None:
        record.append(("2", event.type))

    async def third(event: Any) -> None:
        record.append(("3", event.type))

    agent.subscribe(first)
    agent.subscribe(second)
    agent.subscribe(third)
    await agent.prompt("hi")

    assert len(record) % 4 == 0
    groups = [record[i : i + 4] for i in range(0, len(record), 4)]
    types = []
    for group in groups:
        kind = group[0][1]
        assert group == [("1-start", kind), ("1-end", kind), ("2", kind), ("3", kind)]
        types.append(kind)
    assert types[0] == "agent_start"
    assert types[-1] == "agent_end"
    assert "tool_execution_end" in types
    assert types.count("message_end") == 4  # user, assistant, tool result, assistant


async def test_a_raising_listener_does_not_break_the_run(caplog: pytest.LogCaptureFixture) -> None:
    fm = FauxModel([faux_message(faux_tool_call("t", {}, id="r1")), faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("t")])
    seen: list[str] = []

    def broken_sync(event: Any) -> None:
        raise RuntimeError("sync listener broke")

    async def broken_async(event: Any) -> None:
        await asyncio.sleep(0)
        raise ValueError("async listener broke")

    agent.subscribe(broken_sync)
    agent.subscribe(broken_async)
    agent.subscribe(lambda event: seen.append(event.type))
    with caplog.at_level(logging.ERROR, logger="tether.agent"):
        await agent.prompt("hi")

    assert seen[0] == "agent_start"
    assert seen[-1] == "agent_end"
    assert summary(agent.state.messages)[-1] == ("assistant", "done")
    assert agent.state.error is None
    assert agent.state.is_running is False
    assert "sync listener broke" in caplog.text
    assert "async listener broke" in caplog.text


async def test_unsubscribe_stops_delivery() -> None:
    fm = FauxModel([faux_message("one"), faux_message("two")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)
    kept: list[str] = []
    dropped: list[str] = []
    agent.subscribe(lambda event: kept.append(event.type))
    unsubscribe = agent.subscribe(lambda event: dropped.append(event.type))

    await agent.prompt("first")
    count = len(dropped)
    assert count > 0
    unsubscribe()
    unsubscribe()  # idempotent
    await agent.prompt("second")

    assert len(dropped) == count
    assert kept.count("agent_end") == 2


# --- failures -----------------------------------------------------------------------------------


def raising_stream_fn(model: Model, context: Context, options: StreamOptions) -> Any:
    raise RuntimeError("provider exploded")


async def failing_midway_stream_fn(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[Any]:
    yield StreamStart(AssistantMessage(content=[TextContent("par")], model=model.id))
    raise ConnectionError("connection reset by peer")


@pytest.mark.parametrize(
    ("stream_fn", "needle"),
    [(raising_stream_fn, "provider exploded"), (failing_midway_stream_fn, "connection reset")],
)
async def test_failing_stream_fn_becomes_an_error_message(stream_fn: Any, needle: str) -> None:
    model = Model(id="broken-1", provider="broken", api="broken")
    agent = Agent(model=model, stream_fn=stream_fn)

    added = await agent.prompt("hi")

    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "error"
    assert needle in (last.error_message or "")
    assert agent.state.error is not None
    assert needle in agent.state.error
    assert added[-1] is last
    assert agent.state.is_running is False


async def test_error_is_cleared_by_the_next_successful_run() -> None:
    fm = FauxModel([faux_message("recovered")])
    requests: list[int] = []

    def flaky(model: Model, context: Context, options: StreamOptions) -> Any:
        requests.append(1)
        if len(requests) == 1:
            raise RuntimeError("temporary outage")
        return fm.stream(model, context, options)

    agent = Agent(model=fm.model, stream_fn=flaky)
    await agent.prompt("one")
    assert agent.state.error is not None
    await agent.prompt("two")
    assert agent.state.error is None
    assert summary(agent.state.messages)[-1] == ("assistant", "recovered")


# --- tools and options --------------------------------------------------------------------------


async def test_set_tools_applies_from_the_next_prompt() -> None:
    swapped = asyncio.Event()
    agent: Agent

    async def swap(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        agent.set_tools([ok_tool("beta")])
        swapped.set()
        return "swapped"

    fm = FauxModel(
        [
            faux_message(faux_tool_call("alpha", {}, id="w1")),
            faux_message("same run"),
            faux_message(faux_tool_call("beta", {}, id="w2")),
            faux_message("next run"),
        ]
    )
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[make_tool("alpha", swap)])
    await agent.prompt("one")
    assert swapped.is_set()
    await agent.prompt("two")

    assert [t.name for t in fm.contexts[0].tools] == ["alpha"]
    assert [t.name for t in fm.contexts[1].tools] == ["alpha"]  # same run: unchanged
    assert [t.name for t in fm.contexts[2].tools] == ["beta"]
    assert [t.name for t in agent.state.tools] == ["beta"]
    result = agent.state.messages[-2]
    assert isinstance(result, ToolResultMessage)
    assert result.tool_call_id == "w2"
    assert result.is_error is False
    assert text_of(result) == "beta ok"


def test_unknown_constructor_option_raises_type_error_naming_it() -> None:
    fm = FauxModel()
    with pytest.raises(TypeError, match="tool_exec_mode"):
        Agent(model=fm.model, stream_fn=fm.stream, tool_exec_mode="parallel")


def test_queue_options_are_owned_by_the_agent() -> None:
    fm = FauxModel()

    async def steering() -> list[Any]:
        return []

    with pytest.raises(TypeError, match="get_steering_messages"):
        Agent(model=fm.model, stream_fn=fm.stream, get_steering_messages=steering)


async def test_before_tool_call_option_passes_through_and_blocks_a_tool() -> None:
    calls: list[str] = []
    seen: list[tuple[str, Any]] = []

    async def before(context: Any, signal: AbortSignal) -> BeforeToolCallResult | None:
        seen.append((context.tool_call.id, context.args))
        if context.tool_call.name == "danger":
            return BeforeToolCallResult(block=True, reason="blocked by policy 7")
        return None

    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("danger", {"x": 1}, id="d1"),
                faux_tool_call("safe", {}, id="d2"),
            ),
            faux_message("done"),
        ]
    )
    agent = Agent(
        model=fm.model,
        stream_fn=fm.stream,
        tools=[ok_tool("danger", calls), ok_tool("safe", calls)],
        before_tool_call=before,
    )
    await agent.prompt("go")

    assert calls == ["d2"]
    assert seen == [("d1", {"x": 1}), ("d2", {})]
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("d1", True), ("d2", False)]
    assert text_of(results[0]) == "blocked by policy 7"


async def test_after_tool_call_option_passes_through() -> None:
    async def after(context: Any, signal: AbortSignal) -> AfterToolCallResult:
        return AfterToolCallResult(content=[TextContent(f"reviewed: {context.tool_call.id}")])

    fm = FauxModel([faux_message(faux_tool_call("t", {}, id="v1")), faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("t")], after_tool_call=after)
    await agent.prompt("go")
    result = agent.state.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert text_of(result) == "reviewed: v1"
    assert result.is_error is False


async def test_tool_updates_reach_listeners() -> None:
    async def progress(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        on_update(AgentToolResult([TextContent("50%")]))
        await asyncio.sleep(0)
        return "100%"

    fm = FauxModel([faux_message(faux_tool_call("p", {}, id="u1")), faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[make_tool("p", progress)])
    events: list[Any] = []
    agent.subscribe(events.append)
    await agent.prompt("go")

    kinds = [e.type for e in events]
    update = kinds.index("tool_execution_update")
    assert kinds.index("tool_execution_start") < update < kinds.index("tool_execution_end")
    assert text_of(events[update].partial_result) == "50%"


# --- resume after a failed turn --------------------------------------------------------------


async def test_resume_after_a_failed_turn_retries_it_and_keeps_the_failure_in_the_transcript() -> (
    None
):
    fm = FauxModel([faux_message("half an ans", stop_reason="error")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)
    await agent.prompt("question")
    assert agent.state.error is not None
    failed = agent.state.messages[-1]

    fm.append(faux_message("the answer"))
    added = await agent.resume()

    assert [m.text() for m in added] == ["the answer"]
    assert agent.state.error is None
    assert agent.state.messages[-2] is failed  # the transcript keeps the failed turn
    assert fm.contexts[1].messages == [agent.state.messages[0]]  # ... but it is not sent


async def test_a_resume_that_cannot_start_keeps_the_error() -> None:
    fm = FauxModel([faux_message("done")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)
    await agent.prompt("question")
    agent.state.error = "an earlier failure"
    with pytest.raises(ValueError, match='ended with "stop"'):
        await agent.resume()
    assert agent.state.error == "an earlier failure"
    assert agent.state.is_running is False


# --- tool names ------------------------------------------------------------------------------


def test_two_tools_of_the_same_name_are_refused_naming_them() -> None:
    fm = FauxModel([])
    with pytest.raises(ValueError, match=r'Duplicate tool names in tools: "a" \(2 tools\)'):
        Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("a"), ok_tool("a")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, tools=[ok_tool("a")])
    with pytest.raises(ValueError, match='"b" \\(3 tools\\)'):
        agent.set_tools([ok_tool("b"), ok_tool("b"), ok_tool("b")])
    assert [tool.name for tool in agent.state.tools] == ["a"]
    with pytest.raises(ValueError, match='available_tools: "c"'):
        Agent(model=fm.model, stream_fn=fm.stream, available_tools=[ok_tool("c"), ok_tool("c")])


def test_the_loop_refuses_tools_that_share_a_name() -> None:
    fm = FauxModel([faux_message("never")])
    config = AgentLoopConfig(model=fm.model, stream_fn=fm.stream)
    with pytest.raises(ValueError, match='"a"'):
        agent_loop([UserMessage("go")], AgentContext("", [], [ok_tool("a"), ok_tool("a")]), config)
    offered = AgentLoopConfig(
        model=fm.model, stream_fn=fm.stream, available_tools=[ok_tool("b"), ok_tool("b")]
    )
    with pytest.raises(ValueError, match='available_tools: "b"'):
        agent_loop_continue(AgentContext("", [UserMessage("go")], []), offered)
    assert fm.contexts == []


# --- options and prompts are checked at the call ------------------------------------------------


async def test_a_sync_before_and_after_hook_work_like_async_ones() -> None:
    def before(context: Any, signal: AbortSignal) -> BeforeToolCallResult | None:
        if context.tool_call.name == "danger":
            return BeforeToolCallResult(block=True, reason="not that one")
        return None

    def after(context: Any, signal: AbortSignal) -> AfterToolCallResult:
        return AfterToolCallResult(content=[TextContent("checked")])

    fm = FauxModel(
        [
            faux_message(faux_tool_call("danger", {}, id="d"), faux_tool_call("safe", {}, id="s")),
            faux_message("done"),
        ]
    )
    agent = Agent(
        model=fm.model,
        stream_fn=fm.stream,
        tools=[ok_tool("danger"), ok_tool("safe")],
        before_tool_call=before,
        after_tool_call=after,
    )
    await agent.prompt("go")
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(text_of(r), r.is_error) for r in results] == [
        ("not that one", True),
        ("checked", False),
    ]


async def test_a_sync_transform_context_is_used() -> None:
    def keep_last(messages: list[Any], signal: Any) -> list[Any]:
        return messages[-1:]

    fm = FauxModel([faux_message("first"), faux_message("second")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, transform_context=keep_last)
    await agent.prompt("one")
    await agent.prompt("two")
    assert [m.content for m in fm.contexts[1].messages] == ["two"]


def test_agent_options_are_the_loop_options_the_agent_does_not_own() -> None:
    owned = {
        "model", "stream_fn", "get_steering_messages", "get_follow_up_messages", "before_execute"
    }  # fmt: skip
    fields = {f.name for f in dataclasses.fields(AgentLoopConfig)} - owned
    assert set(AgentOptions.__optional_keys__) == fields


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"tool_execution": "paralel"}, ValueError, "did you mean 'parallel'"),
        ({"before_tool_call": "gate"}, TypeError, "before_tool_call must be a function"),
        ({"abort_grace": -1}, ValueError, "abort_grace must be 0 or more"),
        ({"abort_grace": "1"}, TypeError, "abort_grace must be a number"),
        ({"api_key": 123}, TypeError, "api_key must be a str"),
        ({"stream_options": {"max_tokens": 5}}, TypeError, "StreamOptions"),
        ({"available_tools": ["read"]}, TypeError, "available_tools must hold AgentTools"),
        ({"tools": [object()]}, TypeError, "tools must hold AgentTools, got object"),
        ({"system_prompt": None}, TypeError, "system_prompt must be a str"),
    ],
)
def test_option_values_are_checked_at_the_call(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    fm = FauxModel()
    with pytest.raises(error, match=message):
        Agent(model=fm.model, stream_fn=fm.stream, **options)


async def test_a_prompt_the_model_could_never_see_is_refused() -> None:
    fm = FauxModel([faux_message("ok")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)
    with pytest.raises(TypeError, match=r"agent\.prompt\(\) takes a str or a message"):
        await agent.prompt(123)
    with pytest.raises(TypeError, match=r"agent\.steer\(\)"):
        agent.steer(None)
    with pytest.raises(TypeError, match=r"agent\.follow_up\(\)"):
        agent.follow_up(["text"])
    assert agent.state.messages == [] and fm.contexts == []


async def test_an_application_message_is_accepted_when_convert_to_llm_maps_it() -> None:
    @dataclasses.dataclass
    class Note:
        text: str

    def convert(messages: list[Any]) -> list[Any]:
        return [UserMessage(m.text) if isinstance(m, Note) else m for m in messages]

    fm = FauxModel([faux_message("ok")])
    agent = Agent(model=fm.model, stream_fn=fm.stream, convert_to_llm=convert)
    await agent.prompt(Note("from the app"))
    assert fm.contexts[0].messages[0].content == "from the app"
    with pytest.raises(TypeError):
        await agent.prompt(123)


async def test_a_listener_failing_on_every_event_is_logged_once_then_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fm = FauxModel([faux_message("one"), faux_message("two")])
    agent = Agent(model=fm.model, stream_fn=fm.stream)
    events: list[str] = []

    def broken(event: Any) -> None:
        events.append(event.type)
        raise RuntimeError("listener broke")

    agent.subscribe(broken)
    with caplog.at_level(logging.ERROR, logger="tether.agent"):
        await agent.prompt("a")
        await agent.prompt("b")

    tracebacks = [r for r in caplog.records if r.exc_info is not None]
    assert len(tracebacks) == 1 and "listener broke" in caplog.text
    counts = [r.getMessage() for r in caplog.records if "more time(s)" in r.getMessage()]
    per_run = len(events) // 2
    assert [c.rsplit(" failed ", 1)[1] for c in counts] == [
        f"{per_run - 1} more time(s) in this run",
        f"{per_run} more time(s) in this run",
    ]


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_listeners_have_seen_a_calls_start_before_the_tool_runs(mode: str) -> None:
    """A session records ``tool_call_started`` from the start event; a tool that ran before its
    listeners saw that event could run, be killed, and leave no record that it ever began."""
    seen: list[str] = []
    seen_when_run: dict[str, list[str]] = {}

    async def execute(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        seen_when_run[call_id] = list(seen)
        return "ran"

    calls = [faux_tool_call("work", {}, id=f"c{n}") for n in range(3)]
    fm = FauxModel([faux_message(*calls), faux_message("done")])
    agent = Agent(
        model=fm.model, stream_fn=fm.stream, tools=[make_tool("work", execute)],
        tool_execution=mode,
    )  # fmt: skip
    agent.subscribe(
        lambda event: (
            seen.append(event.tool_call_id) if event.type == "tool_execution_start" else None
        )
    )
    await agent.prompt("go")
    assert sorted(seen_when_run) == ["c0", "c1", "c2"]
    for call_id, started in seen_when_run.items():
        assert call_id in started, f"{call_id} ran before its listeners saw it start"
