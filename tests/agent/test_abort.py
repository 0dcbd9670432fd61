"""Abort (``docs/concepts.md``): every tool call still gets exactly one result, and the run
stays live.

Cooperative tools stop when the signal fires; tools that ignore it are cancelled by the loop after
``abort_grace``; calls of a sequential batch that never started still get an "aborted" result.
"""

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from tether.agent import (
    AbortController,
    AbortSignal,
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    ToolError,
    agent_loop,
    tool,
)
from tether.ai import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call

OBJECT = {"type": "object", "properties": {}}


def make_tool(name: str, execute: Callable[..., Any], **options: Any) -> AgentTool:
    return AgentTool(name, name.title(), f"The {name} tool.", OBJECT, execute, **options)


async def run(
    fm: FauxModel,
    tools: list[AgentTool],
    controller: AbortController,
    *,
    abort_when: Callable[[], bool] | None = None,
    history: list[Any] | None = None,
    **config: Any,
) -> tuple[list[Any], list[Any], float]:
    """Run the loop; when ``abort_when`` becomes true, abort from a concurrent task."""
    config.setdefault("abort_grace", 0.1)
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", list(history or []), tools),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream, **config),
        controller.signal,
    )

    async def aborter() -> None:
        assert abort_when is not None
        while not abort_when():
            await asyncio.sleep(0.005)
        controller.abort()

    task = asyncio.create_task(aborter()) if abort_when is not None else None
    started = time.monotonic()
    events = [event async for event in stream]
    messages = await stream.result()
    elapsed = time.monotonic() - started
    if task is not None:
        assert task.done(), "the run ended before the abort was even sent"
        await task
    return events, messages, elapsed


def text_of(message: ToolResultMessage) -> str:
    return "".join(block.text for block in message.content if isinstance(block, TextContent))


