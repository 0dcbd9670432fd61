"""Request fields without Python: ``extra_body`` in models.toml (per provider and per model)
and ``StreamOptions.tool_choice``, sent in each protocol's own form to a loopback server."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tether.ai import Context, Model, StreamOptions, Tool, UserMessage
from tether.ai.providers import ModelsConfigError, get_model, load_models_config, stream

from . import responses_events as ev
from .anthropic_wire import message_end, message_start, reply, text_block
from .loopback import LoopbackServer, Reply, sse

READ = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})

CONFIG = """\
[providers.llamacpp]
api = "openai-completions"
base_url = "http://127.0.0.1:8080/v1"
extra_body = { tool_choice = "required", top_k = 40, grammar_options = { strict = true } }

[[providers.llamacpp.models]]
id = "smollm2"
extra_body = { top_k = 20, repeat_penalty = 1.1 }

[[providers.llamacpp.models]]
id = "qwen"
"""


def write(home: Path, text: str) -> None:
    (home / "models.toml").write_text(textwrap.dedent(text), encoding="utf-8")


def test_extra_body_of_a_model_goes_over_its_providers(tether_home: Path) -> None:
    write(tether_home, CONFIG)
    load_models_config()
    assert get_model("llamacpp/smollm2").extra_body == {
        "tool_choice": "required",
        "top_k": 20,
        "grammar_options": {"strict": True},
        "repeat_penalty": 1.1,
    }
    assert get_model("llamacpp/qwen").extra_body == {
        "tool_choice": "required",
        "top_k": 40,
        "grammar_options": {"strict": True},
    }


def test_extra_body_on_a_built_in_provider_is_taken(tether_home: Path) -> None:
    write(
        tether_home,
        '[providers.openai]\nextra_body = { seed = 7 }\n[[providers.openai.models]]\nid = "o-x"\n',
    )
    load_models_config()
    assert get_model("openai/o-x").extra_body == {"seed": 7}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("extra_body = 5", "providers.llamacpp.extra_body: expected a table, got 5"),
        (
            "extra_body = { messages = [] }",
            "providers.llamacpp.extra_body.messages: tether builds this field from the "
            "conversation; extra_body may not set model, messages, input, system, "
            "instructions, stream, tools",
        ),
        ("extra_bdy = { top_k = 1 }", 'unknown key; did you mean "extra_body"?'),
    ],
)
def test_a_bad_extra_body_is_named_with_its_line(
    tether_home: Path, line: str, problem: str
) -> None:
    write(
        tether_home,
        f'[providers.llamacpp]\napi = "openai-completions"\nbase_url = "http://h:1/v1"\n{line}\n'
        '[[providers.llamacpp.models]]\nid = "m"\n',
    )
    with pytest.raises(ModelsConfigError) as caught:
        load_models_config()
    assert "models.toml, line 4: " in str(caught.value)
    assert problem in str(caught.value)


# -- the tool choice on the wire -----------------------------------------------------------------


def chat_reply() -> Reply:
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": "ok"}}]}
    done = {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return Reply(200, sse([chunk, done], done=True))


def responses_reply() -> Reply:
    events = [ev.created(), ev.message_added(0), ev.text_delta(0, "ok"), ev.completed()]
    return Reply(200, sse(events, named=True))


def anthropic_reply() -> Reply:
    return reply(message_start(), *text_block(0, "ok"), *message_end("end_turn"))


PROTOCOLS = {
    "openai-completions": chat_reply,
    "openai-responses": responses_reply,
    "anthropic-messages": anthropic_reply,
}
EXPECTED: dict[str, dict[str, Any]] = {
    "openai-completions": {
        "auto": "auto",
        "required": "required",
        "none": "none",
        "read": {"type": "function", "function": {"name": "read"}},
    },
    "openai-responses": {
        "auto": "auto",
        "required": "required",
        "none": "none",
        "read": {"type": "function", "name": "read"},
    },
    "anthropic-messages": {
        "auto": {"type": "auto"},
        "required": {"type": "any"},
        "none": {"type": "none"},
        "read": {"type": "tool", "name": "read"},
    },
}


@pytest.mark.parametrize("choice", ["auto", "required", "none", "read"])
@pytest.mark.parametrize("api", list(PROTOCOLS))
async def test_each_tool_choice_is_sent_in_the_protocols_form(api: str, choice: str) -> None:
    async with LoopbackServer([PROTOCOLS[api]()]) as server:
        base = server.url if api == "anthropic-messages" else f"{server.url}/v1"
        model = Model(id="m", provider="srv", api=api, base_url=base, extra_body={"top_k": 5})
        context = Context("", [UserMessage("hi")], [READ])
        options = StreamOptions(api_key="k", tool_choice=choice)
        events = [event async for event in stream(model, context, options)]
    assert events[-1].type == "done", events[-1].message.error_message  # type: ignore[union-attr]
    body = server.requests[0].json()
    assert body["tool_choice"] == EXPECTED[api][choice]
    assert body["top_k"] == 5


@pytest.mark.parametrize("api", list(PROTOCOLS))
async def test_no_tool_choice_is_sent_without_tools(api: str) -> None:
    async with LoopbackServer([PROTOCOLS[api]()]) as server:
        base = server.url if api == "anthropic-messages" else f"{server.url}/v1"
        model = Model(id="m", provider="srv", api=api, base_url=base)
        options = StreamOptions(api_key="k", tool_choice="required")
        events = [e async for e in stream(model, Context("", [UserMessage("hi")]), options)]
    assert events[-1].type == "done"
    assert "tool_choice" not in server.requests[0].json()
