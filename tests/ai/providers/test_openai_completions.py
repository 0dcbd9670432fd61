"""The openai-completions provider through the real ``openai`` SDK over real HTTP to a loopback
server speaking Chat Completions server-sent events."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from tether.ai import (
    AbortController,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    StreamDone,
    StreamError,
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
from tether.ai.providers import CONTEXT_OVERFLOW_NOTE, stream
from tether.ai.providers.openai_completions._request import compat_for, request_body

from .loopback import DISCONNECT, HANG, LoopbackServer, Reply, json_reply, sse

PRICES = ModelCost(input=2.0, output=8.0, cache_read=0.5, cache_write=0.0)
READ = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def make_model(server: LoopbackServer, **fields: Any) -> Model:
    return Model(
        id="test-model",
        provider="loopback",
        api="openai-completions",
        base_url=f"{server.url}/v1",
        cost=PRICES,
        **fields,
    )


def ask(text: str = "hi", tools: list[Tool] | None = None) -> Context:
    return Context("You are terse.", [UserMessage(text)], tools or [])


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any
) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice], **top}


def text_reply(*pieces: str, finish: str = "stop") -> Reply:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    chunks.append(chunk(finish=finish))
    return Reply(200, sse(chunks, done=True))


def call_delta(
    index: int | None = None,
    id: str | None = None,
    name: str | None = None,
    arguments: str | None = None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    if name is not None:
        entry["function"]["name"] = name
    if arguments is not None:
        entry["function"]["arguments"] = arguments
    return chunk({"tool_calls": [entry]})


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def run(
    model: Model, context: Context, options: StreamOptions | None = None
) -> tuple[list[Any], AssistantMessage]:
    events = [event async for event in stream(model, context, options or StreamOptions())]
    final = events[-1]
    assert isinstance(final, StreamDone | StreamError)
    return events, final.message


# -- text and thinking ---------------------------------------------------------------------------


async def test_text_streams_as_deltas_and_the_request_is_a_chat_completion():
    async with LoopbackServer([text_reply("Hel", "lo", "!")]) as server:
        events, message = await run(make_model(server), ask("say hello"))
    assert [e.type for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message.text() == "Hello!"
    assert message.stop_reason == "stop"
    assert (message.api, message.provider, message.model) == (
        "openai-completions",
        "loopback",
        "test-model",
    )
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    body = request.json()
    assert body["model"] == "test-model"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 16_384  # a compatible server: "max_tokens", the model's limit
    assert "max_completion_tokens" not in body
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "say hello"},
    ]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_become_thinking_before_the_text(field):
    chunks = [
        chunk({"role": "assistant", field: "Let me "}),
        chunk({field: "think."}),
        chunk({"content": "Done."}),
        chunk(finish="stop"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        events, message = await run(make_model(server, reasoning=True), ask())
    types = [e.type for e in events]
    assert types[:5] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
    ]
    thinking, text = message.content
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "Let me think."
    assert thinking.signature == field  # replayed to this model in the same field
    assert text == TextContent("Done.")


async def test_a_server_that_sends_both_reasoning_fields_is_not_read_twice():
    chunks = [
        chunk({"reasoning_content": "Once.", "reasoning": "Once."}),
        chunk({"content": "ok"}),
        chunk(finish="stop"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server, reasoning=True), ask())
    assert isinstance(message.content[0], ThinkingContent)
    assert message.content[0].thinking == "Once."


async def test_content_as_a_list_of_parts_gives_thinking_and_text():
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]}
    chunks = [
        chunk({"content": [thinking]}),
        chunk({"content": [{"type": "text", "text": "Answer."}]}),
        chunk(finish="stop"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.content == [ThinkingContent("Hmm."), TextContent("Answer.")]


# -- tool calls --------------------------------------------------------------------------------


async def test_one_tool_call_with_arguments_split_across_many_deltas():
    arguments = json.dumps({"path": "src/tether/ai/providers/openai_completions.py"})
    chunks = [chunk({"role": "assistant", "content": None})]
    chunks.append(call_delta(0, "call_abc", "read", ""))
    chunks += [call_delta(0, arguments=piece) for piece in pieces(arguments, 3)]
    chunks.append(chunk(finish="tool_calls"))
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        events, message = await run(make_model(server), ask(tools=[READ]))
    (call,) = message.tool_calls()
    assert call == ToolCall("call_abc", "read", json.loads(arguments))
    assert message.stop_reason == "tool_use"
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert "".join(d.delta for d in deltas) == arguments
    assert len(deltas) == len(pieces(arguments, 3))
    assert [e.type for e in events][-2:] == ["toolcall_end", "done"]
    body = server.requests[0].json()
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": READ.parameters,
            },
        }
    ]


async def test_partial_arguments_are_a_dict_at_every_delta():
    arguments = json.dumps({"path": "a.txt", "content": "x" * 50})
    chunks = [call_delta(0, "call_1", "write", "")]
    chunks += [call_delta(0, arguments=piece) for piece in pieces(arguments, 4)]
    chunks.append(chunk(finish="tool_calls"))
    seen: list[Any] = []
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        async for event in stream(make_model(server), ask(), StreamOptions()):
            if isinstance(event, ToolCallDelta):
                block = event.partial.content[event.content_index]
                assert isinstance(block, ToolCall)
                seen.append(dict(block.arguments))
    assert all(isinstance(value, dict) for value in seen)
    assert seen[-1] == json.loads(arguments)
    assert any(value.get("path") == "a.txt" and "content" not in value for value in seen)


async def test_parallel_calls_keyed_by_index_with_gaps_and_ids_only_on_the_first_delta():
    first = json.dumps({"path": "a.py"})
    second = json.dumps({"path": "b.py"})
    chunks = [call_delta(0, "call_a", "read"), call_delta(2, "call_b", "read")]
    for one, two in zip(pieces(first, 2), pieces(second, 2), strict=True):
        chunks += [call_delta(2, arguments=two), call_delta(0, arguments=one)]
    chunks.append(chunk(finish="tool_calls"))
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.tool_calls() == [
        ToolCall("call_a", "read", {"path": "a.py"}),
        ToolCall("call_b", "read", {"path": "b.py"}),
    ]


async def test_whole_calls_in_one_chunk_each_and_empty_arguments_are_an_empty_object():
    chunks = [
        call_delta(0, "call_1", "read", '{"path": "a.py"}'),
        call_delta(1, "call_2", "ls", ""),
        chunk(
            {
                "tool_calls": [
                    {"index": 2, "id": "call_3", "function": {"name": "pwd", "arguments": None}}
                ]
            }
        ),
        chunk(finish="tool_calls"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.tool_calls() == [
        ToolCall("call_1", "read", {"path": "a.py"}),
        ToolCall("call_2", "ls", {}),
        ToolCall("call_3", "pwd", {}),
    ]


async def test_index_zero_for_every_call_with_new_ids_makes_separate_calls():
    chunks = [
        call_delta(0, "call_1", "read", '{"path":'),
        call_delta(0, arguments=' "a.py"}'),
        call_delta(0, "call_2", "read", '{"path": "b.py"}'),
        chunk(finish="tool_calls"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.tool_calls() == [
        ToolCall("call_1", "read", {"path": "a.py"}),
        ToolCall("call_2", "read", {"path": "b.py"}),
    ]


async def test_chunks_without_an_index_belong_to_the_open_call_and_missing_ids_are_made_up():
    chunks = [
        chunk({"tool_calls": [{"function": {"name": "read", "arguments": '{"pa'}}]}),
        chunk({"tool_calls": [{"function": {"arguments": 'th": "a.py"}'}}]}),
        chunk({"tool_calls": [{"id": "call_x", "function": {"name": "ls", "arguments": "{}"}}]}),
        chunk(finish="tool_calls"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    first, second = message.tool_calls()
    assert (first.name, first.arguments) == ("read", {"path": "a.py"})
    assert first.id.startswith("call_") and len(first.id) > len("call_")
    assert second == ToolCall("call_x", "ls", {})


async def test_index_zero_without_ids_starts_a_new_call_at_a_second_name():
    chunks = [
        call_delta(0, name="read", arguments='{"path": "a.py"}'),
        call_delta(0, name="read", arguments='{"path": "b.py"}'),
        chunk(finish="tool_calls"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    calls = message.tool_calls()
    assert [c.arguments for c in calls] == [{"path": "a.py"}, {"path": "b.py"}]
    assert calls[0].id != calls[1].id


async def test_a_length_stop_in_the_middle_of_a_tool_call_leaves_it_not_executable():
    chunks = [
        call_delta(0, "call_1", "write", '{"path": "a.txt", "content": "aaaa'),
        call_delta(0, arguments="bbbb"),
        chunk(finish="length"),
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.stop_reason == "length"
    (call,) = message.tool_calls()
    assert call.arguments_error is not None
    assert "cut off" in call.arguments_error
    assert call.arguments.get("path") == "a.txt"


# -- usage and stop reasons ----------------------------------------------------------------


async def test_usage_in_a_last_chunk_without_choices_counts_cached_input_apart():
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "total_tokens": 1050,
        "prompt_tokens_details": {"cached_tokens": 400},
    }
    chunks = [
        chunk({"content": "ok"}),
        chunk(finish="stop"),
        {"id": "chatcmpl-1", "choices": [], "usage": usage},
    ]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert message.stop_reason == "stop"
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.cache_write) == (600, 50, 400, 0)
    assert u.total_tokens == 1050
    assert u.cost == pytest.approx((600 * 2.0 + 50 * 8.0 + 400 * 0.5) / 1_000_000)


async def test_groq_usage_under_x_groq_is_read():
    usage = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    chunks = [chunk({"content": "ok"}), chunk(finish="stop", x_groq={"id": "r", "usage": usage})]
    async with LoopbackServer([Reply(200, sse(chunks, done=True))]) as server:
        _, message = await run(make_model(server), ask())
    assert (message.usage.input, message.usage.output) == (10, 3)


@pytest.mark.parametrize(
    ("reason", "words"),
    [("content_filter", "content filter"), ("eos_weird", "'eos_weird'")],
)
async def test_a_content_filter_or_unknown_stop_reason_is_an_error(reason, words):
    async with LoopbackServer([text_reply("partial", finish=reason)]) as server:
        _, message = await run(make_model(server), ask())
    assert message.stop_reason == "error"
    assert message.error_message is not None and words in message.error_message
    assert message.text() == "partial"


async def test_a_stream_without_done_that_ends_after_its_finish_reason_is_complete():
    chunks = [chunk({"content": "ok"}), chunk(finish="stop")]
    async with LoopbackServer([Reply(200, sse(chunks))]) as server:
        _, message = await run(make_model(server), ask())
    assert (message.stop_reason, message.text()) == ("stop", "ok")


# -- failures before the stream --------------------------------------------------------------


async def test_an_error_status_reports_the_status_and_the_providers_message():
    error = {"error": {"message": "Invalid value for 'tools'", "type": "invalid_request_error"}}
    async with LoopbackServer([json_reply(400, error)]) as server:
        events, message = await run(make_model(server), ask())
    assert [e.type for e in events] == ["error"]
    assert message.stop_reason == "error"
    assert message.error_message == (
        "loopback HTTP 400 invalid_request_error: Invalid value for 'tools'"
    )
    assert len(server.requests) == 1


async def test_a_401_names_the_status_and_message_but_never_the_key():
    key = "sk-proj-verysecret0123456789abcdef"
    error = {"error": {"message": f"Incorrect API key provided: {key}.", "code": "invalid_api_key"}}
    async with LoopbackServer([json_reply(401, error)]) as server:
        _, message = await run(make_model(server), ask(), StreamOptions(api_key=key))
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    assert message.error_message is not None
    assert "HTTP 401" in message.error_message
    assert "Incorrect API key provided" in message.error_message
    assert key not in message.error_message
    assert "verysecret" not in message.error_message


async def test_a_context_overflow_is_reported_as_such_and_not_retried():
    error = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your "
            "messages resulted in 130000 tokens.",
            "code": "context_length_exceeded",
        }
    }
    async with LoopbackServer([json_reply(400, error), text_reply("never")]) as server:
        _, message = await run(make_model(server), ask())
    assert message.error_message is not None
    assert message.error_message.startswith(CONTEXT_OVERFLOW_NOTE)
    assert "maximum context length" in message.error_message
    assert len(server.requests) == 1


async def test_a_429_is_retried_after_the_servers_retry_after():
    limited = json_reply(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "0.05"})
    async with LoopbackServer([limited, text_reply("after the wait")]) as server:
        started = time.perf_counter()
        _, message = await run(make_model(server), ask())
        elapsed = time.perf_counter() - started
    assert message.stop_reason == "stop"
    assert message.text() == "after the wait"
    assert len(server.requests) == 2
    assert server.requests[1].headers["x-stainless-retry-count"] == "1"
    # Retry-After's 50 ms, not the SDK's own backoff (at least 375 ms for a first retry)
    assert 0.05 <= elapsed < 0.35


async def test_retries_stop_at_max_retries():
    limited = [json_reply(503, {"error": {"message": "busy"}}, {"retry-after": "0.01"})] * 3
    async with LoopbackServer(limited) as server:
        _, message = await run(make_model(server), ask(), StreamOptions(max_retries=1))
    assert len(server.requests) == 2
    assert message.error_message == "loopback HTTP 503: busy"


async def test_an_unreachable_server_is_a_connection_error():
    async with LoopbackServer() as server:
        model = make_model(server)
    _, message = await run(model, ask(), StreamOptions(max_retries=0))
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert "connection error" in message.error_message


async def test_openai_without_a_key_says_which_variable_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = Model(id="gpt-4.1", provider="openai", api="openai-completions")
    _, message = await run(model, ask())
    assert message.stop_reason == "error"
    assert message.error_message is not None and "OPENAI_API_KEY" in message.error_message


async def test_a_compatible_server_needs_no_key():
    async with LoopbackServer([text_reply("ok")]) as server:
        _, message = await run(make_model(server), ask())
    assert message.text() == "ok"
    assert server.requests[0].headers["authorization"] == "Bearer no-key-needed"


async def test_a_malformed_compat_flag_is_an_error_that_names_it():
    async with LoopbackServer() as server:
        model = make_model(server, compat={"max_tokens_field": "tokens"})
        _, message = await run(model, ask())
    assert message.error_message is not None
    assert "max_tokens_field" in message.error_message
    assert server.requests == []


# -- failures inside the stream ------------------------------------------------------------


async def test_an_error_chunk_inside_a_200_stream_keeps_the_partial_text():
    chunks = [
        chunk({"content": "Half an "}),
        chunk({"content": "answer"}),
        {"error": {"message": "The upstream model is overloaded", "type": "server_error"}},
    ]
    async with LoopbackServer([Reply(200, sse(chunks)), text_reply("never")]) as server:
        events, message = await run(make_model(server), ask())
    assert message.stop_reason == "error"
    assert message.text() == "Half an answer"
    assert message.error_message == "loopback server_error: The upstream model is overloaded"
    assert [e.type for e in events][-2:] == ["text_end", "error"]
    assert len(server.requests) == 1  # content had reached the caller: no retry


async def test_an_error_chunk_before_any_content_is_retried():
    overloaded = [{"error": {"message": "Overloaded", "type": "server_error", "code": 503}}]
    async with LoopbackServer([Reply(200, sse(overloaded)), text_reply("second try")]) as server:
        events, message = await run(make_model(server), ask())
    assert message.text() == "second try"
    assert len(server.requests) == 2
    assert [e.type for e in events].count("start") == 1


async def test_an_error_chunk_that_is_not_transient_is_not_retried():
    error = [{"error": {"message": "Unknown model test-model", "type": "invalid_request_error"}}]
    async with LoopbackServer([Reply(200, sse(error)), text_reply("never")]) as server:
        _, message = await run(make_model(server), ask())
    assert message.error_message is not None and "Unknown model test-model" in message.error_message
    assert len(server.requests) == 1


async def test_a_mid_stream_disconnect_is_an_error_that_keeps_the_partial_text():
    body = [*sse([chunk({"content": "Part one, "}), chunk({"content": "part two"})]), DISCONNECT]
    async with LoopbackServer([Reply(200, body), text_reply("never")]) as server:
        events, message = await run(make_model(server), ask())
    assert message.stop_reason == "error"
    assert message.text() == "Part one, part two"
    assert message.error_message is not None
    assert "connection dropped" in message.error_message
    assert events[-1].type == "error"
    assert len(server.requests) == 1


async def test_a_connection_dropped_before_any_content_is_retried():
    async with LoopbackServer([Reply(200, [DISCONNECT]), text_reply("second try")]) as server:
        _, message = await run(make_model(server), ask())
    assert message.text() == "second try"
    assert len(server.requests) == 2


async def test_a_signal_aborted_before_the_request_sends_nothing():
    controller = AbortController()
    controller.abort()
    async with LoopbackServer([text_reply("never")]) as server:
        options = StreamOptions(signal=controller.signal)
        events, message = await run(make_model(server), ask(), options)
    assert [e.type for e in events] == ["error"]
    assert message.stop_reason == "aborted"
    assert server.requests == []


async def test_a_malformed_event_is_an_error_with_an_excerpt():
    body = [*sse([chunk({"content": "ok"})]), b"data: {not json\n\n"]
    async with LoopbackServer([Reply(200, body)]) as server:
        _, message = await run(make_model(server), ask())
    assert message.stop_reason == "error"
    assert message.error_message is not None and "{not json" in message.error_message
    assert message.text() == "ok"


async def test_a_reply_that_is_not_an_event_stream_says_what_it_began_with():
    reply = Reply(200, [b"<html>Bad gateway</html>\n"], content_type="text/html")
    async with LoopbackServer([reply]) as server:
        _, message = await run(make_model(server), ask())
    assert message.error_message is not None and "<html>Bad gateway" in message.error_message


async def test_an_abort_mid_stream_closes_the_connection_and_keeps_the_text():
    body = [*sse([chunk({"content": "Writing"})]), HANG]
    controller = AbortController()
    events: list[Any] = []
    async with LoopbackServer([Reply(200, body)]) as server:
        started = time.perf_counter()
        async for event in stream(
            make_model(server), ask(), StreamOptions(signal=controller.signal)
        ):
            events.append(event)
            if isinstance(event, TextDelta):
                controller.abort()
        await asyncio.wait_for(server.client_closed.wait(), timeout=2)
        elapsed = time.perf_counter() - started
    final = events[-1]
    assert isinstance(final, StreamError)
    assert final.message.stop_reason == "aborted"
    assert final.message.text() == "Writing"
    assert elapsed < 1.0


async def test_an_abort_while_the_request_waits_for_headers_ends_at_once():
    controller = AbortController()
    async with LoopbackServer([Reply(200, [5.0])]) as server:
        asyncio.get_running_loop().call_later(0.1, controller.abort)
        started = time.perf_counter()
        _, message = await run(make_model(server), ask(), StreamOptions(signal=controller.signal))
        elapsed = time.perf_counter() - started
    assert message.stop_reason == "aborted"
    assert elapsed < 1.0


# -- the request body ------------------------------------------------------------------------


async def test_the_second_request_carries_the_first_turns_calls_and_results_in_chat_format():
    image = ImageContent("aGVsbG8=", "image/png")
    transcript = [
        UserMessage("look at a.py and the chart"),
        AssistantMessage(
            [
                ThinkingContent("I should read both.", signature="reasoning_content"),
                TextContent("Reading."),
                ToolCall("call_1", "read", {"path": "a.py"}),
                ToolCall("call_2", "read", {"path": "chart.png"}),
            ],
            stop_reason="tool_use",
            model="test-model",
            provider="loopback",
            api="openai-completions",
        ),
        ToolResultMessage("call_1", "read", [TextContent("print('a')")]),
        ToolResultMessage("call_2", "read", [image]),
        UserMessage([TextContent("and this one?"), image]),
    ]
    async with LoopbackServer([text_reply("done")]) as server:
        model = make_model(server, input=("text", "image"))
        await run(model, Context("sys", transcript, [READ]))
    messages = server.requests[0].json()["messages"]
    assert messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "look at a.py and the chart"},
        {
            "role": "assistant",
            "content": "Reading.",
            "reasoning_content": "I should read both.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "chart.png"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "print('a')"},
        {"role": "tool", "tool_call_id": "call_2", "content": "(the result is the attached image)"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached image(s) from the tool result(s) above:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this one?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
            ],
        },
    ]


def body_for(
    model: Model, context: Context, options: StreamOptions | None = None
) -> dict[str, Any]:
    return request_body(model, context, options or StreamOptions(), compat_for(model))


def test_images_go_only_to_models_with_image_input():
    image = ImageContent("aGVsbG8=", "image/png")
    context = Context(
        "",
        [
            UserMessage([TextContent("see"), image]),
            AssistantMessage([ToolCall("c1", "read", {})], stop_reason="tool_use"),
            ToolResultMessage("c1", "read", [TextContent("an image:"), image]),
        ],
    )
    model = Model("m", "p", "openai-completions", base_url="http://127.0.0.1:1/v1")
    messages = body_for(model, context)["messages"]
    assert messages[0] == {"role": "user", "content": "see"}
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "an image:"}
    assert len(messages) == 3


def test_compat_is_detected_from_the_url_and_model_compat_wins():
    openai_reasoning = Model("o3", "openai", "openai-completions", reasoning=True)
    openai_plain = Model("gpt-4.1", "openai", "openai-completions")
    ollama = Model("qwen", "ollama", "openai-completions", base_url="http://127.0.0.1:11434/v1")
    mistral = Model("m", "mistral", "openai-completions", base_url="https://api.mistral.ai/v1")
    assert compat_for(openai_reasoning).supports_developer_role is True
    assert compat_for(openai_plain).max_tokens_field == "max_completion_tokens"
    assert compat_for(openai_plain).supports_strict_mode is True
    assert compat_for(ollama).supports_developer_role is False
    assert compat_for(ollama).max_tokens_field == "max_tokens"
    assert compat_for(ollama).supports_strict_mode is False
    assert compat_for(ollama).supports_usage_in_streaming is True
    assert compat_for(mistral).requires_tool_result_name is True
    told = Model(
        "m",
        "p",
        "openai-completions",
        base_url="http://127.0.0.1:8000/v1",
        compat={"supports_developer_role": True, "max_tokens_field": "max_completion_tokens"},
    )
    assert compat_for(told).supports_developer_role is True
    assert compat_for(told).max_tokens_field == "max_completion_tokens"


def test_the_system_prompt_role_and_token_field_follow_compat():
    context = Context("be brief", [UserMessage("hi")], [READ])
    body = body_for(Model("o3", "openai", "openai-completions", reasoning=True), context)
    assert body["messages"][0] == {"role": "developer", "content": "be brief"}
    plain = body_for(Model("gpt-4.1", "openai", "openai-completions"), context)
    assert plain["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["max_completion_tokens"] == 16_384
    assert body["tools"][0]["function"]["strict"] is False
    quiet = Model(
        "m",
        "p",
        "openai-completions",
        base_url="http://127.0.0.1:1/v1",
        compat={"supports_usage_in_streaming": False, "requires_tool_result_name": True},
    )
    body = body_for(
        quiet,
        Context(
            "s",
            [AssistantMessage([ToolCall("c1", "read", {})]), ToolResultMessage("c1", "read", [])],
        ),
    )
    assert "stream_options" not in body
    assert body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "",
        "name": "read",
    }


def test_reasoning_effort_goes_to_reasoning_models_only():
    context = ask()
    thinking = StreamOptions(reasoning="high")
    reasoner = Model("o3", "openai", "openai-completions", reasoning=True)
    plain = Model("gpt-4.1", "openai", "openai-completions")
    assert body_for(reasoner, context, thinking)["reasoning_effort"] == "high"
    assert "reasoning_effort" not in body_for(reasoner, context)
    assert "reasoning_effort" not in body_for(plain, context, thinking)
    no_effort = Model(
        "o3", "p", "openai-completions", reasoning=True, compat={"supports_reasoning_effort": False}
    )
    assert "reasoning_effort" not in body_for(no_effort, context, thinking)
    qwen = Model("q", "p", "openai-completions", reasoning=True, compat={"thinking_format": "qwen"})
    assert body_for(qwen, context, thinking)["enable_thinking"] is True
    assert body_for(qwen, context)["enable_thinking"] is False
    zai = Model(
        "glm", "zai", "openai-completions", base_url="https://api.z.ai/api/paas/v4", reasoning=True
    )
    assert body_for(zai, context, thinking)["thinking"] == {"type": "enabled"}


def test_options_set_max_tokens_temperature_and_extra_fields():
    model = Model("m", "p", "openai-completions", base_url="http://127.0.0.1:1/v1", max_tokens=4096)
    body = body_for(
        model,
        ask(),
        StreamOptions(max_tokens=100, temperature=0.2, extra={"top_p": 0.9, "seed": 7}),
    )
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["seed"]) == (
        100,
        0.2,
        0.9,
        7,
    )
    assert body_for(model, ask())["max_tokens"] == 4096
    assert "temperature" not in body_for(model, ask())


async def test_extra_fields_and_headers_reach_the_server():
    async with LoopbackServer([text_reply("ok")]) as server:
        model = make_model(server, headers={"x-model-header": "m"})
        options = StreamOptions(headers={"x-request-header": "r"}, extra={"seed": 7})
        await run(model, ask(), options)
    request = server.requests[0]
    assert request.json()["seed"] == 7
    assert request.headers["x-model-header"] == "m"
    assert request.headers["x-request-header"] == "r"
