"""The openai-responses provider through the real ``openai`` SDK over real HTTP to a loopback
server speaking the Responses streaming format."""

from __future__ import annotations

import asyncio
import json
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
    ModelCost,
    StreamOptions,
    TextContent,
    TextDelta,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolCallDelta,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.providers import stream

from . import responses_events as ev
from .loopback import DISCONNECT, HANG, LoopbackServer, Reply, json_reply, sse

KEY = "sk-test-0123456789abcdefghij"
READ = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
PRICES = ModelCost(input=2.0, output=8.0, cache_read=0.5, cache_write=0.0)


def model_for(server: LoopbackServer, **changes: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "gpt-test",
        "provider": "openai",
        "api": "openai-responses",
        "base_url": server.url + "/v1",
        "reasoning": True,
        "input": ("text", "image"),
        "cost": PRICES,
        "max_tokens": 4096,
    }
    return Model(**(fields | changes))


def context(*messages: Any, tools: list[Tool] | None = None) -> Context:
    return Context("You are terse.", list(messages) or [UserMessage("hi")], tools or [READ])


async def run(
    server: LoopbackServer,
    ctx: Context | None = None,
    *,
    model: Model | None = None,
    **options: Any,
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    options.setdefault("api_key", KEY)
    events = [
        event
        async for event in stream(
            model or model_for(server), ctx or context(), StreamOptions(**options)
        )
    ]
    final = events[-1]
    assert final.type in ("done", "error")
    message = final.message  # type: ignore[union-attr]
    return events, message


async def test_text_streams_and_the_request_is_stateless() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "Hel", "lo", "!"), ev.completed())
    async with LoopbackServer([script]) as server:
        events, message = await run(server, max_tokens=100)
    assert message.stop_reason == "stop" and message.error_message is None
    assert message.content == [TextContent("Hello!")]
    assert message.api == "openai-responses" and message.model == "gpt-test"
    assert [e.delta for e in events if isinstance(e, TextDelta)] == ["Hel", "lo", "!"]
    assert [e.type for e in events][:2] == ["start", "text_start"]
    assert [e.type for e in events][-2:] == ["text_end", "done"]
    (request,) = server.requests
    body = request.json()
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert body["store"] is False and body["stream"] is True
    assert body["model"] == "gpt-test" and body["max_output_tokens"] == 100
    assert body["instructions"] == "You are terse."
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": READ.parameters,
            "strict": False,
        }
    ]


async def test_reasoning_item_is_kept_whole_in_the_signature() -> None:
    item = ev.reasoning_item(
        "rs_1", "Looking at the file.", "Then answering.", encrypted="gAAA-secret"
    )
    script = ev.reply(
        ev.created(), *ev.reasoning(0, item), *ev.text_message(1, "Done."), ev.completed()
    )
    async with LoopbackServer([script]) as server:
        events, message = await run(server, reasoning="high")
    thinking, text = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.signature is not None
    assert thinking.thinking == "Looking at the file.\n\nThen answering."
    assert json.loads(thinking.signature) == item
    assert not thinking.redacted
    assert text == TextContent("Done.")
    assert [e.type for e in events].count("thinking_delta") >= 4
    body = server.requests[0].json()
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}


async def test_reasoning_item_without_streamed_summary_still_becomes_a_block() -> None:
    item = ev.reasoning_item("rs_9", "Quiet thought.")
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    script = ev.reply(ev.created(), done, *ev.text_message(1, "ok"), ev.completed())
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Quiet thought."
    assert json.loads(thinking.signature or "") == item


async def test_reasoning_without_a_summary_is_replay_data_only() -> None:
    item = ev.reasoning_item("rs_2", encrypted="gAAAA-no-summary")
    script = ev.reply(
        ev.created(), *ev.reasoning(0, item), *ev.text_message(1, "ok"), ev.completed()
    )
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.redacted and thinking.thinking == ""
    assert json.loads(thinking.signature or "") == item


async def test_models_without_reasoning_get_no_reasoning_fields() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "x"), ev.completed())
    async with LoopbackServer([script]) as server:
        plain = model_for(server, reasoning=False)
        await run(server, model=plain, reasoning="low", temperature=0.2)
        body = server.requests[0].json()
    assert "reasoning" not in body and "include" not in body
    assert body["temperature"] == 0.2