def tool_results(messages: list[Any]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


def assert_transcript_valid(messages: list[Any]) -> None:
    """Every ToolCall id has exactly one ToolResultMessage, right after its assistant message,
    in the order the model wrote the calls."""
    call_ids = [
        block.id
        for m in messages
        if isinstance(m, AssistantMessage)
        for block in m.content
        if isinstance(block, ToolCall)
    ]
    result_ids = [m.tool_call_id for m in tool_results(messages)]
    assert Counter(result_ids) == Counter(call_ids)
    assert all(count == 1 for count in Counter(result_ids).values())
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            ids = [b.id for b in message.content if isinstance(b, ToolCall)]
            following = messages[index + 1 : index + 1 + len(ids)]
            assert [getattr(m, "tool_call_id", None) for m in following] == ids


def assert_all_aborted(results: list[ToolResultMessage]) -> None:
    for result in results:
        assert result.is_error, result
        assert "aborted" in text_of(result).lower(), text_of(result)


def end_events_by_id(events: list[Any]) -> Counter[str]:
    return Counter(e.tool_call_id for e in events if e.type == "tool_execution_end")


# --- single tools -------------------------------------------------------------------------------


async def test_cooperative_tool_stops_at_once_with_an_error_result() -> None:
    seen: dict[str, Any] = {}

    async def cooperative(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        seen["signal"] = signal
        seen["started"] = True
        try:
            await signal.wait()
            signal.throw_if_aborted()
            return "not reached"
        finally:
            seen["stopped"] = True

    controller = AbortController()
    fm = FauxModel(
        [faux_message(faux_tool_call("coop", {}, id="c1")), faux_message("never requested")]
    )
    # A long grace period: the run can only end quickly if the tool itself stopped.
    events, messages, elapsed = await run(
        fm,
        [make_tool("coop", cooperative)],
        controller,
        abort_when=lambda: "started" in seen,
        abort_grace=5.0,
    )

    assert elapsed < 1.5
    assert seen["signal"] is controller.signal
    assert seen["stopped"] is True
    [result] = tool_results(messages)
    assert result.tool_call_id == "c1"
    assert_all_aborted([result])
    assert "grace period" not in text_of(result)  # the tool's own failure, not a cancellation
    assert events[-1].type == "agent_end"
    assert len(fm.contexts) == 1


async def test_tool_ignoring_the_signal_is_cancelled_after_the_grace_period() -> None:
    state: dict[str, bool] = {}

    async def sleeper(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return "slept"

    controller = AbortController()
    fm = FauxModel([faux_message(faux_tool_call("sleepy", {}, id="s1")), faux_message("no")])
    events, messages, elapsed = await run(
        fm, [make_tool("sleepy", sleeper)], controller, abort_when=lambda: "started" in state
    )

    assert elapsed < 1.5
    assert state.get("cancelled") is True
    [result] = tool_results(messages)
    assert result.tool_call_id == "s1"
    assert_all_aborted([result])
    assert end_events_by_id(events) == Counter({"s1": 1})
    assert [e.type for e in events[-2:]] == ["turn_end", "agent_end"]


async def test_tool_swallowing_cancellation_does_not_hold_the_run() -> None:
    state: dict[str, bool] = {}
    release = asyncio.Event()

    async def stubborn(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["swallowed"] = True
            await release.wait()  # keeps running after the loop's cancel
        state["finished"] = True
        return "finished late"

    controller = AbortController()
    fm = FauxModel([faux_message(faux_tool_call("stubborn", {}, id="x1")), faux_message("no")])
    try:
        events, messages, elapsed = await run(
            fm, [make_tool("stubborn", stubborn)], controller, abort_when=lambda: "started" in state
        )
        assert elapsed < 1.5
        assert state.get("swallowed") is True
        assert "finished" not in state  # the run ended while the tool was still running
        [result] = tool_results(messages)
        assert_all_aborted([result])
        assert end_events_by_id(events) == Counter({"x1": 1})
        assert events[-1].type == "agent_end"
    finally:
        release.set()
    await asyncio.sleep(0.01)
    assert state.get("finished") is True
    # The late return was dropped: still exactly one result and one end event.
    assert len(tool_results(messages)) == 1
    assert end_events_by_id(events) == Counter({"x1": 1})


async def test_sync_tool_blocking_in_a_worker_thread_does_not_hold_the_run() -> None:
    started = threading.Event()
    release = threading.Event()  # lets the test end the thread early instead of waiting 2 s
    finished: list[bool] = []

    @tool
    def block() -> str:
        """Blocks its worker thread for 2 s, ignoring the abort signal."""
        started.set()
        release.wait(2)
        finished.append(True)
        return "done blocking"

    controller = AbortController()
    fm = FauxModel([faux_message(faux_tool_call("block", {}, id="b1")), faux_message("no")])
    try:
        events, messages, elapsed = await run(fm, [block], controller, abort_when=started.is_set)
        assert elapsed < 1.5
        assert not finished  # the thread was still blocked when the run ended
        [result] = tool_results(messages)
        assert result.tool_call_id == "b1"
        assert_all_aborted([result])
        assert events[-1].type == "agent_end"
    finally:
        release.set()
    for _ in range(100):
        if finished:
            break
        await asyncio.sleep(0.01)
    assert finished == [True]
    assert end_events_by_id(events) == Counter({"b1": 1})


# --- batches ------------------------------------------------------------------------------------


async def test_parallel_batch_of_three_aborted_gives_three_results_in_source_order() -> None:
    started: set[str] = set()
    release = threading.Event()

    async def cooperative(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        started.add(call_id)
        await signal.wait()
        raise ToolError("stopped: aborted by the user")

    async def sleeper(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        started.add(call_id)
        await asyncio.sleep(30)
        return "slept"

    @tool(name="blocker")
    def blocker(tool_call_id: str) -> str:
        """Blocks a worker thread."""
        started.add(tool_call_id)
        release.wait(2)
        return "unblocked"

    tools = [make_tool("coop", cooperative), make_tool("sleepy", sleeper), blocker]
    # Source order differs from any natural finishing order.
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("sleepy", {}, id="p1"),
                faux_tool_call("blocker", {}, id="p2"),
                faux_tool_call("coop", {}, id="p3"),
            ),
            faux_message("no"),
        ]
    )
    controller = AbortController()
    try:
        events, messages, elapsed = await run(
            fm, tools, controller, abort_when=lambda: len(started) == 3
        )
    finally:
        release.set()

    assert elapsed < 1.5
    results = tool_results(messages)
    assert [r.tool_call_id for r in results] == ["p1", "p2", "p3"]
    assert [r.tool_name for r in results] == ["sleepy", "blocker", "coop"]
    assert_all_aborted(results)
    turn_end = next(e for e in events if e.type == "turn_end" and e.tool_results)
    assert [r.tool_call_id for r in turn_end.tool_results] == ["p1", "p2", "p3"]
    assert end_events_by_id(events) == Counter({"p1": 1, "p2": 1, "p3": 1})
    assert_transcript_valid(messages)
    assert events[-1].type == "agent_end"


async def test_sequential_batch_aborted_midway_skips_later_calls_but_reports_them() -> None:
    executed: list[str] = []
    controller = AbortController()

    async def quick(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        executed.append(call_id)
        return "quick result"

    async def slow(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        executed.append(call_id)
        await asyncio.sleep(30)
        return "slow result"

    tools = [make_tool("quick", quick), make_tool("slow", slow, execution_mode="sequential")]
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("quick", {}, id="q1"),
                faux_tool_call("slow", {}, id="q2"),
                faux_tool_call("quick", {}, id="q3"),
                faux_tool_call("slow", {}, id="q4"),
            ),
            faux_message("no"),
        ]
    )
    events, messages, elapsed = await run(
        fm, tools, controller, abort_when=lambda: "q2" in executed
    )

    assert elapsed < 1.5
    assert executed == ["q1", "q2"]  # q3 and q4 never ran
    results = tool_results(messages)
    assert [r.tool_call_id for r in results] == ["q1", "q2", "q3", "q4"]
    assert results[0].is_error is False
    assert text_of(results[0]) == "quick result"
    assert_all_aborted(results[1:])
    assert end_events_by_id(events) == Counter({"q1": 1, "q2": 1, "q3": 1, "q4": 1})
    assert_transcript_valid(messages)
    assert events[-1].type == "agent_end"


async def test_config_sequential_batch_aborted_midway() -> None:
    executed: list[str] = []
    controller = AbortController()

    async def cooperative(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        executed.append(call_id)
        await signal.wait()
        signal.throw_if_aborted()
        return "unreachable"

    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("coop", {}, id="k1"),
                faux_tool_call("coop", {}, id="k2"),
                faux_tool_call("coop", {}, id="k3"),
            ),
            faux_message("no"),
        ]
    )
    _, messages, _ = await run(
        fm,
        [make_tool("coop", cooperative)],
        controller,
        abort_when=lambda: bool(executed),
        tool_execution="sequential",
    )
    assert executed == ["k1"]
    results = tool_results(messages)
    assert [r.tool_call_id for r in results] == ["k1", "k2", "k3"]
    assert_all_aborted(results)


