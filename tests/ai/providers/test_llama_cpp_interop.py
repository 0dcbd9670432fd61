"""tether against llama-cpp-python's server, replayed from its recorded replies: the request
extras and tool choice that make its ``chatml-function-calling`` format call tools, the
``"content": null`` it refuses, and the empty 200 stream it sends for what it cannot stream."""

from __future__ import annotations

from typing import Any

from tether.ai import (
    AssistantMessage,
    Context,
    Model,
    StreamDone,
    StreamError,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.providers import CONTEXT_OVERFLOW_NOTE, stream

from .llama_cpp_recorded import recorded
from .loopback import LoopbackServer

READ = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def llama_model(server: LoopbackServer, **fields: Any) -> Model:
    return Model(
        id="smollm2",
        provider="llamacpp",
        api="openai-completions",
        base_url=f"{server.url}/v1",
        context_window=512,
        max_tokens=16,
        **fields,
    )


async def run(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    events = [event async for event in stream(model, context, options or StreamOptions())]
    final = events[-1]
    assert isinstance(final, StreamDone | StreamError)
    return final.message


def second_turn() -> Context:
    """A call without text, then its result: what turn 2 of every tool-using run sends."""
    call = AssistantMessage(
        content=[ToolCall("call_1", "read", {"path": "a"})],
        stop_reason="tool_use",
        model="smollm2",
        provider="llamacpp",
        api="openai-completions",
    )
    result = ToolResultMessage("call_1", "read", [TextContent("x")])
    return Context("", [UserMessage("read a"), call, result], [READ])


# -- the tool choice -----------------------------------------------------------------------------


async def test_a_named_tool_choice_streams_the_call_the_server_makes():
    async with LoopbackServer([recorded("choice_named")]) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("read a.txt")], [READ]),
            StreamOptions(tool_choice="read"),
        )
    assert server.requests[0].json()["tool_choice"] == {
        "type": "function",
        "function": {"name": "read"},
    }
    assert message.stop_reason == "tool_use"
    (call,) = message.tool_calls()
    assert call.name == "read" and call.id.startswith("call__0_read_cmpl-")
    assert len(server.requests) == 1


async def test_extra_body_of_the_model_is_sent_and_the_request_options_win():
    async with LoopbackServer([recorded("choice_named")]) as server:
        model = llama_model(
            server, extra_body={"tool_choice": "auto", "top_k": 40, "temperature": 0.1}
        )
        await run(
            model,
            Context("", [UserMessage("read a.txt")], [READ]),
            StreamOptions(tool_choice="read", extra={"temperature": 0.7}),
        )
    body = server.requests[0].json()
    assert body["top_k"] == 40 and body["temperature"] == 0.7
    assert body["tool_choice"] == {"type": "function", "function": {"name": "read"}}


async def test_a_tool_choice_in_extra_body_is_not_sent_without_tools():
    async with LoopbackServer([recorded("auto_tools")]) as server:
        model = llama_model(server, extra_body={"tool_choice": "required", "top_k": 40})
        message = await run(model, Context("", [UserMessage("hi")], []), StreamOptions())
    body = server.requests[0].json()
    assert "tool_choice" not in body and "tools" not in body and body["top_k"] == 40
    assert message.stop_reason == "length"


async def test_a_tool_choice_naming_no_offered_tool_is_a_clear_error_and_nothing_is_sent():
    async with LoopbackServer([]) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("hi")], [READ]),
            StreamOptions(tool_choice="wirte"),
        )
    assert message.stop_reason == "error"
    assert message.error_message == (
        "llamacpp: tool_choice 'wirte' is not auto, required, none or an offered tool "
        "(offered: read)"
    )
    assert server.requests == []


# -- "content": null ---------------------------------------------------------------------------


async def test_the_refused_null_content_is_sent_again_once_as_an_empty_string():
    async with LoopbackServer([recorded("null_content"), recorded("auto_tools")]) as server:
        model = llama_model(server)
        message = await run(model, second_turn(), StreamOptions(max_retries=3))
        assert message.stop_reason == "length" and message.text().startswith("Here's a revised")
        first, second = (request.json()["messages"][1] for request in server.requests)
        assert first["content"] is None and first["tool_calls"]
        assert second["content"] == "" and second["tool_calls"] == first["tool_calls"]
        assert len(server.requests) == 2  # no blind retries of the 500 by the SDK

        server.add(recorded("auto_tools"))  # the next request sends "" from the start
        await run(model, second_turn())
        assert server.requests[2].json()["messages"][1]["content"] == ""
        assert len(server.requests) == 3


async def test_supports_null_content_false_sends_the_empty_string_from_the_first_request():
    async with LoopbackServer([recorded("auto_tools")]) as server:
        model = llama_model(server, compat={"supports_null_content": False})
        message = await run(model, second_turn())
    assert message.stop_reason == "length"
    assert server.requests[0].json()["messages"][1]["content"] == ""