async def test_headers_and_extra_body_reach_the_server() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "x"), ev.completed())
    async with LoopbackServer([script]) as server:
        model = model_for(server, headers={"x-team": "tools"})
        extra = {"prompt_cache_key": "session-1"}
        await run(server, model=model, headers={"x-run": "7"}, extra=extra)
        (request,) = server.requests
    assert request.headers["x-team"] == "tools" and request.headers["x-run"] == "7"
    assert request.json()["prompt_cache_key"] == "session-1"


async def test_one_call_with_arguments_over_many_deltas() -> None:
    arguments = {"path": "src/tether/some/deeply/nested/module.py", "offset": 10}
    script = ev.reply(
        ev.created(),
        *ev.function_call(0, "call_abc", "fc_abc", "read", arguments, pieces=25),
        ev.completed(),
    )
    async with LoopbackServer([script]) as server:
        events, message = await run(server)
    assert message.stop_reason == "tool_use"
    (call,) = message.content
    assert call == ToolCall("call_abc|fc_abc", "read", arguments)
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(deltas) >= 20
    assert [e.type for e in events].count("toolcall_end") == 1


async def test_partial_arguments_are_always_a_dict() -> None:
    arguments = json.dumps({"path": "a.txt", "note": "x" * 40})
    script = ev.reply(
        ev.created(),
        *ev.function_call(0, "c1", "fc_1", "read", arguments, pieces=30),
        ev.completed(),
    )
    seen: list[Any] = []
    async with LoopbackServer([script]) as server:
        async for event in stream(model_for(server), context(), StreamOptions(api_key=KEY)):
            if isinstance(event, ToolCallDelta):
                block = event.partial.content[event.content_index]
                assert isinstance(block, ToolCall)
                seen.append(dict(block.arguments))
    assert all(isinstance(value, dict) for value in seen)
    assert seen[-1]["path"] == "a.txt"


async def test_parallel_calls_and_a_call_without_arguments() -> None:
    item = ev.reasoning_item("rs_1", "Two reads and a clock.")
    script = ev.reply(
        ev.created(),
        *ev.reasoning(0, item),
        *ev.function_call(1, "call_1", "fc_1", "read", {"path": "a.txt"}, pieces=6),
        *ev.function_call(2, "call_2", "fc_2", "read", {"path": "b.txt"}, pieces=6),
        *ev.function_call(3, "call_3", "fc_3", "now", ""),
        ev.completed(),
    )
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "tool_use"
    assert message.tool_calls() == [
        ToolCall("call_1|fc_1", "read", {"path": "a.txt"}),
        ToolCall("call_2|fc_2", "read", {"path": "b.txt"}),
        ToolCall("call_3|fc_3", "now", {}),
    ]
    assert all(call.arguments_error is None for call in message.tool_calls())


async def test_interleaved_argument_deltas_stay_with_their_call() -> None:
    script = ev.reply(
        ev.created(),
        ev.call_added(0, "call_1", "fc_1", "read"),
        ev.call_added(1, "call_2", "fc_2", "read"),
        ev.arguments_delta(0, "fc_1", '{"path": '),
        ev.arguments_delta(1, "fc_2", '{"path": "b'),
        ev.arguments_delta(0, "fc_1", '"a"}'),
        ev.arguments_delta(1, "fc_2", '"}'),
        ev.call_done(0, "call_1", "fc_1", "read", '{"path": "a"}'),
        ev.call_done(1, "call_2", "fc_2", "read", '{"path": "b"}'),
        ev.completed(),
    )
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert [c.arguments for c in message.tool_calls()] == [{"path": "a"}, {"path": "b"}]


async def test_a_server_that_sends_only_arguments_done() -> None:
    text = '{"path": "only-done.txt"}'
    script = ev.reply(
        ev.created(),
        ev.call_added(0, "call_9", "fc_9", "read"),
        ev.arguments_done(0, "fc_9", text),
        ev.call_done(0, "call_9", "fc_9", "read", text),
        ev.completed(),
    )
    async with LoopbackServer([script]) as server:
        events, message = await run(server)
    assert message.tool_calls() == [ToolCall("call_9|fc_9", "read", {"path": "only-done.txt"})]
    assert [e.type for e in events].count("toolcall_delta") == 1


async def test_a_call_that_arrives_whole_in_its_done_item() -> None:
    text = '{"path": "whole.txt"}'
    script = ev.reply(ev.created(), ev.call_done(0, "call_w", "fc_w", "read", text), ev.completed())
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.tool_calls() == [ToolCall("call_w|fc_w", "read", {"path": "whole.txt"})]
    assert message.stop_reason == "tool_use"


