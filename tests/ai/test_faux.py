"""FauxModel: a scripted StreamFn that streams like a real provider and never raises."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from tether.ai import (
    AbortController,
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call


def context(*messages: Any) -> Context:
    return Context("", list(messages) or [UserMessage("hi")], [])


async def collect(
    fm: FauxModel, ctx: Context | None = None, options: StreamOptions | None = None
) -> list[Any]:
    return [
        event async for event in fm.stream(fm.model, ctx or context(), options or StreamOptions())
    ]


def types(events: list[Any]) -> list[str]:
    return [event.type for event in events]


# --- building messages --------------------------------------------------------------------------


def test_faux_message_stops_with_stop_for_text() -> None:
    message = faux_message(faux_text("hello"))
    assert isinstance(message, AssistantMessage)
    assert message.stop_reason == "stop"
    assert message.content == [TextContent("hello")]


def test_faux_message_stops_with_tool_use_when_a_tool_is_called() -> None:
    message = faux_message(faux_text("reading"), faux_tool_call("read", {"path": "a"}))
    assert message.stop_reason == "tool_use"
    assert message.tool_calls()[0].name == "read"


def test_faux_message_explicit_stop_reason_wins() -> None:
    assert faux_message(faux_tool_call("t", {}), stop_reason="length").stop_reason == "length"
    assert faux_message(faux_text("x"), stop_reason="error").stop_reason == "error"


def test_faux_message_plain_strings_become_text_blocks() -> None:
    assert faux_message("a", "b").content == [TextContent("a"), TextContent("b")]


def test_faux_message_without_content() -> None:
    message = faux_message()
    assert message.content == []
    assert message.stop_reason == "stop"


def test_faux_tool_call_ids() -> None:
    explicit = faux_tool_call("read", {"path": "a"}, id="call_7")
    assert explicit == ToolCall("call_7", "read", {"path": "a"})
    first, second = faux_tool_call("t", {}), faux_tool_call("t", {})
    assert first.id and second.id
    assert first.id != second.id


def test_faux_text() -> None:
    assert faux_text("hey") == TextContent("hey")


def test_chunk_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="chunk_size"):
        FauxModel([], chunk_size=0)


def test_model_is_a_model() -> None:
    fm = FauxModel()
    assert isinstance(fm.model, Model)
    custom = Model("m", "p", "a")
    assert FauxModel(model=custom).model is custom


# --- streaming ----------------------------------------------------------------------------------


async def test_text_step_streams_in_chunks() -> None:
    text = "Hello, streaming world!"
    fm = FauxModel([faux_message(faux_text(text))], chunk_size=4)
    events = await collect(fm)
    deltas = [e for e in events if e.type == "text_delta"]
    assert types(events) == ["start", "text_start"] + ["text_delta"] * len(deltas) + [
        "text_end",
        "done",
    ]
    assert len(deltas) == 6  # ceil(23 / 4)
    assert all(len(d.delta) <= 4 for d in deltas)
    assert "".join(d.delta for d in deltas) == text
    assert all(d.content_index == 0 for d in deltas)
    end = events[-2]
    assert end.content == text
    done = events[-1]
    assert done.message.content == [TextContent(text)]
    assert done.message.stop_reason == "stop"
    assert done.message.model == fm.model.id
    assert done.message.provider == fm.model.provider


async def test_partial_text_grows_with_each_delta() -> None:
    fm = FauxModel([faux_text("abcdefghij")], chunk_size=3)
    seen: list[str] = []
    async for event in fm.stream(fm.model, context(), StreamOptions()):
        if event.type == "text_delta":
            seen.append(event.partial.content[0].text)
    assert seen == ["abc", "abcdef", "abcdefghi", "abcdefghij"]


async def test_tool_call_step_streams_arguments() -> None:
    arguments = {"path": "src/main.py", "lines": [1, 2, 3], "opts": {"raw": True, "enc": "utf-8"}}
    fm = FauxModel(
        [faux_message(faux_tool_call("read", arguments, id="call_1"))],
        chunk_size=4,
    )
    snapshots: list[Any] = []
    events: list[Any] = []
    async for event in fm.stream(fm.model, context(), StreamOptions()):
        events.append(event)
        if event.type == "toolcall_delta":
            snapshots.append(copy.deepcopy(event.partial.content[0].arguments))
    deltas = [e for e in events if e.type == "toolcall_delta"]
    assert types(events) == ["start", "toolcall_start"] + ["toolcall_delta"] * len(deltas) + [
        "toolcall_end",
        "done",
    ]
    assert len(deltas) > 3
    assert json.loads("".join(d.delta for d in deltas)) == arguments
    assert all(isinstance(s, dict) for s in snapshots)
    assert snapshots[-1] == arguments
    for snapshot in snapshots:  # partial strings are prefixes of the final ones
        if isinstance(snapshot.get("path"), str):
            assert arguments["path"].startswith(snapshot["path"])
    end = events[-2]
    assert end.tool_call == ToolCall("call_1", "read", arguments)
    assert end.tool_call.arguments is not arguments  # a copy, not the scripted dict
    done = events[-1]
    assert done.message.stop_reason == "tool_use"
    assert done.message.tool_calls() == [ToolCall("call_1", "read", arguments)]


async def test_tool_call_with_empty_arguments() -> None:
    fm = FauxModel([faux_tool_call("ls", {}, id="c")])
    events = await collect(fm)
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call == ToolCall("c", "ls", {})
    assert events[-1].type == "done"


async def test_thinking_block_streams() -> None:
    fm = FauxModel(
        [faux_message(ThinkingContent("let me think about it"), faux_text("ok"))], chunk_size=5
    )
    events = await collect(fm)
    thinking = [e for e in events if e.type.startswith("thinking")]
    assert thinking[0].type == "thinking_start"
    assert thinking[-1].type == "thinking_end"
    assert "".join(e.delta for e in thinking if e.type == "thinking_delta") == (
        "let me think about it"
    )
    assert thinking[-1].content == "let me think about it"
    assert all(e.content_index == 0 for e in thinking)
    text_start = next(e for e in events if e.type == "text_start")
    assert text_start.content_index == 1
    assert events[-1].message.content == [
        ThinkingContent("let me think about it"),
        TextContent("ok"),
    ]


async def test_mixed_blocks_keep_order_and_indices() -> None:
    script = faux_message(
        ThinkingContent("plan"),
        faux_text("I'll read two files."),
        faux_tool_call("read", {"path": "a"}, id="c1"),
        faux_tool_call("read", {"path": "b"}, id="c2"),
    )
    fm = FauxModel([script], chunk_size=8)
    events = await collect(fm)
    starts = [(e.type, e.content_index) for e in events if e.type.endswith("_start")]
    assert starts == [
        ("thinking_start", 0),
        ("text_start", 1),
        ("toolcall_start", 2),
        ("toolcall_start", 3),
    ]
    assert [(e.type, e.content_index) for e in events if e.type.endswith("_end")] == [
        ("thinking_end", 0),
        ("text_end", 1),
        ("toolcall_end", 2),
        ("toolcall_end", 3),
    ]
    assert events[-1].message.content == script.content


async def test_partial_is_the_same_object_in_every_event() -> None:
    fm = FauxModel(
        [faux_message(ThinkingContent("t"), faux_text("hello"), faux_tool_call("x", {"a": 1}))],
        chunk_size=2,
    )
    events = await collect(fm)
    partial = events[0].partial
    assert isinstance(partial, AssistantMessage)
    assert all(event.partial is partial for event in events)
    assert events[-1].message is partial


async def test_usage_and_stop_reason_are_played_back() -> None:
    message = faux_message(faux_text("x"), stop_reason="length")
    message.usage = Usage(input=10, output=2, total_tokens=12, cost=0.5)
    fm = FauxModel([message])
    done = (await collect(fm))[-1]
    assert done.type == "done"
    assert done.message.stop_reason == "length"
    assert done.message.usage == Usage(input=10, output=2, total_tokens=12, cost=0.5)


async def test_scripted_error_step_ends_in_an_error_event() -> None:
    message = faux_message(faux_text("partial answer"), stop_reason="error")
    message.error_message = "provider overloaded"
    events = await collect(FauxModel([message]))
    assert events[0].type == "start"
    assert events[-1].type == "error"
    assert events[-1].message.stop_reason == "error"
    assert events[-1].message.error_message == "provider overloaded"


async def test_step_kinds() -> None:
    fm = FauxModel(
        [
            faux_text("a block"),
            [faux_text("a "), faux_text("list")],
            faux_message(faux_text("a message")),
            lambda ctx: faux_message(faux_text("a callable")),
        ]
    )
    texts = []
    for _ in range(4):
        events = await collect(fm)
        assert events[-1].type == "done"
        texts.append(events[-1].message.text())
    assert texts == ["a block", "a list", "a message", "a callable"]


async def test_callable_step_receives_the_context() -> None:
    received: list[Context] = []

    def step(ctx: Context) -> AssistantMessage:
        received.append(ctx)
        last = ctx.messages[-1]
        return faux_message(faux_text(f"you said: {last.content}"))

    fm = FauxModel([step])
    ctx = context(UserMessage("ping"))
    events = await collect(fm, ctx)
    assert received == [ctx]
    assert events[-1].message.text() == "you said: ping"


async def test_contexts_records_every_context_as_a_copy() -> None:
    fm = FauxModel([faux_text("one"), faux_text("two")])
    messages: list[Any] = [UserMessage("first")]
    ctx = Context("system", messages, [])
    await collect(fm, ctx)
    messages.append(UserMessage("second"))
    await collect(fm, ctx)
    messages.append(UserMessage("third"))
    assert len(fm.contexts) == 2
    assert [m.content for m in fm.contexts[0].messages] == ["first"]
    assert [m.content for m in fm.contexts[1].messages] == ["first", "second"]
    assert fm.contexts[0].system_prompt == "system"
    assert fm.contexts[0].messages is not messages


async def test_exhausted_script_yields_a_single_error_event() -> None:
    fm = FauxModel([faux_text("only")])
    await collect(fm)
    events = await collect(fm)  # does not raise
    assert types(events) == ["error"]
    error = events[0]
    assert error.message.stop_reason == "error"
    assert "exhausted" in error.message.error_message
    assert error.message.content == []
    assert len(fm.contexts) == 2  # the unanswered request is recorded too


async def test_empty_script_is_exhausted_at_once() -> None:
    events = await collect(FauxModel())
    assert types(events) == ["error"]
    assert events[0].message.stop_reason == "error"


async def test_raising_step_yields_an_error_event() -> None:
    def broken(_ctx: Context) -> AssistantMessage:
        raise RuntimeError("scripted failure")

    fm = FauxModel([broken, faux_text("after")])
    events = await collect(fm)  # does not raise
    assert events[-1].type == "error"
    assert events[-1].message.stop_reason == "error"
    assert "scripted failure" in events[-1].message.error_message
    assert "RuntimeError" in events[-1].message.error_message
    assert "start" not in types(events)
    following = await collect(fm)  # the script moves on
    assert following[-1].message.text() == "after"


async def test_step_returning_a_non_message_yields_an_error_event() -> None:
    fm = FauxModel([lambda ctx: "not a message"])  # type: ignore[list-item, arg-type, return-value]
    events = await collect(fm)
    assert events[-1].type == "error"
    assert events[-1].message.stop_reason == "error"
    assert "AssistantMessage" in events[-1].message.error_message


async def test_abort_before_the_stream() -> None:
    controller = AbortController()
    controller.abort()
    fm = FauxModel([faux_text("never streamed")], delay=0, chunk_size=2)
    events = await collect(fm, options=StreamOptions(signal=controller.signal))
    assert events[-1].type == "error"
    assert events[-1].message.stop_reason == "aborted"
    assert events[-1].message.error_message
    assert "text_delta" not in types(events)
    assert types(events).count("error") == 1


async def test_abort_between_deltas() -> None:
    controller = AbortController()
    fm = FauxModel([faux_text("abcdefghijklmnop")], delay=0, chunk_size=2)
    events: list[Any] = []
    async for event in fm.stream(fm.model, context(), StreamOptions(signal=controller.signal)):
        events.append(event)
        if event.type == "text_delta":
            controller.abort("stop now")
    # the open block is closed before the error, as every provider's assembler does
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "error"]
    final = events[-1].message
    assert final.stop_reason == "aborted"
    assert final.error_message
    assert final.content[0].text.startswith("ab")


async def test_aborted_message_holds_only_what_was_streamed() -> None:
    controller = AbortController()
    fm = FauxModel([faux_text("abcdefghijklmnop")], delay=0, chunk_size=2)
    streamed = ""
    final = None
    async for event in fm.stream(fm.model, context(), StreamOptions(signal=controller.signal)):
        if event.type == "text_delta":
            streamed += event.delta
            controller.abort()
        if event.type == "error":
            final = event.message
    assert streamed == "ab"
    assert final is not None
    assert final.content == [TextContent(streamed)]


async def test_abort_from_another_task_while_streaming() -> None:
    controller = AbortController()
    fm = FauxModel([faux_text("x" * 200)], delay=0, chunk_size=1)

    async def abort_soon() -> None:
        for _ in range(5):
            await asyncio.sleep(0)
        controller.abort()

    aborter = asyncio.create_task(abort_soon())
    events = await collect(fm, options=StreamOptions(signal=controller.signal))
    await aborter
    assert events[-1].type == "error"
    assert events[-1].message.stop_reason == "aborted"
    assert types(events).count("text_delta") < 200


async def test_abort_after_the_stream_finished_changes_nothing() -> None:
    controller = AbortController()
    fm = FauxModel([faux_text("done")], delay=0)
    events = await collect(fm, options=StreamOptions(signal=controller.signal))
    controller.abort()
    assert events[-1].type == "done"
    assert events[-1].message.stop_reason == "stop"


async def test_remaining_and_append() -> None:
    fm = FauxModel([faux_text("one")])
    assert fm.remaining == 1
    await collect(fm)
    assert fm.remaining == 0
    fm.append(faux_text("two"), faux_text("three"))
    assert fm.remaining == 2
    assert (await collect(fm))[-1].message.text() == "two"
    assert fm.remaining == 1
    assert (await collect(fm))[-1].message.text() == "three"
    assert fm.remaining == 0
    assert types(await collect(fm)) == ["error"]


async def test_append_after_exhaustion_resumes() -> None:
    fm = FauxModel()
    assert types(await collect(fm)) == ["error"]
    fm.append(faux_text("late"))
    assert (await collect(fm))[-1].message.text() == "late"


async def test_same_step_replayed_is_streamed_independently() -> None:
    message = faux_message(faux_text("same"))
    fm = FauxModel([message, message])
    first = (await collect(fm))[-1].message
    second = (await collect(fm))[-1].message
    assert first.content == second.content == [TextContent("same")]
    assert first is not second
    assert first.content[0] is not second.content[0]
    assert first is not message
    assert message.content == [TextContent("same")]  # the script itself is not consumed


async def test_delay_paces_without_changing_the_events() -> None:
    plain = await collect(FauxModel([faux_text("abcdef")], chunk_size=2))
    paced = await collect(FauxModel([faux_text("abcdef")], chunk_size=2, delay=0))
    assert types(plain) == types(paced)
    assert plain[-1].message.content == paced[-1].message.content
