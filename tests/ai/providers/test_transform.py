"""transform_messages: the transcript as one model may be sent it, and the
dispatcher applying it before every request."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ai import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    to_json,
)
from tether.ai.providers import API_MODULES, complete, transform_messages

from . import recording_protocol

SONNET = Model(
    id="claude-sonnet-4-5",
    provider="anthropic",
    api="anthropic-messages",
    input=("text", "image"),
)
GPT_CHAT = Model(id="gpt-4.1", provider="openai", api="openai-completions", input=("text", "image"))
GPT_RESPONSES = Model(
    id="gpt-5", provider="openai", api="openai-responses", input=("text", "image")
)
TEXT_ONLY = Model(id="qwen", provider="ollama", api="openai-completions")
TARGETS = [SONNET, GPT_CHAT, GPT_RESPONSES, TEXT_ONLY]
LIMITS = {"anthropic-messages": 64, "openai-completions": 40, "openai-responses": 64}
NOTE = "(image omitted: this model does not accept images)"
IMAGE = ImageContent("aGVsbG8=", "image/png")


def assistant(*content, stop_reason="tool_use", source=GPT_RESPONSES) -> AssistantMessage:
    return AssistantMessage(
        list(content),
        stop_reason=stop_reason,
        model=source.id,
        provider=source.provider,
        api=source.api,
        timestamp=100.0,
    )


def call(call_id: str, name: str = "read") -> ToolCall:
    return ToolCall(call_id, name, {"path": "a.txt"})


def result(call_id: str, text: str = "done", name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(call_id, name, [TextContent(text)])


def roles(messages: list[Message]) -> list[str]:
    return [m.role for m in messages]


def fits(call_id: str, api: str) -> bool:
    return re.fullmatch(rf"[A-Za-z0-9_-]{{1,{LIMITS[api]}}}", call_id) is not None


# -- failed turns -------------------------------------------------------------------------------


@pytest.mark.parametrize("stop_reason", ["error", "aborted"])
def test_a_failed_assistant_message_and_the_results_of_its_calls_are_dropped(stop_reason):
    failed = assistant(TextContent("partial"), call("c9"), stop_reason=stop_reason)
    messages = [UserMessage("go"), failed, result("c9"), UserMessage("again")]
    out = transform_messages(messages, SONNET)
    assert out == [messages[0], messages[3]]


def test_results_of_an_earlier_call_survive_a_failed_message_between():
    first = assistant(call("c1"))
    messages = [first, assistant(stop_reason="error"), result("c1")]
    assert roles(transform_messages(messages, SONNET)) == ["assistant", "tool_result"]
    assert transform_messages(messages, SONNET)[1] is messages[2]


# -- calls without results ----------------------------------------------------------------------


def test_a_call_without_result_gets_an_error_result_before_the_next_user_message():
    messages = [assistant(call("c1"), call("c2")), result("c1"), UserMessage("next")]
    out = transform_messages(messages, SONNET)
    assert roles(out) == ["assistant", "tool_result", "tool_result", "user"]
    synthetic = out[2]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.is_error) == ("c2", "read", True)
    assert synthetic.content == [TextContent("no result was recorded for this call")]
    assert out[1] is messages[1]


def test_a_missing_result_is_placed_before_the_next_assistant_message_and_at_the_end():
    messages = [assistant(call("c1", "bash")), assistant(call("c2"), stop_reason="tool_use")]
    out = transform_messages(messages, SONNET)
    assert roles(out) == ["assistant", "tool_result", "assistant", "tool_result"]
    assert [(m.tool_call_id, m.tool_name) for m in out if isinstance(m, ToolResultMessage)] == [
        ("c1", "bash"),
        ("c2", "read"),
    ]


def test_a_second_result_for_one_call_and_a_result_for_no_call_are_dropped():
    messages = [
        UserMessage("go"),
        result("stray"),
        assistant(call("c1")),
        result("c1", "first"),
        result("c1", "second"),
        result("c7"),
    ]
    out = transform_messages(messages, SONNET)
    assert roles(out) == ["user", "assistant", "tool_result"]
    assert out[2] is messages[3]


def test_a_result_after_the_next_user_message_no_longer_answers_the_call():
    messages = [assistant(call("c1")), UserMessage("steer"), result("c1")]
    out = transform_messages(messages, SONNET)
    assert roles(out) == ["assistant", "tool_result", "user"]
    assert out[1].content == [TextContent("no result was recorded for this call")]


# -- thinking -----------------------------------------------------------------------------------


def signed() -> ThinkingContent:
    return ThinkingContent("I should read it", signature="sig-abc")


def test_signed_thinking_is_replayed_to_the_model_that_wrote_it():
    message = assistant(signed(), TextContent("ok"), stop_reason="stop", source=SONNET)
    out = transform_messages([message], SONNET)
    assert out[0] is message


@pytest.mark.parametrize(
    "other",
    [
        Model(id="claude-opus-4-1", provider="anthropic", api="anthropic-messages"),
        Model(id="claude-sonnet-4-5", provider="proxy", api="anthropic-messages"),
        Model(id="claude-sonnet-4-5", provider="anthropic", api="openai-completions"),
    ],
)
def test_thinking_becomes_plain_text_for_any_other_model(other):
    message = assistant(signed(), TextContent("ok"), stop_reason="stop", source=SONNET)
    (out,) = transform_messages([message], other)
    assert out.content == [TextContent("I should read it"), TextContent("ok")]
    assert message.content[0] == signed()


def test_redacted_and_empty_thinking_are_dropped_for_other_models():
    message = assistant(
        ThinkingContent("", signature="opaque", redacted=True),
        ThinkingContent("  \n", signature="sig"),
        ThinkingContent("unsigned thought"),
        TextContent("answer"),
        stop_reason="stop",
        source=SONNET,
    )
    (out,) = transform_messages([message], GPT_CHAT)
    assert out.content == [TextContent("unsigned thought"), TextContent("answer")]


def test_a_message_left_empty_is_dropped():
    only_redacted = assistant(
        ThinkingContent("", signature="opaque", redacted=True), stop_reason="stop", source=SONNET
    )
    hello = UserMessage("hi")
    assert transform_messages([hello, only_redacted], GPT_CHAT) == [hello]


def test_same_model_keeps_redacted_and_unsigned_thinking_but_not_empty_unsigned():
    redacted = ThinkingContent("", signature="opaque", redacted=True)
    unsigned = ThinkingContent("reasoning_content text")
    message = assistant(redacted, unsigned, ThinkingContent(""), stop_reason="stop", source=SONNET)
    (out,) = transform_messages([message], SONNET)
    assert out.content == [redacted, unsigned]
    assert out.content[0] is redacted


# -- images -------------------------------------------------------------------------------------


def test_images_reach_only_models_with_image_input():
    user = UserMessage([TextContent("look"), IMAGE, IMAGE, TextContent("and"), IMAGE])
    tool = assistant(call("c1"))
    shot = ToolResultMessage("c1", "screenshot", [IMAGE])
    assert transform_messages([user, tool, shot], SONNET)[0] is user
    out = transform_messages([user, tool, shot], TEXT_ONLY)
    assert out[0].content == [
        TextContent("look"),
        TextContent(NOTE),
        TextContent("and"),
        TextContent(NOTE),
    ]
    assert out[2].content == [TextContent(NOTE)]
    assert (out[2].tool_call_id, out[2].tool_name) == ("c1", "screenshot")
    assert user.content[1] is IMAGE


def test_a_text_user_message_passes_unchanged():
    message = UserMessage("plain")
    assert transform_messages([message], TEXT_ONLY)[0] is message


# -- tool-call ids ------------------------------------------------------------------------------


def test_ids_are_fitted_to_the_target_and_results_follow():
    long_id = "call_" + "x|" * 200
    messages = [
        assistant(call("call_1|fc_2"), call(long_id)),
        result("call_1|fc_2"),
        result(long_id),
    ]
    for target in (SONNET, GPT_CHAT):
        out = transform_messages(messages, target)
        calls = out[0].tool_calls()
        assert all(fits(c.id, target.api) for c in calls)
        assert [m.tool_call_id for m in out[1:]] == [c.id for c in calls]
        assert calls[0].id == "call_1_fc_2"
    assert messages[0].tool_calls()[0].id == "call_1|fc_2"


def test_the_targets_own_ids_pass_unchanged():
    own = "call_abc|fc_" + "9" * 60
    messages = [assistant(call(own), source=GPT_RESPONSES), result(own)]
    out = transform_messages(messages, GPT_RESPONSES)
    assert out == messages
    assert out[0] is messages[0]


def test_ids_stay_unique_after_rewriting():
    messages = [
        assistant(call("a|b"), call("a_b")),
        result("a_b", "second"),
        result("a|b", "first"),
        assistant(call("a|b")),  # the same id again, in a later turn
        result("a|b", "third"),
    ]
    out = transform_messages(messages, SONNET)
    first_calls, later_calls = out[0].tool_calls(), out[3].tool_calls()
    ids = [c.id for c in first_calls + later_calls]
    assert len(set(ids)) == 3
    assert all(fits(i, SONNET.api) for i in ids)
    by_text = {m.content[0].text: m.tool_call_id for m in out if isinstance(m, ToolResultMessage)}
    assert by_text == {"first": first_calls[0].id, "second": first_calls[1].id, "third": ids[2]}


def test_ids_are_the_same_on_every_request_and_as_the_transcript_grows():
    turn = [assistant(call("x" * 100), call("y|" * 10)), result("x" * 100), result("y|" * 10)]
    once = transform_messages(turn, GPT_CHAT)
    assert to_json(transform_messages(turn, GPT_CHAT)) == to_json(once)
    grown = transform_messages([*turn, UserMessage("more"), assistant(call("x" * 100))], GPT_CHAT)
    assert to_json(grown[: len(once)]) == to_json(once)


def test_an_empty_id_gets_one():
    out = transform_messages([assistant(call("")), result("")], SONNET)
    assert fits(out[0].tool_calls()[0].id, SONNET.api)
    assert out[1].tool_call_id == out[0].tool_calls()[0].id


def test_the_input_is_never_changed():
    messages = [
        UserMessage([TextContent("see"), IMAGE]),
        assistant(signed(), call("a|b"), call("c" * 90)),
        result("a|b"),
        assistant(call("z"), stop_reason="aborted"),
        result("z"),
    ]
    before = to_json(messages)
    transform_messages(messages, TEXT_ONLY)
    assert to_json(messages) == before


# -- the property: every call answered exactly once, every id fits ------------------------------

IDS = st.sampled_from(["c1", "c2", "c|3", "", "toolu_01", "x" * 70, "call_9|fc_" + "f" * 60])
SOURCES = st.sampled_from([SONNET, GPT_CHAT, GPT_RESPONSES, TEXT_ONLY])
STOP_REASONS = st.sampled_from(["stop", "tool_use", "length", "error", "aborted"])
USER = st.builds(lambda: UserMessage([TextContent("u"), IMAGE]))
THINKING = st.builds(
    ThinkingContent,
    thinking=st.sampled_from(["", "t"]),
    signature=st.sampled_from([None, "s"]),
    redacted=st.booleans(),
)
ASSISTANT = st.builds(
    lambda blocks, stop_reason, source: assistant(*blocks, stop_reason=stop_reason, source=source),
    st.lists(st.one_of(st.builds(call, IDS), THINKING, st.just(TextContent("a"))), max_size=4),
    STOP_REASONS,
    SOURCES,
)
RESULT = st.builds(lambda i: ToolResultMessage(i, "read", [TextContent("r"), IMAGE]), IDS)
TRANSCRIPTS = st.lists(st.one_of(USER, ASSISTANT, RESULT, RESULT), max_size=14)


@settings(max_examples=300, deadline=None)
@given(TRANSCRIPTS, st.sampled_from(TARGETS))
def test_after_transform_every_call_has_exactly_one_result_and_fits(messages, target):
    before = to_json(messages)
    out = transform_messages(messages, target)
    assert to_json(messages) == before
    open_calls: Counter[str] | None = None
    seen_ids: list[str] = []
    for message in out:
        if isinstance(message, ToolResultMessage):
            assert open_calls is not None and open_calls[message.tool_call_id] == 1
            open_calls[message.tool_call_id] -= 1
            if "image" not in target.input:
                assert all(isinstance(block, TextContent) for block in message.content)
            continue
        assert open_calls is None or not +open_calls, "a call left without result"
        open_calls = None
        if isinstance(message, AssistantMessage):
            assert message.stop_reason not in ("error", "aborted")
            assert message.content
            calls = [c.id for c in message.tool_calls()]
            own = (message.provider, message.api) == (target.provider, target.api)
            assert own or all(fits(i, target.api) for i in calls)
            seen_ids.extend(calls)
            open_calls = Counter(calls)
            same_model = own and message.model == target.id
            thinking = [b for b in message.content if isinstance(b, ThinkingContent)]
            assert same_model or not thinking
    assert open_calls is None or not +open_calls
    assert len(seen_ids) == len(set(seen_ids))
    assert to_json(transform_messages(messages, target)) == to_json(out)


# -- the dispatcher applies it ------------------------------------------------------------------


async def test_stream_sends_the_protocol_the_repaired_transcript(monkeypatch):
    monkeypatch.setitem(API_MODULES, "recording", recording_protocol.__name__)
    recording_protocol.contexts.clear()
    model = Model(id="rec-1", provider="test", api="recording")
    messages = [
        UserMessage([TextContent("hi"), IMAGE]),
        assistant(call("c|1"), source=GPT_RESPONSES),
        assistant(TextContent("cut off"), stop_reason="aborted"),
        UserMessage("again"),
    ]
    context = Context(system_prompt="be brief", messages=list(messages))
    final = await complete(model, context)
    assert final.text() == "ok"
    (sent,) = recording_protocol.contexts
    assert to_json(sent.messages) == to_json(transform_messages(messages, model))
    assert roles(sent.messages) == ["user", "assistant", "tool_result", "user"]
    assert sent.messages[0].content[1] == TextContent(NOTE)
    assert sent.system_prompt == "be brief"
    assert context.messages == messages