async def test_usage_with_cached_tokens_and_cost() -> None:
    used = ev.usage(input_tokens=1_000, output_tokens=200, cached=400)
    script = ev.reply(ev.created(), *ev.text_message(0, "hi"), ev.completed(used))
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    usage = message.usage
    assert (usage.input, usage.cache_read, usage.output) == (600, 400, 200)
    assert usage.total_tokens == 1_200
    assert usage.cost == pytest.approx((600 * 2.0 + 400 * 0.5 + 200 * 8.0) / 1_000_000)


async def test_incomplete_in_the_middle_of_a_call_is_a_length_stop() -> None:
    script = ev.reply(
        ev.created(),
        *ev.text_message(0, "Writing it."),
        ev.call_added(1, "call_1", "fc_1", "write"),
        ev.arguments_delta(1, "fc_1", '{"path": "a.txt", "content": "lo'),
        ev.arguments_delta(1, "fc_1", "ng text"),
        ev.incomplete("max_output_tokens"),
    )
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "length"
    assert "max_output_tokens" in (message.error_message or "")
    (call,) = message.tool_calls()
    assert call.arguments_error is not None and "cut off" in call.arguments_error
    assert call.arguments["path"] == "a.txt"
    assert message.text() == "Writing it."


async def test_an_error_status_carries_the_providers_message() -> None:
    body = {
        "error": {
            "message": "Invalid 'input[0]': unknown item type.",
            "type": "invalid_request_error",
            "code": None,
        }
    }
    async with LoopbackServer([json_reply(400, body)]) as server:
        events, message = await run(server)
    assert [e.type for e in events] == ["error"]
    assert message.stop_reason == "error"
    assert "HTTP 400" in (message.error_message or "")
    assert "Invalid 'input[0]': unknown item type." in (message.error_message or "")
    assert len(server.requests) == 1


async def test_a_401_never_shows_the_key() -> None:
    body = {
        "error": {
            "message": f"Incorrect API key provided: {KEY}. You can find your API key at ...",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    async with LoopbackServer([json_reply(401, body)]) as server:
        _events, message = await run(server)
    text = message.error_message or ""
    assert message.stop_reason == "error"
    assert "HTTP 401" in text and "invalid_api_key" in text and "Incorrect API key" in text
    assert KEY not in text and KEY[:12] not in text


async def test_context_overflow_is_reported_as_such_and_not_retried() -> None:
    body = {
        "error": {
            "message": "Your input exceeds the context window of this model.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    async with LoopbackServer([json_reply(400, body)]) as server:
        _events, message = await run(server)
    assert (message.error_message or "").startswith("The context is too long for this model")
    assert len(server.requests) == 1


async def test_a_429_is_retried_after_the_servers_retry_after() -> None:
    limited = json_reply(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "0.6"})
    script = ev.reply(ev.created(), *ev.text_message(0, "after the wait"), ev.completed())
    async with LoopbackServer([limited, script]) as server:
        started = time.monotonic()
        _events, message = await run(server)
        waited = time.monotonic() - started
    assert message.stop_reason == "stop" and message.text() == "after the wait"
    assert len(server.requests) == 2
    assert 0.6 <= waited < 3.0  # the SDK's own backoff would be at most 0.5 s


async def test_retries_stop_at_max_retries() -> None:
    limited = [json_reply(503, {"error": {"message": "busy"}}, {"retry-after-ms": "10"})] * 3
    async with LoopbackServer(limited) as server:
        _events, message = await run(server, max_retries=1)
    assert len(server.requests) == 2
    assert "HTTP 503" in (message.error_message or "") and "busy" in (message.error_message or "")


async def test_response_failed_inside_a_200_stream() -> None:
    script = ev.reply(
        ev.created(),
        ev.message_added(0),
        ev.text_delta(0, "Partial "),
        ev.failed("server_error", "The model crashed while generating."),
    )
    async with LoopbackServer([script]) as server:
        events, message = await run(server)
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert "The model crashed while generating." in (message.error_message or "")
    assert message.text() == "Partial "


async def test_a_context_overflow_inside_the_stream_says_so() -> None:
    script = ev.reply(
        ev.created(),
        ev.failed(
            "context_length_exceeded", "Your input exceeds the context window of this model."
        ),
    )
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert (message.error_message or "").startswith("The context is too long for this model")
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("event", "stop_reason", "said"),
    [
        ({"type": "response.cancelled", "response": {"status": "cancelled"}}, "error", "cancelled"),
        ({"type": "response.completed", "response": {"status": "paused"}}, "error", "'paused'"),
        ({"type": "response.incomplete", "response": {}}, "length", "incomplete"),
    ],
)
async def test_every_final_status_maps_to_a_stop_reason(
    event: dict[str, Any], stop_reason: str, said: str
) -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "some"), event)
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == stop_reason and said in (message.error_message or "")
    assert message.text() == "some"


