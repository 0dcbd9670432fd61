"""to_json / from_json: transcripts round-trip losslessly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ai import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    from_json,
    to_json,
)

USER_TEXT = UserMessage("hello there", timestamp=1_700_000_000.25)
USER_BLOCKS = UserMessage(
    [TextContent("look at this"), ImageContent("aGVsbG8=", "image/png")],
    timestamp=1_700_000_001.5,
)
ASSISTANT = AssistantMessage(
    [
        ThinkingContent("the user wants a file"),
        TextContent("Reading it now."),
        ToolCall("call_1", "read", {"path": "a.txt", "range": [1, 10], "opts": {"raw": True}}),
    ],
    stop_reason="tool_use",
    model="faux-1",
    provider="faux",
    usage=Usage(input=120, output=30, cache_read=7, cache_write=3, total_tokens=160, cost=0.0042),
    timestamp=1_700_000_002.125,
)
ASSISTANT_ERROR = AssistantMessage(
    [TextContent("partial")],
    stop_reason="error",
    error_message="upstream returned 529: overloaded",
    timestamp=1_700_000_003.0,
)
TOOL_RESULT = ToolResultMessage(
    "call_1",
    "read",
    [TextContent("file contents"), ImageContent("iVBORw0KGgo=", "image/jpeg")],
    details={"lines": 10, "truncated": False, "meta": {"path": "a.txt", "hits": [1, None, "x"]}},
    is_error=True,
    added_tool_names=["write", "edit"],
    timestamp=1_700_000_004.75,
)

MESSAGES: list[Any] = [USER_TEXT, USER_BLOCKS, ASSISTANT, ASSISTANT_ERROR, TOOL_RESULT]
BLOCKS: list[Any] = [
    TextContent("t"),
    ImageContent("ZGF0YQ==", "image/gif"),
    ThinkingContent("hmm"),
    ToolCall("id", "name", {"a": [1, {"b": None}]}),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_message_round_trip(message: Any) -> None:
    text = to_json(message)
    assert isinstance(text, str)
    restored = from_json(text)
    assert type(restored) is type(message)
    assert restored == message
    assert from_json(text, type(message)) == message


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_message_round_trip_from_bytes(message: Any) -> None:
    assert from_json(to_json(message).encode()) == message


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: type(b).__name__)
def test_content_block_round_trip(block: Any) -> None:
    restored = from_json(to_json(block))
    assert type(restored) is type(block)
    assert restored == block


def test_json_carries_the_discriminators() -> None:
    assert json.loads(to_json(USER_TEXT))["role"] == "user"
    assert json.loads(to_json(ASSISTANT))["role"] == "assistant"
    assert json.loads(to_json(TOOL_RESULT))["role"] == "tool_result"
    assert [b["type"] for b in json.loads(to_json(ASSISTANT))["content"]] == [
        "thinking",
        "text",
        "tool_call",
    ]
    assert [b["type"] for b in json.loads(to_json(USER_BLOCKS))["content"]] == ["text", "image"]


def test_user_message_content_kinds_are_kept_apart() -> None:
    assert from_json(to_json(USER_TEXT)).content == "hello there"
    restored = from_json(to_json(USER_BLOCKS))
    assert restored.content == [TextContent("look at this"), ImageContent("aGVsbG8=", "image/png")]
    assert isinstance(restored.content[1], ImageContent)
    empty = UserMessage([], timestamp=1.0)
    assert from_json(to_json(empty)) == empty


def test_assistant_message_fields_survive() -> None:
    restored = from_json(to_json(ASSISTANT))
    assert restored.usage == ASSISTANT.usage
    assert isinstance(restored.usage, Usage)
    assert restored.stop_reason == "tool_use"
    assert restored.tool_calls() == [ASSISTANT.content[2]]
    assert restored.content[2].arguments == {
        "path": "a.txt",
        "range": [1, 10],
        "opts": {"raw": True},
    }
    assert from_json(to_json(ASSISTANT_ERROR)).error_message == "upstream returned 529: overloaded"


def test_tool_result_fields_survive() -> None:
    restored = from_json(to_json(TOOL_RESULT))
    assert restored.details == TOOL_RESULT.details
    assert restored.added_tool_names == ["write", "edit"]
    assert restored.is_error is True
    assert isinstance(restored.content[1], ImageContent)
    assert restored.content[1].mime_type == "image/jpeg"


@pytest.mark.parametrize(
    "details", [None, "text", 3, 2.5, True, [1, "a", None], {"a": {"b": [{"c": []}]}}, 2**70]
)
def test_tool_result_details_of_any_json_shape(details: Any) -> None:
    message = ToolResultMessage("c", "t", [], details=details, timestamp=1.0)
    restored = from_json(to_json(message))
    assert restored == message
    assert type(restored.details) is type(details)


def test_mixed_message_list_round_trip() -> None:
    restored = from_json(to_json(MESSAGES))
    assert restored == MESSAGES
    assert [type(m) for m in restored] == [type(m) for m in MESSAGES]
    assert from_json(to_json(MESSAGES), list[Any]) != MESSAGES  # untyped: plain dicts


def test_content_block_list_round_trip() -> None:
    restored = from_json(to_json(BLOCKS))
    assert restored == BLOCKS
    assert [type(b) for b in restored] == [type(b) for b in BLOCKS]


def test_empty_list_round_trip() -> None:
    assert from_json(to_json([])) == []


def test_from_json_with_an_explicit_kind_model() -> None:
    model = Model(
        "gpt-x",
        "openai",
        "openai-responses",
        base_url="https://example.invalid/v1",
        context_window=200_000,
        max_tokens=8_192,
        input=("text", "image"),
    )
    restored = from_json(to_json(model), Model)
    assert isinstance(restored, Model)
    assert restored == model
    assert restored.input == ("text", "image")


def test_from_json_with_explicit_kinds() -> None:
    usage = Usage(1, 2, 3, 4, 10, 0.25)
    assert from_json(to_json(usage), Usage) == usage
    tool = Tool("read", "Read a file", {"type": "object", "properties": {"p": {"type": "string"}}})
    assert from_json(to_json(tool), Tool) == tool
    context = Context("be brief", list(MESSAGES), [tool])
    assert from_json(to_json(context), Context) == context


def test_empty_added_tool_names_become_none() -> None:
    assert ToolResultMessage("c", "t", [], added_tool_names=[]).added_tool_names is None
    raw = json.dumps(
        {
            "role": "tool_result",
            "tool_call_id": "c",
            "tool_name": "t",
            "content": [],
            "added_tool_names": [],
            "timestamp": 1.0,
        }
    )
    assert from_json(raw).added_tool_names is None
    assert from_json(raw, ToolResultMessage).added_tool_names is None


def test_indent_is_only_formatting() -> None:
    pretty = to_json(ASSISTANT, indent=2)
    assert "\n" in pretty
    assert from_json(pretty) == ASSISTANT


def test_plain_json_values_pass_through() -> None:
    value = {"a": [1, 2.5, None, True, "x"], "b": {}}
    assert from_json(to_json(value)) == value


# --- property: any generated transcript round-trips ---------------------------------------------

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
_floats = st.floats(allow_nan=False, allow_infinity=False)
_json_leaves = st.none() | st.booleans() | st.integers() | _floats | _text
_json = st.recursive(
    _json_leaves,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=8,
)
_arguments = st.dictionaries(_text, _json, max_size=3)
_text_block = st.builds(TextContent, _text)
_image_block = st.builds(ImageContent, _text, _text)
_thinking_block = st.builds(ThinkingContent, _text)
_tool_call = st.builds(ToolCall, _text, _text, _arguments)
_usage = st.builds(
    Usage,
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    _floats,
)
_stop_reasons = st.sampled_from(["stop", "length", "tool_use", "error", "aborted"])

_user = st.builds(
    UserMessage,
    _text | st.lists(_text_block | _image_block, max_size=3),
    timestamp=_floats,
)
_assistant = st.builds(
    AssistantMessage,
    st.lists(_text_block | _thinking_block | _tool_call, max_size=3),
    stop_reason=_stop_reasons,
    model=_text,
    provider=_text,
    usage=_usage,
    error_message=st.none() | _text,
    timestamp=_floats,
)
_tool_result = st.builds(
    ToolResultMessage,
    _text,
    _text,
    st.lists(_text_block | _image_block, max_size=3),
    details=_json,
    is_error=st.booleans(),
    added_tool_names=st.none() | st.lists(_text, max_size=3),
    timestamp=_floats,
)
_messages = _user | _assistant | _tool_result


@settings(max_examples=150, deadline=None)
@given(_messages)
def test_any_message_round_trips(message: Any) -> None:
    text = to_json(message)
    assert from_json(text) == message
    assert from_json(text, type(message)) == message


@settings(max_examples=50, deadline=None)
@given(st.lists(_messages, max_size=4))
def test_any_transcript_round_trips(messages: list[Any]) -> None:
    restored = from_json(to_json(messages))
    assert restored == messages
    assert [type(m) for m in restored] == [type(m) for m in messages]