async def test_a_null_content_refused_twice_is_reported_with_the_servers_words():
    async with LoopbackServer([recorded("null_content"), recorded("null_content")]) as server:
        model = llama_model(server, compat={"supports_null_content": True})
        message = await run(model, second_turn(), StreamOptions(max_retries=0))
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.startswith("llamacpp HTTP 500 internal_server_error: 7 validation")
    assert len(server.requests) == 2


async def test_another_5xx_on_a_null_content_request_is_still_retried():
    busy = recorded("null_content")
    busy.body = [b'{"error": {"message": "busy", "type": "server_error"}}']
    async with LoopbackServer([busy, recorded("auto_tools")]) as server:
        message = await run(llama_model(server), second_turn(), StreamOptions(max_retries=2))
    assert message.stop_reason == "length"
    assert [r.json()["messages"][1]["content"] for r in server.requests] == [None, None]


# -- the empty 200 stream ------------------------------------------------------------------------


async def test_an_empty_stream_for_an_overflowing_prompt_is_a_context_overflow():
    async with LoopbackServer([recorded("overflow"), recorded("overflow_ns")]) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("word " * 900)], []),
            StreamOptions(max_retries=3),
        )
    assert message.stop_reason == "error"
    text = message.error_message or ""
    assert text.startswith(CONTEXT_OVERFLOW_NOTE)
    assert "llamacpp HTTP 400 context_length_exceeded" in text
    assert "This model's maximum context length is 512 tokens" in text
    assert "— the server answered HTTP 200 with an empty stream" in text
    assert text.endswith("; sent once more unstreamed, it got this answer")
    assert 'model "smollm2", 1 message, max_tokens 16' in text
    streamed, unstreamed = (request.json() for request in server.requests)
    assert streamed["stream"] is True and unstreamed["stream"] is False
    assert "stream_options" not in unstreamed
    assert unstreamed["messages"] == streamed["messages"]  # the same request, sent once


async def test_an_empty_stream_for_tool_choice_auto_says_what_to_choose_instead():
    async with LoopbackServer([recorded("choice_auto"), recorded("choice_auto_ns")]) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("hi")], [READ]),
            StreamOptions(tool_choice="auto", max_retries=3),
        )
    text = message.error_message or ""
    assert message.stop_reason == "error" and not text.startswith(CONTEXT_OVERFLOW_NOTE)
    assert text.startswith("llamacpp: the server answered HTTP 200 with an empty stream")
    assert '1 tool (read), tool_choice "auto"' in text
    assert "the same request unstreamed succeeded, so only streaming it fails" in text
    assert "--tool-choice NAME" in text
    assert len(server.requests) == 2  # no blind retries


async def test_an_empty_stream_whose_unstreamed_request_fails_too_says_both():
    async with LoopbackServer([recorded("choice_required")]) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("hi")], [READ]),
            StreamOptions(tool_choice="required", max_retries=0),
        )
    text = message.error_message or ""
    assert "empty stream" in text and "loopback script exhausted" in text
    assert len(server.requests) == 3  # the stream; the probe, tried once more after its 500


async def test_an_empty_stream_for_tool_choice_required_whose_probe_is_a_500_still_advises():
    # llama-cpp-python 0.3.36 answers the unstreamed "required" with HTTP 500 and an empty
    # message; the SDK tries the probe once more
    replies = [recorded("choice_required"), *[recorded("choice_required_ns")] * 2]
    async with LoopbackServer(replies) as server:
        message = await run(
            llama_model(server),
            Context("", [UserMessage("hi")], [READ]),
            StreamOptions(tool_choice="required", max_retries=0),
        )
    text = message.error_message or ""
    assert text.startswith("llamacpp HTTP 500 internal_server_error: no further detail — the")
    assert "Error code" not in text  # the SDK's fallback would only repeat the status
    assert '1 tool (read), tool_choice "required"' in text
    assert "it got this answer; llama.cpp's Python server streams tool calls only" in text
    assert "--tool-choice NAME" in text
    assert len(server.requests) == 3


# -- the injected confirm ------------------------------------------------------------------------


async def test_offer_confirm_request_false_keeps_the_injected_confirm_out_of_the_schemas():
    # chatml-function-calling builds a grammar from the schema; SmolLM2 fills confirm: true
    # (3 of 3 real runs), and the read it was forced to make is denied headless
    from tether.ai._confirm_request import confirm_request_schema

    own = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "confirm": {"type": "string"}},
    }
    injected = {"type": "object", "properties": {"path": {"type": "string"}}}
    injected["properties"]["confirm"] = confirm_request_schema()
    tools = [Tool("read", "Read a file", injected), Tool("mine", "Own confirm", own)]
    context = Context("", [UserMessage("read a")], tools)
    replies = [recorded("choice_named"), recorded("choice_named")]
    async with LoopbackServer(replies) as server:
        await run(llama_model(server, compat={"offer_confirm_request": False}), context)
        await run(llama_model(server), context)
    hidden, offered = (
        {t["function"]["name"]: t["function"]["parameters"] for t in r.json()["tools"]}
        for r in server.requests
    )
    assert hidden["read"]["properties"] == {"path": {"type": "string"}}
    assert hidden["mine"] == own  # a tool's own confirm argument stays
    assert offered["read"]["properties"]["confirm"] == confirm_request_schema()
