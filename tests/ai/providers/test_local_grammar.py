"""The local model's grammar and prompt, without running the model."""

from __future__ import annotations

import json
import re

import pytest

from tether.ai import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

pytest.importorskip(
    "llama_cpp", reason="the tether[local] extra (llama-cpp-python) is not installed"
)

from tether.ai.providers.local._grammar import integer_range, reply_grammar
from tether.ai.providers.local._prompt import TOOL_INSTRUCTIONS, chat_messages


def as_regex(expression: str) -> re.Pattern[str]:
    """The GBNF subset integer_range writes (literals, classes, groups, {m,n}) as a regex."""
    body = re.sub(r'"([^"]*)"', lambda m: re.escape(m.group(1)), expression).replace(" ", "")
    return re.compile(f"(?:{body})")


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        (1, None),
        (0, None),
        (None, None),
        (5, 123),
        (-50, 7),
        (-7, -3),
        (None, -10),
        (12, 12),
        (99, 1001),
        (None, 5),
        (0, 0),
        (-1, 1),
    ],
)
def test_integer_range_accepts_exactly_the_integers_in_the_range(lower, upper) -> None:
    expression = integer_range(lower, upper)
    assert expression is not None
    pattern = as_regex(expression)
    for number in [*range(-1200, 1200), 10**15, 10**15 + 7, -(10**15)]:
        inside = (lower is None or number >= lower) and (upper is None or number <= upper)
        assert bool(pattern.fullmatch(str(number))) == inside, number
    for not_json in ("01", "-0", "00", "-01", "+1"):
        assert not pattern.fullmatch(not_json)


def test_an_empty_integer_range_has_no_expression() -> None:
    assert integer_range(3, 2) is None


def grammar_rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines())


def test_the_reply_is_a_call_of_one_of_the_tools_or_text_not_starting_with_a_brace() -> None:
    tools = [
        Tool("read", "", {"type": "object", "properties": {"path": {"type": "string"}}}),
        Tool("ls", "", {"type": "object"}),
    ]

    free = grammar_rules(reply_grammar(tools, text_allowed=True))
    forced = grammar_rules(reply_grammar(tools, text_allowed=False))

    assert free["root"] == "tool-call | free-text"
    assert free["free-text"].startswith("[^{]")
    assert forced["root"] == "tool-call"
    heads = [
        json.dumps('{"name": "read", "arguments": '),
        json.dumps('{"name": "ls", "arguments": '),
    ]
    assert forced["tool-call"] == f'{heads[0]} tool-0 "}}" | {heads[1]} tool-1 "}}"'
    assert forced["tool-1"] == "object"  # no properties: any JSON object


def test_strings_in_a_call_hold_no_raw_control_characters() -> None:
    tools = [Tool("say", "", {"type": "object", "properties": {"text": {"type": "string"}}})]

    rules = grammar_rules(reply_grammar(tools, text_allowed=False))

    assert rules["char"].startswith(r'[^"\\\x7F\x00-\x1F]')


def test_two_tools_defining_the_same_name_keep_their_own_definitions() -> None:
    def tool(name: str, item: dict[str, object]) -> Tool:
        return Tool(
            name,
            "",
            {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/Item"}},
                "required": ["x"],
                "$defs": {"Item": item},
            },
        )

    rules = grammar_rules(
        reply_grammar(
            [tool("a", {"enum": ["one"]}), tool("b", {"enum": ["two"]})], text_allowed=False
        )
    )

    assert rules["tool-0-Item"] == json.dumps(json.dumps("one"))
    assert rules["tool-1-Item"] == json.dumps(json.dumps("two"))


def test_bounded_integers_and_positive_numbers_are_in_the_grammar() -> None:
    schema = {
        "type": "object",
        "properties": {
            "offset": {"type": "integer", "minimum": 1},
            "timeout": {"type": "number", "exclusiveMinimum": 0},
        },
    }

    rules = grammar_rules(reply_grammar([Tool("t", "", schema)], text_allowed=False))

    assert rules["tool-0-offset"] == f"({integer_range(1, None)}) space"
    assert '"0." [0-9]{0,15} [1-9]' in rules["tool-0-timeout"]


def test_a_schema_the_converter_cannot_read_leaves_any_object() -> None:
    broken = Tool("odd", "", {"type": "object", "properties": {"x": {"$ref": "https://far/away"}}})

    rules = grammar_rules(reply_grammar([broken], text_allowed=False))

    assert rules["tool-call"].endswith('object "}"')


def test_the_prompt_shows_calls_in_the_shape_the_grammar_allows_and_results_from_the_tool() -> None:
    read = Tool(
        "read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    context = Context(
        "Be brief.",
        [
            UserMessage([TextContent("What is here?"), ImageContent("AAAA", "image/png")]),
            AssistantMessage([TextContent("Looking."), ToolCall("c1", "read", {"path": "a.txt"})]),
            ToolResultMessage("c1", "read", [TextContent("hello")]),
        ],
        [read],
    )

    system, user, assistant, result = chat_messages(context, [read])

    assert system["role"] == "system"
    assert system["content"].startswith("Be brief.\n\n" + TOOL_INSTRUCTIONS)
    assert "- read: Read a file.\n  Parameters: " + json.dumps(read.parameters) in system["content"]
    assert user == {
        "role": "user",
        "content": "What is here?\n(image omitted: this model does not accept images)",
    }
    assert assistant == {
        "role": "assistant",
        "content": 'Looking.\n{"name": "read", "arguments": {"path": "a.txt"}}',
    }
    assert result == {"role": "tool", "content": "hello"}


def test_without_tools_the_system_prompt_is_left_as_it_is() -> None:
    messages = chat_messages(Context("Be brief.", [UserMessage("hi")]), [])

    assert messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