@pytest.mark.parametrize(
    "error",
    [
        {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None},
        {"error": {"code": "rate_limit_exceeded", "message": "Slow down.", "type": "requests"}},
    ],
    ids=["error event", "error chunk"],
)
async def test_an_error_inside_a_200_stream(error: dict[str, Any]) -> None:
    script = ev.reply(ev.created(), ev.message_added(0), ev.text_delta(0, "so far"), error)
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "error"
    assert "Slow down." in (message.error_message or "")
    assert "rate_limit_exceeded" in (message.error_message or "")
    assert message.text() == "so far"


async def test_a_mid_stream_disconnect_is_an_error_message() -> None:
    pieces = [
        *sse([ev.created(), ev.message_added(0), ev.text_delta(0, "half")], named=True),
        DISCONNECT,
    ]
    async with LoopbackServer([Reply(200, pieces)]) as server:
        events, message = await run(server)
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert "the connection dropped mid-stream" in (message.error_message or "")
    assert message.text() == "half"
    assert len(server.requests) == 1  # something reached the caller: no second try


async def test_a_stream_that_drops_before_its_first_event_is_tried_again() -> None:
    dropped = Reply(200, [b": keep-alive\n\n", DISCONNECT])
    script = ev.reply(ev.created(), *ev.text_message(0, "second try"), ev.completed())
    async with LoopbackServer([dropped, script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "stop" and message.text() == "second try"
    assert len(server.requests) == 2


async def test_a_stream_that_keeps_dropping_gives_up_at_max_retries() -> None:
    dropped = Reply(200, [DISCONNECT])
    async with LoopbackServer([dropped, dropped]) as server:
        _events, message = await run(server, max_retries=1)
    assert message.stop_reason == "error"
    assert "the connection dropped mid-stream" in (message.error_message or "")
    assert len(server.requests) == 2


async def test_a_stream_that_ends_without_a_final_event() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "cut"))
    async with LoopbackServer([script]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "error" and "ended before" in (message.error_message or "")
    assert message.text() == "cut"


async def test_a_malformed_event_is_a_protocol_error() -> None:
    pieces = [*sse([ev.created()], named=True), b"data: {not json\n\n"]
    async with LoopbackServer([Reply(200, pieces)]) as server:
        _events, message = await run(server)
    assert message.stop_reason == "error" and "protocol error" in (message.error_message or "")


async def test_abort_mid_stream_closes_the_connection() -> None:
    pieces = [*sse([ev.created(), ev.message_added(0), ev.text_delta(0, "one")], named=True), HANG]
    controller = AbortController()
    events: list[AssistantMessageEvent] = []
    async with LoopbackServer([Reply(200, pieces)]) as server:
        options = StreamOptions(api_key=KEY, signal=controller.signal)
        started = time.monotonic()
        async for event in stream(model_for(server), context(), options):
            events.append(event)
            if isinstance(event, TextDelta):
                asyncio.get_running_loop().call_later(0.05, controller.abort)
        await asyncio.wait_for(server.client_closed.wait(), 2)
        elapsed = time.monotonic() - started
    message = events[-1].message  # type: ignore[union-attr]
    assert events[-1].type == "error" and message.stop_reason == "aborted"
    assert message.text() == "one"
    assert elapsed < 2


async def test_abort_during_the_retry_wait_ends_at_once() -> None:
    limited = json_reply(429, {"error": {"message": "later"}}, {"retry-after": "30"})
    controller = AbortController()
    async with LoopbackServer([limited]) as server:

        async def abort_once_asked() -> float:
            while not server.requests:  # the 429 has been sent: the client is in its wait
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            controller.abort()
            return time.monotonic()

        aborter = asyncio.ensure_future(abort_once_asked())
        _events, message = await run(server, signal=controller.signal)
        elapsed = time.monotonic() - await aborter
    assert message.stop_reason == "aborted" and elapsed < 2
    assert len(server.requests) == 1


async def test_the_connection_is_closed_before_the_final_event() -> None:
    # The agent loop stops iterating at ``done``: nothing may stay open behind it.
    events = sse([ev.created(), *ev.text_message(0, "bye"), ev.completed()], named=True)
    async with LoopbackServer([Reply(200, [*events, HANG])]) as server:
        messages = stream(model_for(server), context(), StreamOptions(api_key=KEY))
        async for event in messages:
            if event.type == "done":
                await asyncio.wait_for(server.client_closed.wait(), 1)
                break
        await messages.aclose()  # type: ignore[attr-defined]


async def test_an_already_aborted_signal_sends_nothing() -> None:
    controller = AbortController()
    controller.abort()
    async with LoopbackServer([]) as server:
        _events, message = await run(server, signal=controller.signal)
    assert message.stop_reason == "aborted" and server.requests == []


async def test_a_missing_openai_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with LoopbackServer([]) as server:
        _events, message = await run(server, api_key=None)
    assert message.stop_reason == "error" and "OPENAI_API_KEY" in (message.error_message or "")
    assert server.requests == []


async def test_a_server_without_keys_needs_none() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "local"), ev.completed())
    async with LoopbackServer([script]) as server:
        local = model_for(server, provider="my-local-server")
        _events, message = await run(server, model=local, api_key=None)
    assert message.text() == "local"


