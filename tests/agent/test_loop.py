"""The agent loop (``docs/concepts.md``): event order, turns, stop reasons, steering, follow-ups,
context."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest

from tether.agent import (
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    BeforeToolCallResult,
    ToolExecutionUpdate,
    agent_loop,
    agent_loop_continue,
)
from tether.ai import (
    AssistantMessage,
    StreamStart,
    TextContent,
    TextDelta,
    TextStart,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call

from .support import ECHO_SCHEMA, Recorder, collapse, echo_tool, make_tool, run, slow_tool, text_of

ONE_TOOL_CALL_ORDER = [
    "agent_start",
    "turn_start",
    "message_start",
    "message_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "message_start",
    "message_end",
    "turn_end",
    "turn_start",
    "message_start",
    "message_update",
    "message_end",
    "turn_end",
    "agent_end",
]


def reporting_tool(name: str = "report") -> Any:
    """A tool that reports two partial results before returning."""

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        on_update(AgentToolResult([TextContent("step 1")]))
        await asyncio.sleep(0)
        on_update(AgentToolResult([TextContent("step 2")]))
        return "reported"

    return make_tool(name, execute)


def one_call_model() -> FauxModel:
    return FauxModel(
        [
            faux_message(faux_text("let me check"), faux_tool_call("report", {}, id="c1")),
            faux_message(faux_text("all done")),
        ],
        delay=0,
    )


# --- event order and results ---------------------------------------------------------------


async def test_event_order_for_one_tool_call() -> None:
    result = await run(one_call_model(), [reporting_tool()])

    assert collapse(result.types) == ONE_TOOL_CALL_ORDER
    assert len(result.of("tool_execution_update")) == 2
    roles = [(e.type, e.message.role) for e in result.of("message_start")]
    assert roles == [
        ("message_start", "user"),
        ("message_start", "assistant"),
        ("message_start", "tool_result"),
        ("message_start", "assistant"),
    ]
    ends = [e.message.role for e in result.of("message_end")]
    assert ends == ["user", "assistant", "tool_result", "assistant"]


async def test_tool_execution_events_carry_call_id_name_and_partials() -> None:
    result = await run(one_call_model(), [reporting_tool()])

    (start,) = result.of("tool_execution_start")
    updates = result.of("tool_execution_update")
    (end,) = result.of("tool_execution_end")
    assert (start.tool_call_id, start.tool_name) == ("c1", "report")
    assert all(isinstance(u, ToolExecutionUpdate) and u.tool_call_id == "c1" for u in updates)
    assert [text_of(u.partial_result) for u in updates] == ["step 1", "step 2"]
    assert (end.tool_call_id, end.is_error, text_of(end.result)) == ("c1", False, "reported")


async def test_turn_end_carries_the_turns_tool_results() -> None:
    result = await run(one_call_model(), [reporting_tool()])

    first, second = result.of("turn_end")
    assert first.message is result.messages[1]
    assert len(first.tool_results) == 1
    assert first.tool_results[0] is result.messages[2]
    assert first.tool_results[0].tool_call_id == "c1"
    assert second.message is result.messages[3]
    assert second.tool_results == []


async def test_returned_messages_are_the_runs_new_messages() -> None:
    result = await run(one_call_model(), [reporting_tool()])

    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "assistant"]
    assert result.messages[0].content == "go"
    assert result.messages[1].tool_calls()[0].id == "c1"
    tool_result = result.messages[2]
    assert isinstance(tool_result, ToolResultMessage)
    assert (tool_result.tool_call_id, tool_result.tool_name) == ("c1", "report")
    assert text_of(tool_result) == "reported"
    assert result.messages[3].text() == "all done"
    (agent_end,) = result.of("agent_end")
    assert agent_end.messages == result.messages


async def test_callers_context_is_not_mutated() -> None:
    history = [UserMessage("earlier"), AssistantMessage([TextContent("ok")])]
    tools = [reporting_tool()]
    context = AgentContext("sys", list(history), tools)
    fm = one_call_model()

    stream = agent_loop(
        [UserMessage("go")], context, AgentLoopConfig(model=fm.model, stream_fn=fm.stream)
    )
    _ = [e async for e in stream]
    messages = await stream.result()

    assert len(messages) == 4
    assert context.messages == history
    assert context.tools == tools
    assert context.system_prompt == "sys"
    # the model saw the history, the prompt and the system prompt
    assert [m.role for m in fm.contexts[0].messages] == ["user", "assistant", "user"]
    assert fm.contexts[0].system_prompt == "sys"


# --- stop reasons and stream failures --------------------------------------------------------


@pytest.mark.parametrize("stop_reason", ["error", "aborted"])
async def test_error_or_aborted_message_ends_the_run_without_running_tools(
    stop_reason: Any,
) -> None:
    recorder = Recorder()
    fm = FauxModel(
        [
            faux_message(faux_tool_call("echo", {"text": "x"}), stop_reason=stop_reason),
            faux_message("never"),
        ]
    )
    result = await run(fm, [echo_tool(recorder=recorder)])

    assert recorder.count == 0
    assert result.types[-3:] == ["message_end", "turn_end", "agent_end"]
    assert result.of("tool_execution_start") == []
    assert [m.role for m in result.messages] == ["user", "assistant"]
    assert result.messages[1].stop_reason == stop_reason
    assert len(fm.contexts) == 1
    (turn_end,) = result.of("turn_end")
    assert turn_end.tool_results == []


async def raise_before_yielding(model: Any, context: Any, options: Any) -> Any:
    raise RuntimeError("connection refused by faux host")
    yield  # pragma: no cover - makes this an async generator


async def raise_after_yielding(model: Any, context: Any, options: Any) -> Any:
    partial = AssistantMessage([], model=model.id, provider=model.provider)
    yield StreamStart(partial)
    partial.content.append(TextContent(""))
    yield TextStart(0, partial)
    partial.content[0].text = "half an ans"  # type: ignore[union-attr]
    yield TextDelta(0, "half an ans", partial)
    raise ValueError("socket closed mid-stream")


def raise_when_called(model: Any, context: Any, options: Any) -> Any:
    raise ConnectionError("no route to faux host")


@pytest.mark.parametrize(
    ("stream_fn", "needle"),
    [
        (raise_before_yielding, "connection refused by faux host"),
        (raise_after_yielding, "socket closed mid-stream"),
        (raise_when_called, "no route to faux host"),
    ],
)
async def test_raising_stream_fn_becomes_an_error_message(stream_fn: Any, needle: str) -> None:
    fm = FauxModel()
    context = AgentContext("", [], [echo_tool()])
    stream = agent_loop(
        [UserMessage("go")], context, AgentLoopConfig(model=fm.model, stream_fn=stream_fn)
    )
    events = [e async for e in stream]
    messages = await stream.result()

    assert [m.role for m in messages] == ["user", "assistant"]
    final = messages[1]
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert needle in final.error_message
    types = [e.type for e in events]
    assert types[-3:] == ["message_end", "turn_end", "agent_end"]
    assert types.count("message_start") == types.count("message_end") == 2
    assert events[-3].message is final


async def test_stream_ending_without_done_becomes_an_error_message() -> None:
    async def truncated(model: Any, context: Any, options: Any) -> Any:
        partial = AssistantMessage([], model=model.id, provider=model.provider)
        yield StreamStart(partial)
        partial.content.append(TextContent("partial"))
        yield TextStart(0, partial)

    fm = FauxModel()
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], []),
        AgentLoopConfig(model=fm.model, stream_fn=truncated),
    )
    events = [e async for e in stream]
    messages = await stream.result()

    final = messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "error"
    assert final.error_message
    assert [e.type for e in events][-2:] == ["turn_end", "agent_end"]


async def test_length_stop_reason_refuses_tool_calls_and_continues() -> None:
    recorder = Recorder()
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("echo", {"text": "a"}, id="t1"),
                faux_tool_call("echo", {"text": "b"}, id="t2"),
                stop_reason="length",
            ),
            faux_message("I will re-issue"),
        ]
    )
    result = await run(fm, [echo_tool(recorder=recorder)])

    assert recorder.count == 0
    assert [r.tool_call_id for r in result.tool_results] == ["t1", "t2"]
    for tool_result in result.tool_results:
        assert tool_result.is_error is True
        text = text_of(tool_result).lower()
        assert "truncated" in text
        assert "re-issue" in text
    assert len(fm.contexts) == 2
    assert [m.role for m in fm.contexts[1].messages] == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
    ]
    assert result.messages[-1].text() == "I will re-issue"
    assert [e.is_error for e in result.of("tool_execution_end")] == [True, True]


# --- terminate --------------------------------------------------------------------------------


def terminating_tool(name: str, terminate: bool, recorder: Recorder) -> Any:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        recorder.params.append(params)
        return AgentToolResult([TextContent(f"{name} ok")], terminate=terminate)

    return make_tool(name, execute)


async def test_all_results_terminate_ends_after_the_batch() -> None:
    recorder = Recorder()
    fm = FauxModel(
        [
            faux_message(faux_tool_call("stop_a", {}), faux_tool_call("stop_b", {})),
            faux_message("should not be requested"),
            faux_message("nor this"),
        ]
    )
    tools = [terminating_tool("stop_a", True, recorder), terminating_tool("stop_b", True, recorder)]
    result = await run(fm, tools)

    assert recorder.count == 2
    assert len(fm.contexts) == 1
    assert fm.remaining == 2
    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "tool_result"]
    assert result.types[-2:] == ["turn_end", "agent_end"]


async def test_mixed_terminate_continues() -> None:
    recorder = Recorder()
    fm = FauxModel(
        [
            faux_message(faux_tool_call("stop", {}), faux_tool_call("go_on", {})),
            faux_message("next turn"),
        ]
    )
    tools = [terminating_tool("stop", True, recorder), terminating_tool("go_on", False, recorder)]
    result = await run(fm, tools)

    assert len(fm.contexts) == 2
    assert fm.remaining == 0
    assert result.messages[-1].text() == "next turn"


async def test_before_hook_terminate_without_block_carries_to_the_result() -> None:
    recorder = Recorder()
    fm = FauxModel([faux_message(faux_tool_call("echo", {"text": "hi"})), faux_message("no")])

    async def before(ctx: Any, signal: Any) -> BeforeToolCallResult:
        return BeforeToolCallResult(terminate=True)

    result = await run(fm, [echo_tool(recorder=recorder)], before_tool_call=before)

    assert recorder.count == 1  # not blocked: the tool ran
    (tool_result,) = result.tool_results
    assert tool_result.is_error is False
    assert text_of(tool_result) == "hi"
    assert len(fm.contexts) == 1
    assert fm.remaining == 1


async def test_before_hook_block_with_terminate_ends_the_run() -> None:
    recorder = Recorder()
    fm = FauxModel([faux_message(faux_tool_call("echo", {"text": "hi"})), faux_message("no")])

    async def before(ctx: Any, signal: Any) -> BeforeToolCallResult:
        return BeforeToolCallResult(block=True, reason="stop here", terminate=True)

    result = await run(fm, [echo_tool(recorder=recorder)], before_tool_call=before)

    assert recorder.count == 0
    (tool_result,) = result.tool_results
    assert (tool_result.is_error, text_of(tool_result)) == (True, "stop here")
    assert len(fm.contexts) == 1


async def test_terminate_still_runs_follow_ups() -> None:
    recorder = Recorder()
    follow = UserMessage("and then?")
    queue = [follow]

    async def follow_ups() -> list[Any]:
        taken = list(queue)
        queue.clear()
        return taken

    fm = FauxModel([faux_message(faux_tool_call("stop", {})), faux_message("followed up")])
    result = await run(
        fm, [terminating_tool("stop", True, recorder)], get_follow_up_messages=follow_ups
    )

    assert len(fm.contexts) == 2
    assert fm.contexts[1].messages[-1] is follow
    assert result.messages[-1].text() == "followed up"


async def test_terminate_still_runs_queued_steering() -> None:
    recorder = Recorder()
    queue: list[Any] = []
    steer = UserMessage("actually, one more thing")

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        recorder.params.append(params)
        queue.append(steer)
        return AgentToolResult([TextContent("done")], terminate=True)

    async def steering() -> list[Any]:
        taken = list(queue)
        queue.clear()
        return taken

    fm = FauxModel([faux_message(faux_tool_call("stop", {})), faux_message("handled")])
    result = await run(fm, [make_tool("stop", execute)], get_steering_messages=steering)

    assert len(fm.contexts) == 2
    assert fm.contexts[1].messages[-1] is steer
    assert result.messages[-1].text() == "handled"


# --- steering and follow-ups -----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_steering_is_injected_only_after_the_whole_batch(mode: Any) -> None:
    log: list[tuple[str, str]] = []
    queue: list[Any] = []
    steer = UserMessage("steer: change of plan")

    async def queue_steering(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        queue.append(steer)
        await asyncio.sleep(0.01)
        return "queued"

    async def steering() -> list[Any]:
        taken = list(queue)
        queue.clear()
        return taken

    tools = [
        make_tool("first", queue_steering),
        slow_tool("second", log, delay=0.02),
        slow_tool("third", log, delay=0.01),
    ]
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("first", {}, id="a"),
                faux_tool_call("second", {}, id="b"),
                faux_tool_call("third", {}, id="c"),
            ),
            faux_message("steered"),
        ]
    )
    result = await run(fm, tools, get_steering_messages=steering, tool_execution=mode)

    second_context = fm.contexts[1].messages
    assert [m.role for m in second_context] == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "tool_result",
        "user",
    ]
    assert [m.tool_call_id for m in second_context[2:5]] == ["a", "b", "c"]
    assert second_context[5] is steer

    steer_start = next(
        i for i, e in enumerate(result.events) if e.type == "message_start" and e.message is steer
    )
    batch = [
        i
        for i, e in enumerate(result.events)
        if e.type in ("tool_execution_start", "tool_execution_end")
        or (e.type == "message_end" and e.message.role == "tool_result")
    ]
    assert steer_start > max(batch)
    first_turn_end = result.types.index("turn_end")
    assert first_turn_end < steer_start
    assert result.types[steer_start - 1] == "turn_start"
    assert result.messages.index(steer) == 5


async def test_steering_queued_before_the_run_goes_before_the_first_model_call() -> None:
    steer = UserMessage("queued early")
    queue = [steer]

    async def steering() -> list[Any]:
        taken = list(queue)
        queue.clear()
        return taken

    fm = FauxModel([faux_message("ok")])
    result = await run(fm, get_steering_messages=steering)

    assert len(fm.contexts) == 1
    assert [m.content for m in fm.contexts[0].messages] == ["go", "queued early"]
    assert [m.role for m in result.messages] == ["user", "user", "assistant"]


async def test_follow_up_runs_after_the_run_would_stop() -> None:
    follow = UserMessage("follow-up question")
    polls: list[int] = []

    async def follow_ups() -> list[Any]:
        polls.append(len(fm.contexts))
        return [follow] if len(polls) == 1 else []

    fm = FauxModel(
        [
            faux_message(faux_tool_call("echo", {"text": "x"})),
            faux_message("first answer"),
            faux_message("second answer"),
        ]
    )
    result = await run(fm, [echo_tool()], get_follow_up_messages=follow_ups)

    assert len(fm.contexts) == 3
    # not injected after the tool turn: only once the inner loop had nothing left to do
    assert follow not in fm.contexts[1].messages
    assert fm.contexts[2].messages[-1] is follow
    assert fm.contexts[2].messages[-2].text() == "first answer"
    assert polls == [2, 3]
    assert [m.role for m in result.messages] == [
        "user",
        "assistant",
        "tool_result",
        "assistant",
        "user",
        "assistant",
    ]
    assert result.messages[-1].text() == "second answer"
    assert collapse(result.types)[-9:] == [
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assert result.types.count("turn_start") == result.types.count("turn_end") == 3


# --- transform_context and convert_to_llm ----------------------------------------------------


@dataclass
class Note:
    """An application-only transcript entry a model does not understand."""

    text: str
    role: str = "note"


async def test_default_convert_drops_application_messages() -> None:
    fm = FauxModel([faux_message("ok")])
    result = await run(fm, history=[Note("remember me"), UserMessage("hello")])

    sent = fm.contexts[0].messages
    assert [m.role for m in sent] == ["user", "user"]
    assert not any(isinstance(m, Note) for m in sent)
    assert [m.role for m in result.messages] == ["user", "assistant"]


@pytest.mark.parametrize("is_async", [False, True])
async def test_convert_to_llm_is_applied(is_async: bool) -> None:
    def convert_sync(messages: list[Any]) -> list[Any]:
        return [UserMessage(f"note: {m.text}") if isinstance(m, Note) else m for m in messages]

    async def convert_async(messages: list[Any]) -> list[Any]:
        return convert_sync(messages)

    fm = FauxModel([faux_message("ok")])
    await run(
        fm,
        history=[Note("remember me")],
        convert_to_llm=convert_async if is_async else convert_sync,
    )

    assert [m.content for m in fm.contexts[0].messages] == ["note: remember me", "go"]


async def test_transform_context_runs_before_convert_and_does_not_change_the_transcript() -> None:
    seen: list[list[Any]] = []

    async def keep_last_two(messages: list[Any], signal: Any) -> list[Any]:
        seen.append(list(messages))
        return [Note("summary of earlier"), *messages[-2:]]

    def convert(messages: list[Any]) -> list[Any]:
        return [UserMessage(f"[{m.text}]") if isinstance(m, Note) else m for m in messages]

    fm = FauxModel([faux_message(faux_tool_call("echo", {"text": "x"})), faux_message("ok")])
    history = [UserMessage("one"), AssistantMessage([TextContent("two")]), UserMessage("three")]
    result = await run(
        fm,
        [echo_tool()],
        history=history,
        transform_context=keep_last_two,
        convert_to_llm=convert,
    )

    assert [len(s) for s in seen] == [4, 6]
    first = fm.contexts[0].messages
    assert [m.role for m in first] == ["user", "user", "user"]
    assert [m.content for m in first] == ["[summary of earlier]", "three", "go"]
    second = fm.contexts[1].messages
    assert [m.role for m in second] == ["user", "assistant", "tool_result"]
    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "assistant"]


# --- agent_loop_continue ---------------------------------------------------------------------


def continue_config(fm: FauxModel) -> AgentLoopConfig:
    return AgentLoopConfig(model=fm.model, stream_fn=fm.stream)


def test_continue_rejects_an_empty_context() -> None:
    fm = FauxModel([faux_message("never")])
    with pytest.raises(ValueError):
        agent_loop_continue(AgentContext("", [], []), continue_config(fm))
    assert fm.contexts == []


def test_continue_rejects_a_trailing_assistant_message() -> None:
    fm = FauxModel([faux_message("never")])
    context = AgentContext("", [UserMessage("hi"), AssistantMessage([TextContent("hello")])], [])
    with pytest.raises(ValueError):
        agent_loop_continue(context, continue_config(fm))
    assert fm.contexts == []


async def test_continue_from_a_tool_result() -> None:
    call = faux_tool_call("echo", {"text": "x"}, id="k1")
    transcript = [
        UserMessage("go"),
        faux_message(call),
        ToolResultMessage("k1", "echo", [TextContent("x")]),
    ]
    context = AgentContext("", list(transcript), [echo_tool()])
    fm = FauxModel([faux_message("resumed")])

    stream = agent_loop_continue(context, continue_config(fm))
    events = [e async for e in stream]
    messages = await stream.result()

    assert [m.role for m in messages] == ["assistant"]
    assert messages[0].text() == "resumed"
    assert fm.contexts[0].messages == transcript
    assert context.messages == transcript
    assert collapse([e.type for e in events]) == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]


async def test_continue_from_a_user_message_runs_tools() -> None:
    recorder = Recorder()
    context = AgentContext("", [UserMessage("start")], [echo_tool(recorder=recorder)])
    fm = FauxModel([faux_message(faux_tool_call("echo", {"text": "y"})), faux_message("ok")])

    stream = agent_loop_continue(context, continue_config(fm))
    _ = [e async for e in stream]
    messages = await stream.result()

    assert recorder.params == [{"text": "y"}]
    assert [m.role for m in messages] == ["assistant", "tool_result", "assistant"]


# --- tools the model sees --------------------------------------------------------------------


class SearchArgs(pydantic.BaseModel):
    query: str
    limit: int = 10


async def test_model_sees_exactly_the_context_tools() -> None:
    async def search(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "found"

    tools = [
        echo_tool(),
        make_tool("search", search, SearchArgs, metadata={"secret": "never sent"}),
    ]
    fm = FauxModel([faux_message("ok")])
    await run(fm, tools)

    sent = fm.contexts[0].tools
    assert [t.name for t in sent] == ["echo", "search"]
    assert [t.description for t in sent] == ["The echo tool.", "The search tool."]
    assert sent[0].parameters == ECHO_SCHEMA
    assert isinstance(sent[1].parameters, dict)
    assert sent[1].parameters == {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"default": 10, "type": "integer"}},
        "required": ["query"],
    }  # pydantic's made-up titles ("Query", "SearchArgs") are left out
    assert sent[1].parameters["properties"]["query"]["type"] == "string"
    assert "query" in sent[1].parameters["required"]
    assert "secret" not in repr(sent)


async def test_model_sees_no_tools_when_none_are_given() -> None:
    fm = FauxModel([faux_message("ok")])
    await run(fm, [])
    assert fm.contexts[0].tools == []
