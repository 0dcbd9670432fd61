"""Errors name the provider the person configured (``litellm-anth``, not "Anthropic"), a dropped
stream and an abort read the same in every protocol, every protocol retries by the same rule
(only before the first event reached the caller), and a status is not repeated as its own code. The
error bodies are LiteLLM's proxy shape (``"code"`` the status as a string) and llama.cpp's
server's (``"code"`` the status as a number)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tether.ai import AbortController, Context, Model, StreamOptions, UserMessage
from tether.ai.providers import get_model, load_models_config, stream

from . import responses_events as ev
from .anthropic_wire import block_start, delta, message_end, message_start, text_block
from .loopback import DISCONNECT, HANG, LoopbackServer, Reply, json_reply, sse

LITELLM_400 = {
    "error": {
        "message": "litellm.BadRequestError: AnthropicException - max_tokens: Field required",
        "type": "invalid_request_error",
        "param": None,
        "code": "400",
    }
}
LLAMA_SERVER_400 = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 9000,
        "n_ctx": 4096,
    }
}

CONFIG = """\
[providers.litellm-anth]
api = "anthropic-messages"
base_url = "{url}"
api_key_env = "LITELLM_KEY"

[[providers.litellm-anth.models]]
id = "claude-via-proxy"
"""


async def final_message(model: Model, options: StreamOptions | None = None):
    events = [e async for e in stream(model, Context("", [UserMessage("hi")]), options)]
    return events[-1].message  # type: ignore[union-attr]


def configure(home: Path, url: str) -> Model:
    (home / "models.toml").write_text(textwrap.dedent(CONFIG.format(url=url)))
    load_models_config()
    return get_model("litellm-anth/claude-via-proxy")


async def test_a_missing_key_names_the_configured_provider_and_its_variable(
    tether_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LITELLM_KEY", raising=False)
    message = await final_message(configure(tether_home, "http://127.0.0.1:9"))
    assert message.error_message == (
        "litellm-anth: no API key; set LITELLM_KEY or pass StreamOptions.api_key"
    )


async def test_an_http_error_names_the_configured_provider_once_with_its_status(
    tether_home: Path,
) -> None:
    async with LoopbackServer([json_reply(400, LITELLM_400)]) as server:
        model = configure(tether_home, server.url)
        message = await final_message(model, StreamOptions(api_key="k"))
    assert message.error_message == (
        "litellm-anth HTTP 400 invalid_request_error: litellm.BadRequestError: "
        "AnthropicException - max_tokens: Field required"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            LITELLM_400,
            "litellm HTTP 400: litellm.BadRequestError: AnthropicException - max_tokens: "
            "Field required",
        ),
        (
            LLAMA_SERVER_400,
            "The context is too long for this model (litellm HTTP 400: the request exceeds "
            "the available context size, try increasing it)",
        ),
    ],
    ids=["litellm", "llama-server"],
)
async def test_a_status_is_not_repeated_as_its_code(body: dict, expected: str) -> None:
    async with LoopbackServer([json_reply(400, body)]) as server:
        model = Model(
            id="m", provider="litellm", api="openai-completions", base_url=f"{server.url}/v1"
        )
        message = await final_message(model, StreamOptions(api_key="k"))
    assert message.error_message == expected
    assert "400 400" not in message.error_message


async def test_the_built_in_providers_are_named_by_their_vendor() -> None:
    async with LoopbackServer([json_reply(400, LITELLM_400)]) as server:
        model = Model(id="m", provider="openai", api="openai-completions", base_url=server.url)
        message = await final_message(model, StreamOptions(api_key="k"))
    assert message.error_message.startswith("OpenAI HTTP 400: ")


def dropped(api: str) -> Reply:
    if api == "openai-completions":
        chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": "half"}}]}
        return Reply(200, [*sse([chunk]), DISCONNECT])
    if api == "openai-responses":
        events = [ev.created(), ev.message_added(0), ev.text_delta(0, "half")]
        return Reply(200, [*sse(events, named=True), DISCONNECT])
    events = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "half"}),
    ]
    return Reply(200, [*sse(events, named=True), DISCONNECT])


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages"])
async def test_a_dropped_stream_reads_the_same_in_every_protocol(api: str) -> None:
    async with LoopbackServer([dropped(api)]) as server:
        base = server.url if api == "anthropic-messages" else f"{server.url}/v1"
        model = Model(id="m", provider="proxy", api=api, base_url=base)
        message = await final_message(model, StreamOptions(api_key="k"))
    assert message.text() == "half"
    assert message.error_message.startswith("proxy: the connection dropped mid-stream (")


HTTP_APIS = ["openai-completions", "openai-responses", "anthropic-messages"]


def started_then(api: str, tail: object) -> Reply:
    """A 200 stream whose first server event only starts the message (no content yet)."""
    if api == "openai-completions":
        chunk = {"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant"}}]}
        return Reply(200, [*sse([chunk]), tail])
    if api == "openai-responses":
        return Reply(200, [*sse([ev.created()], named=True), tail])
    return Reply(200, [*sse([message_start()], named=True), tail])


def whole(api: str, text: str) -> Reply:
    if api == "openai-completions":
        chunks = [
            {"id": "c", "choices": [{"index": 0, "delta": {"content": text}}]},
            {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
        return Reply(200, sse(chunks, done=True))
    if api == "openai-responses":
        return ev.reply(ev.created(), *ev.text_message(0, text), ev.completed())
    events = [message_start(), *text_block(0, text), *message_end("end_turn")]
    return Reply(200, sse(events, named=True))


def http_model(server: LoopbackServer, api: str) -> Model:
    base = server.url if api == "anthropic-messages" else f"{server.url}/v1"
    return Model(id="m", provider="proxy", api=api, base_url=base)


@pytest.mark.parametrize("api", HTTP_APIS)
async def test_a_drop_after_the_start_but_before_any_content_is_tried_again(api: str) -> None:
    async with LoopbackServer([started_then(api, DISCONNECT), whole(api, "whole")]) as server:
        events = [
            e
            async for e in stream(
                http_model(server, api),
                Context("", [UserMessage("hi")]),
                StreamOptions(api_key="k", max_retries=1),
            )
        ]
        assert len(server.requests) == 2
    assert [e.type for e in events].count("start") == 1
    assert events[-1].type == "done"
    assert events[-1].message.text() == "whole"  # type: ignore[union-attr]


@pytest.mark.parametrize("api", HTTP_APIS)
async def test_a_drop_after_content_reached_the_caller_is_not_tried_again(api: str) -> None:
    async with LoopbackServer([dropped(api), whole(api, "again")]) as server:
        message = await final_message(http_model(server, api), StreamOptions(api_key="k"))
        assert len(server.requests) == 1
    assert message.stop_reason == "error"
    assert message.text() == "half"


@pytest.mark.parametrize("api", HTTP_APIS)
async def test_an_abort_reads_the_same_in_every_protocol(api: str) -> None:
    controller = AbortController()
    async with LoopbackServer([started_then(api, HANG)]) as server:
        options = StreamOptions(api_key="k", signal=controller.signal)
        events = []
        async for event in stream(
            http_model(server, api), Context("", [UserMessage("hi")]), options
        ):
            events.append(event)
            if event.type == "start":
                controller.abort()
    message = events[-1].message  # type: ignore[union-attr]
    assert message.stop_reason == "aborted"
    assert message.error_message == "The request was aborted"