async def test_the_second_turn_replays_reasoning_calls_and_results() -> None:
    item = ev.reasoning_item("rs_1", "I should read the file.", encrypted="gAAAA-" + "e" * 300)
    first = ev.reply(
        ev.created(),
        *ev.reasoning(0, item),
        *ev.text_message(1, "Reading it."),
        *ev.function_call(2, "call_1", "fc_1", "read", {"path": "a.png"}, pieces=4),
        ev.completed(),
    )
    second = ev.reply(ev.created(), *ev.text_message(0, "It is a cat."), ev.completed())
    async with LoopbackServer([first, second]) as server:
        user = UserMessage("What is in a.png?")
        _events, turn = await run(server, context(user))
        (call,) = turn.tool_calls()
        result = ToolResultMessage(
            call.id,
            "read",
            [TextContent("Read image file [image/png]"), ImageContent("iVBORw0KGgo=", "image/png")],
        )
        _events, answer = await run(server, context(user, turn, result))
        replayed = server.requests[1].json()
    assert answer.text() == "It is a cat."
    assert replayed["store"] is False
    assert replayed["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "What is in a.png?"}]},
        item,
        {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Reading it.", "annotations": []}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read",
            "arguments": '{"path": "a.png"}',
            "id": "fc_1",
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "Read image file [image/png]",
        },
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "The images returned by the tool calls above:"},
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64,iVBORw0KGgo=",
                    "detail": "auto",
                },
            ],
        },
    ]


async def test_a_call_without_its_reasoning_is_replayed_without_its_item_id() -> None:
    turn = AssistantMessage(
        [ToolCall("call_7|fc_7", "read", {"path": "x"})],
        stop_reason="tool_use",
        model="gpt-test",
        provider="openai",
        api="openai-responses",
    )
    foreign = AssistantMessage(
        [ThinkingContent("plain"), ToolCall("toolu_01", "read", {"path": "y"})],
        stop_reason="tool_use",
    )
    script = ev.reply(ev.created(), *ev.text_message(0, "ok"), ev.completed())
    async with LoopbackServer([script]) as server:
        messages = [
            UserMessage("go"),
            turn,
            ToolResultMessage("call_7|fc_7", "read", [TextContent("x!")]),
            foreign,
            ToolResultMessage("toolu_01", "read", [TextContent("y!")], is_error=True),
        ]
        await run(server, context(*messages))
        items = server.requests[0].json()["input"]
    assert items[1] == {
        "type": "function_call",
        "call_id": "call_7",
        "name": "read",
        "arguments": '{"path": "x"}',
    }
    assert items[2] == {"type": "function_call_output", "call_id": "call_7", "output": "x!"}
    foreign_call, foreign_result = items[-2:]
    assert foreign_call["call_id"] == "toolu_01" and "id" not in foreign_call
    assert foreign_result == {"type": "function_call_output", "call_id": "toolu_01", "output": "y!"}


async def test_images_go_only_to_models_with_image_input() -> None:
    script = ev.reply(ev.created(), *ev.text_message(0, "ok"), ev.completed())
    async with LoopbackServer([script]) as server:
        user = UserMessage([TextContent("look"), ImageContent("AAAA", "image/jpeg")])
        await run(server, context(user), model=model_for(server, input=("text",)))
        (message,) = server.requests[0].json()["input"]
    assert message["content"][0] == {"type": "input_text", "text": "look"}
    assert message["content"][1]["type"] == "input_text"
    assert "image" in message["content"][1]["text"]
