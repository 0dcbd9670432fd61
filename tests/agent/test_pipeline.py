"""The tool pipeline (``docs/concepts.md``): per-call steps, error results, batches."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pydantic
import pytest

from tether.agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    ToolError,
    agent_loop,
    tool,
)
from tether.ai import AbortSignal, TextContent, ToolCall, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call

from .support import (
    ECHO_SCHEMA,
    Recorder,
    Run,
    collapse,
    echo_tool,
    make_tool,
    run,
    slow_tool,
    text_of,
)


def script(*calls: ToolCall) -> FauxModel:
    """One assistant message with ``calls``, then a closing text answer."""
    return FauxModel([faux_message(*calls), faux_message("done")])


async def one_call(tools: list[Any], name: str, arguments: dict[str, Any], **config: Any) -> Run:
    return await run(script(faux_tool_call(name, arguments, id="only")), tools, **config)


def only_result(result: Run) -> ToolResultMessage:
    (tool_result,) = result.tool_results
    assert tool_result.tool_call_id == "only"
    return tool_result


class Concurrency:
    """Counts how many calls run at once; each call logs its start and end."""

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.log: list[tuple[str, str]] = []

    def tool(self, name: str, delay: float, **options: Any) -> Any:
        async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.log.append(("start", tool_call_id))
            await asyncio.sleep(delay)
            self.log.append(("end", tool_call_id))
            self.active -= 1
            return f"{tool_call_id} finished"

        return make_tool(name, execute, **options)


# --- parallel batches ------------------------------------------------------------------------


async def test_parallel_ends_in_completion_order_results_in_source_order() -> None:
    log: list[tuple[str, str]] = []
    tools = [slow_tool("slow", log, delay=0.03), slow_tool("fast", log)]
    fm = script(
        faux_tool_call("slow", {}, id="a"),
        faux_tool_call("fast", {}, id="b"),
        faux_tool_call("fast", {}, id="c"),
    )
    result = await run(fm, tools)

    assert [e.tool_call_id for e in result.of("tool_execution_start")] == ["a", "b", "c"]
    assert [e.tool_call_id for e in result.of("tool_execution_end")] == ["b", "c", "a"]
    result_ends = [
        e.message.tool_call_id
        for e in result.of("message_end")
        if isinstance(e.message, ToolResultMessage)
    ]
    assert result_ends == ["a", "b", "c"]
    turn_end = result.of("turn_end")[0]
    assert [r.tool_call_id for r in turn_end.tool_results] == ["a", "b", "c"]
    assert [r.tool_call_id for r in result.tool_results] == ["a", "b", "c"]
    assert [m.tool_call_id for m in fm.contexts[1].messages[2:]] == ["a", "b", "c"]
    # three phases: every start before any end, every end before the first result message
    types = result.types
    last_start = max(i for i, t in enumerate(types) if t == "tool_execution_start")
    first_end = types.index("tool_execution_end")
    last_end = max(i for i, t in enumerate(types) if t == "tool_execution_end")
    first_result = next(
        i
        for i, e in enumerate(result.events)
        if e.type == "message_start" and isinstance(e.message, ToolResultMessage)
    )
    assert last_start < first_end
    assert last_end < first_result


async def test_parallel_tools_overlap() -> None:
    counter = Concurrency()
    tools = [counter.tool("work", 0.01)]
    fm = script(*(faux_tool_call("work", {}, id=f"w{i}") for i in range(3)))
    await run(fm, tools)
    assert counter.peak == 3


async def test_every_before_hook_runs_before_any_tool_executes() -> None:
    log: list[str] = []

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        log.append(f"exec {tool_call_id}")
        return "ok"

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        log.append(f"hook {ctx.tool_call.id}")
        await asyncio.sleep(0)

    fm = script(*(faux_tool_call("work", {}, id=f"w{i}") for i in range(3)))
    await run(fm, [make_tool("work", execute)], before_tool_call=before)

    assert log[:3] == ["hook w0", "hook w1", "hook w2"]
    assert sorted(log[3:]) == ["exec w0", "exec w1", "exec w2"]


async def test_counting_hook_blocks_the_fourth_call() -> None:
    recorder = Recorder()
    count = 0

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> BeforeToolCallResult:
        nonlocal count
        count += 1
        if count > 3:
            return BeforeToolCallResult(block=True, reason="Write limit: at most 3 per turn.")
        return BeforeToolCallResult()

    fm = script(*(faux_tool_call("echo", {"text": str(i)}, id=f"e{i}") for i in range(4)))
    result = await run(fm, [echo_tool(recorder=recorder)], before_tool_call=before)

    assert recorder.params == [{"text": "0"}, {"text": "1"}, {"text": "2"}]
    assert [r.is_error for r in result.tool_results] == [False, False, False, True]
    assert text_of(result.tool_results[3]) == "Write limit: at most 3 per turn."
    assert [r.tool_call_id for r in result.tool_results] == ["e0", "e1", "e2", "e3"]


async def test_calls_failing_preparation_end_at_once() -> None:
    log: list[tuple[str, str]] = []
    fm = script(faux_tool_call("slow", {}, id="a"), faux_tool_call("missing", {}, id="b"))
    result = await run(fm, [slow_tool("slow", log, delay=0.01)])

    ids = [(e.type, e.tool_call_id) for e in result.events if e.type.startswith("tool_execution")]
    assert ids == [
        ("tool_execution_start", "a"),
        ("tool_execution_start", "b"),
        ("tool_execution_end", "b"),
        ("tool_execution_end", "a"),
    ]
    assert [r.tool_call_id for r in result.tool_results] == ["a", "b"]
    assert [r.is_error for r in result.tool_results] == [False, True]


# --- sequential batches ----------------------------------------------------------------------


def assert_each_call_completes_before_the_next(result: Run, counter: Concurrency) -> None:
    assert counter.peak == 1
    assert counter.log == [
        ("start", "s0"),
        ("end", "s0"),
        ("start", "s1"),
        ("end", "s1"),
        ("start", "s2"),
        ("end", "s2"),
    ]
    types = collapse(result.types)
    batch_start = types.index("tool_execution_start")
    batch = types[batch_start : types.index("turn_end")]
    step = ["tool_execution_start", "tool_execution_end", "message_start", "message_end"]
    assert batch == step * 3
    assert [r.tool_call_id for r in result.tool_results] == ["s0", "s1", "s2"]


async def test_one_sequential_tool_makes_the_whole_batch_sequential() -> None:
    counter = Concurrency()
    tools = [
        counter.tool("parallel_ok", 0.01),
        counter.tool("one_at_a_time", 0.01, execution_mode="sequential"),
    ]
    fm = script(
        faux_tool_call("parallel_ok", {}, id="s0"),
        faux_tool_call("one_at_a_time", {}, id="s1"),
        faux_tool_call("parallel_ok", {}, id="s2"),
    )
    result = await run(fm, tools)
    assert_each_call_completes_before_the_next(result, counter)


async def test_config_sequential_makes_the_batch_sequential() -> None:
    counter = Concurrency()
    fm = script(*(faux_tool_call("work", {}, id=f"s{i}") for i in range(3)))
    result = await run(fm, [counter.tool("work", 0.01)], tool_execution="sequential")
    assert_each_call_completes_before_the_next(result, counter)


async def test_sequential_runs_each_calls_hooks_in_turn() -> None:
    log: list[str] = []

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        log.append(f"exec {tool_call_id}")
        return "ok"

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        log.append(f"before {ctx.tool_call.id}")

    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> None:
        log.append(f"after {ctx.tool_call.id}")

    fm = script(*(faux_tool_call("work", {}, id=f"s{i}") for i in range(2)))
    await run(
        fm,
        [make_tool("work", execute)],
        tool_execution="sequential",
        before_tool_call=before,
        after_tool_call=after,
    )
    assert log == ["before s0", "exec s0", "after s0", "before s1", "exec s1", "after s1"]


# --- the six error sources -------------------------------------------------------------------


def assert_error(result: Run, *needles: str) -> str:
    tool_result = only_result(result)
    (end,) = result.of("tool_execution_end")
    assert tool_result.is_error is True
    assert end.is_error is True
    text = text_of(tool_result)
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    # the loop carries on: the model gets the error result on its next turn
    assert result.messages[-1].text() == "done"
    return text


async def test_unknown_tool_names_it_and_lists_the_available_tools() -> None:
    recorder = Recorder()
    tools = [echo_tool(recorder=recorder), echo_tool("read_file")]
    result = await one_call(tools, "delete_everything", {})
    assert_error(result, "delete_everything", "echo", "read_file")
    assert recorder.count == 0


async def test_prepare_arguments_raising_is_an_error_result() -> None:
    recorder = Recorder()

    def prepare(args: Any) -> Any:
        raise ValueError("cannot repair legacy argument 'txt'")

    tools = [echo_tool(recorder=recorder, prepare_arguments=prepare)]
    result = await one_call(tools, "echo", {"txt": "hi"})
    assert_error(result, "cannot repair legacy argument 'txt'", "echo")
    assert recorder.count == 0


async def test_validation_failure_names_tool_paths_reasons_and_arguments() -> None:
    recorder = Recorder()
    schema = {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "flag": {"type": "boolean"}},
        "required": ["count", "flag"],
    }

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        recorder.params.append(params)
        return "ran"

    result = await one_call(
        [make_tool("counter", execute, schema)], "counter", {"count": "many", "flag": "maybe"}
    )
    text = assert_error(result, '"counter"', "count", "flag", "integer", "boolean")
    assert '{"count": "many", "flag": "maybe"}' in text
    assert recorder.count == 0


async def test_validation_failure_reports_a_missing_required_argument() -> None:
    recorder = Recorder()
    result = await one_call([echo_tool(recorder=recorder)], "echo", {"other": 1})
    assert_error(result, '"echo"', "text", '{"other": 1}')
    assert recorder.count == 0


async def test_before_hook_block_carries_its_reason() -> None:
    recorder = Recorder()

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> BeforeToolCallResult:
        return BeforeToolCallResult(block=True, reason="Policy: echo is disabled in prod.")

    result = await one_call(
        [echo_tool(recorder=recorder)], "echo", {"text": "x"}, before_tool_call=before
    )
    text = assert_error(result)
    assert text == "Policy: echo is disabled in prod."
    assert recorder.count == 0


async def test_before_hook_block_without_reason_gets_a_default_reason() -> None:
    recorder = Recorder()

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> BeforeToolCallResult:
        return BeforeToolCallResult(block=True)

    result = await one_call(
        [echo_tool(recorder=recorder)], "echo", {"text": "x"}, before_tool_call=before
    )
    text = assert_error(result, "echo")
    assert "block" in text.lower()
    assert recorder.count == 0


async def test_before_hook_raising_is_an_error_result() -> None:
    recorder = Recorder()

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        raise RuntimeError("policy store unreachable")

    result = await one_call(
        [echo_tool(recorder=recorder)], "echo", {"text": "x"}, before_tool_call=before
    )
    assert_error(result, "policy store unreachable")
    assert recorder.count == 0


async def test_execute_raising_is_an_error_result_with_the_message() -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        raise ValueError("bad")

    result = await one_call([make_tool("broken", execute)], "broken", {})
    assert_error(result, "ValueError: bad")


async def test_after_hook_raising_is_an_error_result() -> None:
    recorder = Recorder()

    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> None:
        raise KeyError("audit log full")

    result = await one_call(
        [echo_tool(recorder=recorder)], "echo", {"text": "x"}, after_tool_call=after
    )
    assert_error(result, "audit log full")
    assert recorder.count == 1


async def test_every_error_source_in_one_batch_gives_one_result_per_call() -> None:
    async def boom(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        raise RuntimeError("exploded")

    def bad_prepare(args: Any) -> Any:
        raise RuntimeError("prepare broke")

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> Any:
        if ctx.tool_call.id == "blocked":
            return BeforeToolCallResult(block=True, reason="nope")
        if ctx.tool_call.id == "hook_raises":
            raise RuntimeError("before broke")
        return None

    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> None:
        if ctx.tool_call.id == "after_raises":
            raise RuntimeError("after broke")

    tools = [echo_tool(), make_tool("boom", boom), echo_tool("prep", prepare_arguments=bad_prepare)]
    calls = [
        faux_tool_call("ghost", {}, id="unknown"),
        faux_tool_call("prep", {"text": "x"}, id="prepare"),
        faux_tool_call("echo", {}, id="invalid"),
        faux_tool_call("echo", {"text": "x"}, id="blocked"),
        faux_tool_call("echo", {"text": "x"}, id="hook_raises"),
        faux_tool_call("boom", {}, id="execute"),
        faux_tool_call("echo", {"text": "x"}, id="after_raises"),
        faux_tool_call("echo", {"text": "fine"}, id="ok"),
    ]
    result = await run(script(*calls), tools, before_tool_call=before, after_tool_call=after)

    assert [r.tool_call_id for r in result.tool_results] == [c.id for c in calls]
    assert [r.is_error for r in result.tool_results] == [True] * 7 + [False]
    assert sorted(e.tool_call_id for e in result.of("tool_execution_end")) == sorted(
        c.id for c in calls
    )
    assert all(text_of(r) for r in result.tool_results)


# --- validation and coercion through the loop ------------------------------------------------


async def test_arguments_are_coerced_before_the_tool_sees_them() -> None:
    recorder = Recorder()
    hook_args: list[Any] = []
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "opt": {"type": "string"},
        },
        "required": ["s", "n", "b"],
    }

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        recorder.params.append(params)
        return "ok"

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        hook_args.append((ctx.args, dict(ctx.tool_call.arguments)))

    raw = {"s": 42, "n": "3", "b": "true", "opt": None}
    result = await one_call(
        [make_tool("typed", execute, schema)], "typed", raw, before_tool_call=before
    )

    (received,) = recorder.params
    assert received == {"s": "42", "n": 3, "b": True}
    assert isinstance(received["n"], int | float) and not isinstance(received["n"], bool)
    assert received["b"] is True
    assert "opt" not in received
    assert hook_args == [({"s": "42", "n": 3, "b": True}, raw)]
    assert only_result(result).is_error is False
    # the transcript keeps what the model actually sent
    assert result.messages[1].tool_calls()[0].arguments == raw


async def test_prepare_arguments_works_on_a_copy() -> None:
    recorder = Recorder()
    raw = {"text": "original", "tags": ["a"]}
    seen_by_hook: list[Any] = []

    def prepare(args: Any) -> Any:
        args["tags"].append("mutated")
        args["text"] = "prepared " + args["text"]
        return args

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        seen_by_hook.append(ctx.tool_call.arguments)

    tool_ = echo_tool(recorder=recorder, prepare_arguments=prepare)
    tool_.parameters = {**ECHO_SCHEMA, "properties": {**ECHO_SCHEMA["properties"], "tags": {}}}
    result = await one_call([tool_], "echo", raw, before_tool_call=before)

    assert recorder.params[0]["text"] == "prepared original"
    assert recorder.params[0]["tags"] == ["a", "mutated"]
    transcript_args = result.messages[1].tool_calls()[0].arguments
    assert transcript_args == {"text": "original", "tags": ["a"]}
    assert seen_by_hook == [{"text": "original", "tags": ["a"]}]
    assert result.of("tool_execution_start")[0].args == {"text": "original", "tags": ["a"]}


async def test_prepare_arguments_output_is_validated() -> None:
    recorder = Recorder()

    def prepare(args: Any) -> Any:
        return {"text": args.pop("txt")} if "txt" in args else args

    result = await one_call(
        [echo_tool(recorder=recorder, prepare_arguments=prepare)], "echo", {"txt": "legacy"}
    )
    assert recorder.params == [{"text": "legacy"}]
    assert only_result(result).is_error is False


# --- after_tool_call overrides and added_tool_names ------------------------------------------


def rich_tool(recorder: Recorder | None = None) -> Any:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return AgentToolResult(
            [TextContent("original output")],
            details={"lines": 3},
            added_tool_names=["extra_tool"],
        )

    return make_tool("rich", execute)


async def test_after_hook_setting_only_is_error_keeps_everything_else() -> None:
    seen: list[tuple[str, bool]] = []

    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        seen.append((text_of(ctx.result), ctx.is_error))
        return AfterToolCallResult(is_error=True)

    result = await one_call([rich_tool()], "rich", {}, after_tool_call=after)

    assert seen == [("original output", False)]
    tool_result = only_result(result)
    assert tool_result.is_error is True
    assert text_of(tool_result) == "original output"
    assert tool_result.details == {"lines": 3}
    assert tool_result.added_tool_names == ["extra_tool"]
    assert result.of("tool_execution_end")[0].is_error is True


async def test_after_hook_replacing_content_keeps_is_error_and_details() -> None:
    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        return AfterToolCallResult(content=[TextContent("redacted")])

    result = await one_call([rich_tool()], "rich", {}, after_tool_call=after)

    tool_result = only_result(result)
    assert text_of(tool_result) == "redacted"
    assert tool_result.is_error is False
    assert tool_result.details == {"lines": 3}
    assert tool_result.added_tool_names == ["extra_tool"]


async def test_after_hook_can_clear_an_error() -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        raise RuntimeError("flaky")

    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        assert ctx.is_error is True
        return AfterToolCallResult(content=[TextContent("recovered")], is_error=False)

    result = await one_call([make_tool("flaky", execute)], "flaky", {}, after_tool_call=after)
    tool_result = only_result(result)
    assert (tool_result.is_error, text_of(tool_result)) == (False, "recovered")


async def test_after_hook_terminate_ends_the_run() -> None:
    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult:
        return AfterToolCallResult(terminate=True)

    fm = script(faux_tool_call("echo", {"text": "x"}))
    await run(fm, [echo_tool()], after_tool_call=after)
    assert len(fm.contexts) == 1
    assert fm.remaining == 1


@pytest.mark.parametrize(
    ("given", "stored"), [([], None), (None, None), (["web_fetch"], ["web_fetch"])]
)
async def test_added_tool_names_only_when_non_empty(given: Any, stored: Any) -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return AgentToolResult([TextContent("ok")], added_tool_names=given)

    result = await one_call([make_tool("activate", execute)], "activate", {})
    assert only_result(result).added_tool_names == stored
    assert result.of("turn_end")[0].tool_results[0].added_tool_names == stored


# --- on_update -------------------------------------------------------------------------------


async def test_updates_before_returning_arrive_before_the_end() -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        for step in range(3):
            on_update(AgentToolResult([TextContent(f"{tool_call_id} {step}")]))
            await asyncio.sleep(0)
        on_update(AgentToolResult([TextContent(f"{tool_call_id} last")]))
        return "finished"

    fm = script(faux_tool_call("steps", {}, id="p"), faux_tool_call("steps", {}, id="q"))
    result = await run(fm, [make_tool("steps", execute)])

    for call_id in ("p", "q"):
        mine = [
            (i, e)
            for i, e in enumerate(result.events)
            if getattr(e, "tool_call_id", None) == call_id
            and e.type in ("tool_execution_update", "tool_execution_end")
        ]
        assert [e.type for _, e in mine] == ["tool_execution_update"] * 4 + ["tool_execution_end"]
        assert [text_of(e.partial_result) for _, e in mine[:4]] == [
            f"{call_id} 0",
            f"{call_id} 1",
            f"{call_id} 2",
            f"{call_id} last",
        ]


async def test_updates_from_a_worker_thread_arrive_before_the_end() -> None:
    @tool
    def crunch(on_update: Any) -> str:
        """Reports progress from a worker thread."""
        for step in range(5):
            on_update(AgentToolResult([TextContent(f"progress {step}")]))
        return "crunched"

    result = await one_call([crunch], "crunch", {})

    updates = result.of("tool_execution_update")
    assert [text_of(u.partial_result) for u in updates] == [f"progress {i}" for i in range(5)]
    types = [t for t in result.types if t.startswith("tool_execution")]
    assert types == ["tool_execution_start"] + ["tool_execution_update"] * 5 + [
        "tool_execution_end"
    ]


async def test_on_update_after_the_tool_returned_is_dropped() -> None:
    kept: list[Any] = []

    async def keep(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        kept.append(on_update)
        return "kept"

    async def late(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        kept[0](AgentToolResult([TextContent("late, from a later turn")]))
        return "called it"

    fm = FauxModel(
        [
            faux_message(faux_tool_call("keep", {}, id="k")),
            faux_message(faux_tool_call("late", {}, id="l")),
            faux_message("done"),
        ]
    )
    context_tools = [make_tool("keep", keep), make_tool("late", late)]
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], context_tools),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    events = [e async for e in stream]
    await stream.result()

    assert [e.type for e in events].count("tool_execution_update") == 0
    assert events[-1].type == "agent_end"
    assert events[-1].messages[-1].text() == "done"

    kept[0](AgentToolResult([TextContent("after the run")]))
    assert [e async for e in stream] == []


async def test_parallel_on_update_after_settling_is_dropped() -> None:
    kept: list[Any] = []
    released = asyncio.Event()

    async def quick(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        kept.append(on_update)
        released.set()
        return "quick"

    async def slow(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        await released.wait()
        await asyncio.sleep(0.01)
        kept[0](AgentToolResult([TextContent("stale")]))
        on_update(AgentToolResult([TextContent("fresh")]))
        return "slow"

    fm = script(faux_tool_call("slow", {}, id="s"), faux_tool_call("quick", {}, id="q"))
    result = await run(fm, [make_tool("slow", slow), make_tool("quick", quick)])

    updates = [
        (u.tool_call_id, text_of(u.partial_result)) for u in result.of("tool_execution_update")
    ]
    assert updates == [("s", "fresh")]


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_tool_raising_cancelled_error_at_once_still_gets_a_result(mode: Any) -> None:
    cancelled: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    cancelled.cancel()

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return await cancelled

    result = await one_call([make_tool("shared", execute)], "shared", {}, tool_execution=mode)
    assert_error(result, "shared")
    assert result.types[-1] == "agent_end"


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_tool_raising_cancelled_error_after_suspending_gets_a_result(mode: Any) -> None:
    cancelled: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    cancelled.cancel()

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        await asyncio.sleep(0)
        return await cancelled

    result = await one_call([make_tool("shared", execute)], "shared", {}, tool_execution=mode)
    assert_error(result, "shared")
    assert result.types[-1] == "agent_end"


# --- results -----------------------------------------------------------------------------------


async def test_plain_string_becomes_one_text_block() -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        return "just text"

    result = await one_call([make_tool("plain", execute)], "plain", {})
    tool_result = only_result(result)
    assert tool_result.content == [TextContent("just text")]
    assert tool_result.is_error is False
    assert tool_result.details is None


@pytest.mark.parametrize("returned", [42, {"a": 1}, None, [TextContent("x")]])
async def test_other_return_types_are_error_results(returned: Any) -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return returned

    result = await one_call([make_tool("odd", execute)], "odd", {})
    text = assert_error(result, "odd")
    assert type(returned).__name__ in text


async def test_without_hooks_results_pass_through() -> None:
    recorder = Recorder()
    fm = script(*(faux_tool_call("echo", {"text": f"t{i}"}, id=f"e{i}") for i in range(3)))
    result = await run(fm, [echo_tool(recorder=recorder)])

    assert recorder.count == 3
    assert [(r.is_error, text_of(r), r.details) for r in result.tool_results] == [
        (False, f"t{i}", {"echoed": f"t{i}"}) for i in range(3)
    ]


async def test_execute_receives_call_id_and_the_run_signal() -> None:
    seen: list[Any] = []

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        seen.append((tool_call_id, signal, callable(on_update)))
        return "ok"

    await one_call([make_tool("probe", execute)], "probe", {})
    ((call_id, signal, has_update),) = seen
    assert call_id == "only"
    assert isinstance(signal, AbortSignal)
    assert signal.aborted is False
    assert has_update is True


# --- sync and pydantic tools -------------------------------------------------------------------


async def test_sync_decorated_tool_runs_in_a_worker_thread() -> None:
    threads: list[int] = []

    @tool
    def where(text: str) -> str:
        """Reports the thread it runs on."""
        threads.append(threading.get_ident())
        return f"ran with {text}"

    result = await one_call([where], "where", {"text": 7})

    assert len(threads) == 1
    assert threads[0] != threading.get_ident()
    assert text_of(only_result(result)) == "ran with 7"


class Resize(pydantic.BaseModel):
    width: int
    height: int = 100
    keep_ratio: bool = False


async def test_pydantic_parameters_arrive_as_a_model_instance() -> None:
    recorder = Recorder()

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        recorder.params.append(params)
        return "resized"

    result = await one_call(
        [make_tool("resize", execute, Resize)], "resize", {"width": "640", "keep_ratio": "true"}
    )

    (params,) = recorder.params
    assert isinstance(params, Resize)
    assert params == Resize(width=640, height=100, keep_ratio=True)
    assert only_result(result).is_error is False


async def test_pydantic_validation_failure_is_an_error_result() -> None:
    recorder = Recorder()

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        recorder.params.append(params)
        return "resized"

    result = await one_call([make_tool("resize", execute, Resize)], "resize", {"width": "wide"})
    assert_error(result, '"resize"', "width", '"wide"')
    assert recorder.count == 0


async def test_decorated_tool_with_a_model_parameter_receives_the_instance() -> None:
    received: list[Any] = []

    @tool
    async def resize(spec: Resize) -> str:
        """Resize an image."""
        received.append(spec)
        return f"{spec.width}x{spec.height}"

    result = await one_call([resize], "resize", {"width": 320, "height": "240"})

    assert received == [Resize(width=320, height=240)]
    assert isinstance(received[0], Resize)
    assert text_of(only_result(result)) == "320x240"


async def test_tool_error_details_reach_the_error_result() -> None:
    async def failing(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        raise ToolError("disk full", details={"free_bytes": 0})

    fm = FauxModel([faux_message(faux_tool_call("f", {}, id="x")), faux_text("ok")])
    result = await run(fm, [make_tool("f", failing, parameters={"type": "object"})])
    (message,) = [m for m in result.messages if m.role == "tool_result"]
    assert message.is_error
    assert text_of(message) == "disk full"
    assert message.details == {"free_bytes": 0}


async def test_a_big_batch_lets_its_consumer_see_events_while_it_runs() -> None:
    seen: list[str] = []
    seen_at_hook: list[int] = []

    async def before(ctx: BeforeToolCallContext, signal: AbortSignal) -> None:
        seen_at_hook.append(seen.count("tool_execution_start"))

    fm = FauxModel([faux_message(*[faux_tool_call("echo", {"text": str(i)}) for i in range(300)])])
    fm.append(faux_text("done"))
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [echo_tool()]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream, before_tool_call=before),
    )
    async for event in stream:
        seen.append(event.type)
    assert seen_at_hook[0] == 0
    assert seen_at_hook[-1] > 100  # the consumer ran during the prepare phase
    assert seen.count("tool_execution_end") == 300
