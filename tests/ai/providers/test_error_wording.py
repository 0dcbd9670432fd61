"""Errors name the provider the person configured (``litellm-anth``, not "Anthropic"), a dropped
stream reads the same in every protocol, and a status is not repeated as its own code. The
error bodies are LiteLLM's proxy shape (``"code"`` the status as a string) and llama.cpp's
server's (``"code"`` the status as a number)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tether.ai import Context, Model, StreamOptions, UserMessage
from tether.ai.providers import get_model, load_models_config, stream

from . import responses_events as ev
from .anthropic_wire import block_start, delta, message_start
from .loopback import DISCONNECT, LoopbackServer, Reply, json_reply, sse

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