# --- before and after a batch -------------------------------------------------------------------


async def test_abort_before_the_run_ends_it_with_an_aborted_message() -> None:
    executed: list[str] = []

    async def never(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        executed.append(call_id)
        return "ran"

    controller = AbortController()
    controller.abort()
    fm = FauxModel([faux_message(faux_text("thinking about it"), faux_tool_call("t", {}, id="a1"))])
    events, messages, elapsed = await run(fm, [make_tool("t", never)], controller)

    assert elapsed < 1.5
    assert [e.type for e in events] == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assistant = messages[-1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.stop_reason == "aborted"
    assert events[-2].message is assistant
    assert events[-1].messages == messages
    assert executed == []
    assert not tool_results(messages)


async def test_abort_mid_batch_ends_the_run_with_a_valid_transcript() -> None:
    started: list[str] = []
    history = [
        UserMessage("earlier"),
        faux_message(faux_tool_call("sleepy", {}, id="old1")),
        ToolResultMessage("old1", "sleepy", [TextContent("old result")], None, False),
        faux_message("earlier answer"),
    ]

    async def sleeper(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        started.append(call_id)
        await asyncio.sleep(30)
        return "slept"

    async def quick(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        return "quick"

    fm = FauxModel(
        [
            faux_message(
                faux_text("working"),
                faux_tool_call("quick", {}, id="m1"),
                faux_tool_call("sleepy", {}, id="m2"),
                faux_tool_call("missing", {}, id="m3"),
            ),
            faux_message("must not be requested"),
        ]
    )
    controller = AbortController()
    events, messages, _ = await run(
        fm,
        [make_tool("sleepy", sleeper), make_tool("quick", quick)],
        controller,
        abort_when=lambda: bool(started),
        history=history,
    )

    types = [e.type for e in events]
    assert types[-2:] == ["turn_end", "agent_end"]
    assert types.count("agent_end") == 1
    assert len(fm.contexts) == 1  # no further model request after the abort
    assert_transcript_valid([*history, *messages])
    results = tool_results(messages)
    assert [r.tool_call_id for r in results] == ["m1", "m2", "m3"]
    assert results[0].is_error is False
    assert results[1].is_error and "aborted" in text_of(results[1]).lower()
    assert results[2].is_error and "missing" in text_of(results[2])
    assert events[-1].messages == messages


async def test_abort_while_a_tool_call_streams_leaves_a_valid_transcript() -> None:
    async def never(call_id: str, params: Any, signal: AbortSignal, on_update: Any) -> str:
        return "ran"

    fm = FauxModel(
        [faux_message(faux_tool_call("t", {"text": "x" * 400}, id="z1"))],
        chunk_size=4,
        delay=0.002,
    )
    updates: list[Any] = []
    controller = AbortController()

    def tool_call_streaming() -> bool:
        return any(isinstance(b, ToolCall) for m in updates for b in getattr(m, "content", []))

    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [make_tool("t", never)]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream, abort_grace=0.1),
        controller.signal,
    )
    events = []
    async for event in stream:
        events.append(event)
        if event.type == "message_update":
            updates.append(event.message)
            if tool_call_streaming():
                controller.abort()
    messages = await stream.result()
    assert messages[-1].stop_reason == "aborted"
    assert events[-2].type == "turn_end" and events[-1].type == "agent_end"
    assert not any(e.type == "tool_execution_start" for e in events)

    # The next request never carries the cut-off call: the transcript stays valid to send.
    fm.append(faux_message("ok"))
    follow = agent_loop(
        [UserMessage("again")],
        AgentContext("", [UserMessage("go"), *messages[1:]], [make_tool("t", never)]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    await follow.result()
    assert_transcript_valid(fm.contexts[-1].messages)
    assert all(
        not isinstance(b, ToolCall)
        for m in fm.contexts[-1].messages
        if isinstance(m, AssistantMessage)
        for b in m.content
    )
