"""The anthropic-messages provider through the real ``anthropic`` SDK over real HTTP: a loopback
server speaks Anthropic's event stream, the provider turns it into tether's events."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest

from tether.ai import (
    AbortController,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.providers import stream

from .anthropic_wire import (
    KEY,
    block_start,
    delta,
    error_event,
    message_end,
    message_start,
    model,
    pieces,
    redacted_block,
    reply,
    text_block,
    thinking_block,
    tool_block,
)
from .loopback import DISCONNECT, HANG, LoopbackServer, Reply, json_reply

READ = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def context(*messages: Any, tools: list[Tool] | None = None) -> Context:
    return Context("You are terse.", list(messages or [UserMessage("hi")]), tools or [READ])


async def run(
    server: LoopbackServer,
    ctx: Context | None = None,
    the_model: Model | None = None,
    **option_fields: Any,
) -> tuple[AssistantMessage, list[AssistantMessageEvent]]:
    option_fields.setdefault("api_key", KEY)
    options = StreamOptions(**option_fields)
    events = [e async for e in stream(the_model or model(server.url), ctx or context(), options)]
    final = events[-1]
    assert final.type in ("done", "error")
    return final.message, events  # type: ignore[union-attr]


def kinds(events: list[AssistantMessageEvent]) -> list[str]:
    return [e.type for e in events]


# -- what streams back -------------------------------------------------------------------------


async def test_text_streams_in_deltas_through_the_sdk():
    script = reply(message_start(), text_block(0, "Hel", "lo", " there"), message_end("end_turn"))
    async with LoopbackServer([script]) as server:
        message, events = await run(server)
    assert kinds(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message.text() == "Hello there"
    assert message.stop_reason == "stop"
    assert (message.provider, message.api, message.model) == (
        "anthropic",
        "anthropic-messages",
        "claude-test-4",
    )
    request = server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["anthropic-version"]
    assert KEY in (request.headers.get("x-api-key", "") + request.headers.get("authorization", ""))
    body = request.json()
    assert body["model"] == "claude-test-4"
    assert body["stream"] is True
    assert body["max_tokens"] == 32_000
    assert body["system"][0]["text"] == "You are terse."
    assert body["messages"][0]["role"] == "user"
    assert body["messages"][0]["content"][0]["text"] == "hi"
    assert body["tools"] == [
        {"name": "read", "description": "Read a file", "input_schema": READ.parameters}
    ]
    assert "thinking" not in body


async def test_thinking_keeps_its_signature_and_the_budget_is_sent():
    script = reply(
        message_start(),
        thinking_block(0, ["Let me ", "think."], "sig-abc"),
        text_block(1, "Answer"),
        message_end("end_turn"),
    )
    async with LoopbackServer([script]) as server:
        message, events = await run(server, reasoning="medium", temperature=0.3, max_tokens=4000)
    thinking, text = message.content
    assert thinking == ThinkingContent("Let me think.", signature="sig-abc")
    assert text == TextContent("Answer")
    assert kinds(events)[:5] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
    ]
    body = server.requests[0].json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] > 8192
    assert "temperature" not in body


async def test_thinking_levels_map_to_budgets_and_max_tokens_is_capped_by_the_model():
    scripts = [reply(message_start(), text_block(0, "ok"), message_end("end_turn"))] * 3
    async with LoopbackServer(scripts) as server:
        await run(server, reasoning="minimal")
        await run(server, reasoning="high", max_tokens=1000)
        await run(server, the_model=model(server.url, max_tokens=8000), reasoning="high")
    minimal, high, squeezed = (r.json() for r in server.requests)
    assert minimal["thinking"]["budget_tokens"] == 1024
    assert high["thinking"]["budget_tokens"] == 16384
    assert high["max_tokens"] == 17384
    assert squeezed["max_tokens"] == 8000
    assert 1024 <= squeezed["thinking"]["budget_tokens"] < 8000


async def test_reasoning_is_ignored_for_a_model_without_it_and_temperature_is_sent():
    script = reply(message_start(), text_block(0, "ok"), message_end("end_turn"))
    async with LoopbackServer([script]) as server:
        await run(
            server, the_model=model(server.url, reasoning=False), reasoning="high", temperature=0.2
        )
    body = server.requests[0].json()
    assert "thinking" not in body
    assert body["temperature"] == 0.2


async def test_redacted_thinking_keeps_its_data_as_the_signature():
    script = reply(
        message_start(),
        redacted_block(0, "EncryptedBlob=="),
        text_block(1, "Done"),
        message_end("end_turn"),
    )
    async with LoopbackServer([script]) as server:
        message, events = await run(server, reasoning="low")
    assert message.content[0] == ThinkingContent("", signature="EncryptedBlob==", redacted=True)
    assert message.text() == "Done"
    assert kinds(events)[1:3] == ["thinking_start", "thinking_end"]


async def test_thinking_shown_only_as_a_signature_after_a_tool_call_is_a_block_of_its_own():
    script = reply(
        message_start(),
        thinking_block(0, ["First thought."], "sig-1"),
        tool_block(1, "toolu_1", "read", ['{"path": "a"}']),
        thinking_block(2, [], "sig-2"),
        text_block(3, "Then this."),
        message_end("end_turn"),
    )
    async with LoopbackServer([script]) as server:
        message, _ = await run(server, reasoning="low")
    first, _call, second, _text = message.content
    assert first == ThinkingContent("First thought.", signature="sig-1")
    assert second == ThinkingContent("", signature="sig-2")


async def test_a_stream_ending_after_its_stop_reason_without_message_stop_is_complete():
    delta_only = message_end("end_turn")[:1]
    script = reply(message_start(), text_block(0, "fine"), delta_only)
    async with LoopbackServer([script]) as server:
        message, events = await run(server)
    assert events[-1].type == "done"
    assert message.stop_reason == "stop"
    assert message.text() == "fine"


async def test_a_tool_call_streams_its_arguments_over_many_deltas():
    arguments = json.dumps({"path": "src/" + "deep/" * 40 + "file.py"})
    script = reply(
        message_start(),
        text_block(0, "Reading."),
        tool_block(1, "toolu_01", "read", pieces(arguments, 3)),
        message_end("tool_use"),
    )
    async with LoopbackServer([script]) as server:
        message, events = await run(server)
    assert message.stop_reason == "tool_use"
    (call,) = message.tool_calls()
    assert call == ToolCall("toolu_01", "read", json.loads(arguments))
    deltas = [e for e in events if e.type == "toolcall_delta"]
    assert len(deltas) == len(pieces(arguments, 3))
    assert "".join(d.delta for d in deltas) == arguments  # type: ignore[union-attr]
    assert all(isinstance(d.partial.content[1].arguments, dict) for d in deltas)  # type: ignore[union-attr]
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call == call  # type: ignore[union-attr]


async def test_several_tool_calls_and_one_with_empty_input():
    first = json.dumps({"path": "a.txt"})
    second = json.dumps({"path": "b.txt"})
    script = reply(
        message_start(),
        tool_block(0, "toolu_a", "read", pieces(first, 2)),
        tool_block(1, "toolu_b", "read", pieces(second, 4)),
        tool_block(2, "toolu_c", "now", [""]),
        tool_block(3, "toolu_d", "now", []),
        message_end("tool_use"),
    )
    async with LoopbackServer([script]) as server:
        message, _ = await run(server)
    assert [(c.id, c.name, c.arguments, c.arguments_error) for c in message.tool_calls()] == [
        ("toolu_a", "read", {"path": "a.txt"}, None),
        ("toolu_b", "read", {"path": "b.txt"}, None),
        ("toolu_c", "now", {}, None),
        ("toolu_d", "now", {}, None),
    ]


async def test_usage_counts_cache_reads_and_writes_apart_and_is_priced():
    script = reply(
        message_start(input_tokens=100, cache_read=2000, cache_write=500),
        text_block(0, "ok"),
        message_end("end_turn", output_tokens=300),
    )
    async with LoopbackServer([script]) as server:
        message, _ = await run(server)
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (100, 300, 2000, 500)
    assert usage.total_tokens == 2900
    expected = (100 * 3.0 + 300 * 15.0 + 2000 * 0.3 + 500 * 3.75) / 1_000_000
    assert usage.cost == pytest.approx(expected)


async def test_max_tokens_in_the_middle_of_a_tool_call_is_a_length_stop_never_run():
    script = reply(
        message_start(),
        tool_block(0, "toolu_cut", "read", ['{"pa', 'th": "half']),
        message_end("max_tokens"),
    )
    async with LoopbackServer([script]) as server:
        message, _ = await run(server)
    assert message.stop_reason == "length"
    (call,) = message.tool_calls()
    assert call.arguments_error is not None
    assert "cut off" in call.arguments_error
    assert call.arguments == {"path": "half"}


@pytest.mark.parametrize(
    ("raw", "stop", "note"),
    [
        ("stop_sequence", "stop", None),
        ("pause_turn", "stop", None),
        ("model_context_window_exceeded", "length", "context window"),
        ("refusal", "error", "refusal"),
        ("brand_new_reason", "error", "brand_new_reason"),
    ],
)
async def test_stop_reasons_are_mapped(raw: str, stop: str, note: str | None):
    script = reply(message_start(), text_block(0, "x"), message_end(raw))
    async with LoopbackServer([script]) as server:
        message, _ = await run(server)
    assert message.stop_reason == stop
    if note is None:
        assert message.error_message is None
    else:
        assert note in (message.error_message or "")
        assert message.text() == "x"


# -- failures --------------------------------------------------------------------------------


async def test_an_error_status_carries_the_providers_message():
    bad = json_reply(400, error_event("invalid_request_error", "tools.0.name: String too short"))
    async with LoopbackServer([bad]) as server:
        message, events = await run(server)
    assert kinds(events) == ["error"]
    assert message.stop_reason == "error"
    assert "HTTP 400" in (message.error_message or "")
    assert "tools.0.name: String too short" in (message.error_message or "")


async def test_a_401_never_shows_the_key():
    denied = json_reply(401, error_event("authentication_error", f"invalid x-api-key {KEY}"))
    async with LoopbackServer([denied]) as server:
        message, _ = await run(server)
    text = message.error_message or ""
    assert "HTTP 401" in text
    assert "invalid x-api-key" in text
    assert KEY not in text
    assert len(server.requests) == 1


async def test_a_missing_key_names_the_environment_variable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    async with LoopbackServer([]) as server:
        message, _ = await run(server, api_key=None)
    assert "ANTHROPIC_API_KEY" in (message.error_message or "")
    assert server.requests == []


async def test_prompt_too_long_is_reported_as_such_and_not_retried():
    too_long = json_reply(
        400, error_event("invalid_request_error", "prompt is too long: 210000 tokens > 200000")
    )
    ok = reply(message_start(), text_block(0, "never"), message_end("end_turn"))
    async with LoopbackServer([too_long, ok]) as server:
        message, _ = await run(server)
    assert message.stop_reason == "error"
    assert "context is too long" in (message.error_message or "")
    assert "210000 tokens" in (message.error_message or "")
    assert len(server.requests) == 1


async def test_a_429_is_retried_after_the_time_retry_after_asks():
    limited = json_reply(
        429, error_event("rate_limit_error", "slow down"), headers={"retry-after": "0.3"}
    )
    ok = reply(message_start(), text_block(0, "fine"), message_end("end_turn"))
    async with LoopbackServer([limited, ok]) as server:
        running = asyncio.create_task(run(server))
        while not server.requests:
            await asyncio.sleep(0.005)
        limited_at = time.monotonic()
        message, events = await running
        elapsed = time.monotonic() - limited_at
    assert message.text() == "fine"
    assert kinds(events).count("start") == 1
    assert len(server.requests) == 2
    assert 0.28 <= elapsed < 2.0


async def test_a_529_overloaded_is_retried():
    overloaded = json_reply(529, error_event("overloaded_error", "Overloaded"))
    ok = reply(message_start(), text_block(0, "back"), message_end("end_turn"))
    async with LoopbackServer([overloaded, ok]) as server:
        message, _ = await run(server)
    assert message.text() == "back"
    assert len(server.requests) == 2


async def test_retries_stop_at_max_retries():
    overloaded = [
        json_reply(529, error_event("overloaded_error", "Overloaded"), {"retry-after-ms": "10"})
    ] * 3
    async with LoopbackServer(overloaded) as server:
        message, _ = await run(server, max_retries=1)
    assert len(server.requests) == 2
    assert "HTTP 529" in (message.error_message or "")
    assert "Overloaded" in (message.error_message or "")


async def test_an_error_event_inside_the_stream_ends_the_message_keeping_the_content():
    script = reply(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "partial answ"}),
        error_event("overloaded_error", "Overloaded"),
    )
    async with LoopbackServer([script]) as server:
        message, events = await run(server)
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.text() == "partial answ"
    assert "overloaded_error" in (message.error_message or "")
    assert "Overloaded" in (message.error_message or "")
    assert len(server.requests) == 1  # content had reached the caller: no retry


async def test_an_overloaded_event_before_any_content_is_retried():
    overloaded = reply(message_start(), error_event("overloaded_error", "Overloaded"))
    ok = reply(message_start(input_tokens=7), text_block(0, "second try"), message_end("end_turn"))
    async with LoopbackServer([overloaded, ok]) as server:
        message, events = await run(server)
    assert message.text() == "second try"
    assert message.stop_reason == "stop"
    assert message.usage.input == 7
    assert kinds(events).count("start") == 1
    assert len(server.requests) == 2


async def test_a_mid_stream_disconnect_is_an_error_with_the_partial_content():
    script = reply(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "so far"}),
        tail=[DISCONNECT],
    )
    async with LoopbackServer([script]) as server:
        message, events = await run(server)
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.text() == "so far"
    assert "the connection dropped mid-stream" in (message.error_message or "")
    assert len(server.requests) == 1


async def test_a_disconnect_before_any_content_is_retried():
    dropped = Reply(200, [DISCONNECT])
    ok = reply(message_start(), text_block(0, "whole"), message_end("end_turn"))
    async with LoopbackServer([dropped, ok]) as server:
        message, _ = await run(server)
    assert message.text() == "whole"


async def test_a_stream_that_stops_before_the_end_is_an_error():
    script = reply(message_start(), text_block(0, "unfinished"))
    async with LoopbackServer([script]) as server:
        message, _ = await run(server, max_retries=0)
    assert message.stop_reason == "error"
    assert "ended before the response was complete" in (message.error_message or "")
    assert message.text() == "unfinished"


async def test_an_abort_mid_stream_closes_the_connection_at_once():
    script = reply(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "thinking about it"}),
        tail=[HANG],
    )
    controller = AbortController()
    async with LoopbackServer([script]) as server:
        events = []
        aborted_at = 0.0
        options = StreamOptions(signal=controller.signal, api_key=KEY)
        async for event in stream(model(server.url), context(), options):
            events.append(event)
            if event.type == "text_delta":
                controller.abort()
                aborted_at = time.monotonic()
        elapsed = time.monotonic() - aborted_at
        await asyncio.wait_for(server.client_closed.wait(), 2)
    final = events[-1]
    assert final.type == "error"
    assert final.message.stop_reason == "aborted"  # type: ignore[union-attr]
    assert final.message.text() == "thinking about it"  # type: ignore[union-attr]
    assert elapsed < 1.0


async def test_an_abort_while_the_sdk_waits_to_retry_ends_at_once():
    limited = json_reply(
        429, error_event("rate_limit_error", "slow down"), headers={"retry-after": "30"}
    )
    controller = AbortController()
    async with LoopbackServer([limited]) as server:
        running = asyncio.create_task(run(server, signal=controller.signal))
        while not server.requests:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # the 429 is in; the SDK sleeps before its retry
        controller.abort()
        aborted_at = time.monotonic()
        message, _ = await running
        elapsed = time.monotonic() - aborted_at
    assert message.stop_reason == "aborted"
    assert elapsed < 1.0
    assert len(server.requests) == 1


async def test_an_abort_before_the_request_sends_nothing():
    controller = AbortController()
    controller.abort()
    async with LoopbackServer([]) as server:
        message, _ = await run(server, signal=controller.signal)
    assert message.stop_reason == "aborted"
    assert server.requests == []


# -- the next request ------------------------------------------------------------------------

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
    "hKmMIQAAAABJRU5ErkJggg=="
)


async def test_the_second_request_carries_the_first_turns_calls_results_and_thinking():
    first_turn = reply(
        message_start(),
        thinking_block(0, ["I should read both."], "sig-1"),
        redacted_block(1, "opaque=="),
        text_block(2, "Reading."),
        tool_block(3, "toolu_a", "read", ['{"path": "a.png"}']),
        tool_block(4, "toolu_b", "read", ['{"path": "missing"}']),
        message_end("tool_use"),
    )
    second_turn = reply(message_start(), text_block(0, "All read."), message_end("end_turn"))
    async with LoopbackServer([first_turn, second_turn]) as server:
        prompt = UserMessage("read a and missing")
        assistant, _ = await run(server, context(prompt), reasoning="low")
        results = [
            ToolResultMessage(
                "toolu_a", "read", [TextContent("an image:"), ImageContent(PIXEL, "image/png")]
            ),
            ToolResultMessage("toolu_b", "read", [TextContent("no such file")], is_error=True),
        ]
        final, _ = await run(server, context(prompt, assistant, *results), reasoning="low")
    assert final.text() == "All read."
    user, replayed, tool_turn = server.requests[1].json()["messages"]
    assert user["role"] == "user"
    assert replayed == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should read both.", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "opaque=="},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a.png"}},
            {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {"path": "missing"}},
        ],
    }
    assert tool_turn["role"] == "user"
    image_result, error_result = tool_turn["content"]
    assert image_result["type"] == "tool_result"
    assert image_result["tool_use_id"] == "toolu_a"
    assert image_result["is_error"] is False
    assert image_result["content"] == [
        {"type": "text", "text": "an image:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL}},
    ]
    assert error_result["tool_use_id"] == "toolu_b"
    assert error_result["is_error"] is True
    assert error_result["content"] == [{"type": "text", "text": "no such file"}]
    assert error_result["cache_control"] == {"type": "ephemeral"}


async def test_unsigned_thinking_is_replayed_as_text():
    earlier = AssistantMessage(
        [ThinkingContent("half a thought"), TextContent("hm")],
        model="claude-test-4",
        provider="anthropic",
        api="anthropic-messages",
    )
    script = reply(message_start(), text_block(0, "ok"), message_end("end_turn"))
    async with LoopbackServer([script]) as server:
        await run(server, context(UserMessage("a"), earlier, UserMessage("b")))
    _, replayed, _ = server.requests[0].json()["messages"]
    assert replayed["content"] == [
        {"type": "text", "text": "half a thought"},
        {"type": "text", "text": "hm"},
    ]


async def test_tool_call_ids_are_made_to_fit_and_results_follow():
    odd_ids = ["call.1/abc", "call_1_abc", "x" * 80, "x" * 80 + "y", "toolu_fine-1"]
    calls = [ToolCall(i, "read", {"path": str(n)}) for n, i in enumerate(odd_ids)]
    earlier = AssistantMessage(
        list(calls), stop_reason="tool_use", provider="anthropic", api="anthropic-messages"
    )
    results = [ToolResultMessage(c.id, "read", [TextContent("r")]) for c in calls]
    script = reply(message_start(), text_block(0, "ok"), message_end("end_turn"))
    async with LoopbackServer([script]) as server:
        await run(server, context(UserMessage("go"), earlier, *results))
    _, assistant, tool_turn = server.requests[0].json()["messages"]
    sent = [block["id"] for block in assistant["content"]]
    answered = [block["tool_use_id"] for block in tool_turn["content"]]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in sent)
    assert answered == sent
    assert len(set(sent)) == len(odd_ids)
    assert sent[-1] == "toolu_fine-1"


async def test_images_go_only_to_models_that_accept_them():
    prompt = UserMessage([TextContent("what is this?"), ImageContent(PIXEL, "image/png")])
    scripts = [reply(message_start(), text_block(0, "ok"), message_end("end_turn"))] * 2
    async with LoopbackServer(scripts) as server:
        await run(server, context(prompt))
        await run(server, context(prompt), the_model=model(server.url, input=("text",)))
    with_images, text_only = (r.json()["messages"][0]["content"] for r in server.requests)
    assert with_images[1]["type"] == "image"
    assert [block["type"] for block in text_only] == ["text", "text"]
    assert "image" in text_only[1]["text"]


async def test_a_configured_provider_without_a_key_variable_needs_no_key():
    script = reply(message_start(), text_block(0, "local"), message_end("end_turn"))
    async with LoopbackServer([script]) as server:
        keyless = model(server.url, provider="my-proxy")
        message, _ = await run(server, the_model=keyless, api_key=None)
    assert message.text() == "local"
    headers = server.requests[0].headers
    assert "authorization" not in headers
    assert "x-api-key" not in headers


async def test_an_abort_while_the_caller_handles_an_event_stops_the_events_after_it():
    script = reply(
        message_start(),
        text_block(0, "one", "two", "three"),
        message_end("end_turn"),
    )
    controller = AbortController()
    async with LoopbackServer([script]) as server:
        events = []
        options = StreamOptions(signal=controller.signal, api_key=KEY)
        async for event in stream(model(server.url), context(), options):
            events.append(event)
            if event.type == "text_delta":
                controller.abort()
    assert [e.type for e in events].count("text_delta") == 1
    assert events[-1].message.stop_reason == "aborted"  # type: ignore[union-attr]
    assert events[-1].message.text() == "one"  # type: ignore[union-attr]


async def test_thinking_waits_while_a_turn_that_called_tools_without_thinking_goes_on():
    earlier = AssistantMessage(
        [ToolCall("toolu_1", "read", {"path": "a"})],
        stop_reason="tool_use",
        model="claude-test-4",
        provider="anthropic",
        api="anthropic-messages",
    )
    result = ToolResultMessage("toolu_1", "read", [TextContent("a's text")])
    scripts = [reply(message_start(), text_block(0, "ok"), message_end("end_turn"))] * 2
    async with LoopbackServer(scripts) as server:
        await run(server, context(UserMessage("go"), earlier, result), reasoning="high")
        await run(server, context(UserMessage("go")), reasoning="high")
    continuing, fresh = (r.json() for r in server.requests)
    assert "thinking" not in continuing
    assert fresh["thinking"]["budget_tokens"] == 16384
