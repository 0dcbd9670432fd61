"""The embedded model is not offered the runtime's ``confirm``: neither in its grammar nor in the
tools its system message describes (a small model held to a schema fills in what it is shown,
and a ``confirm=true`` on a plain read is an approval nobody may be there to give)."""

from __future__ import annotations

import json

import pytest

from tether.ai import Context, Tool, UserMessage, confirm_request_schema

pytest.importorskip(
    "llama_cpp", reason="the tether[local] extra (llama-cpp-python) is not installed"
)

from tether.ai.providers.local import _provider as local
from tether.ai.providers.local._grammar import reply_grammar
from tether.ai.providers.local._prompt import chat_messages

READ = Tool(
    "read",
    "Read a file.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "confirm": confirm_request_schema()},
        "required": ["path"],
    },
)
OWN_CONFIRM = Tool(
    "book",
    "Book a table.",
    {
        "type": "object",
        "properties": {"confirm": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["confirm"],
    },
)


def test_the_grammar_has_no_injected_confirm() -> None:
    assert "confirm" in reply_grammar([READ], text_allowed=False), "the raw schema has it"

    shown = local._shown_tools([READ])

    grammar = reply_grammar(shown, text_allowed=False)
    assert "confirm" not in grammar
    assert "path" in grammar


def test_the_system_message_describes_no_injected_confirm() -> None:
    context = Context("Be brief.", [UserMessage("Read a.txt")], [READ])

    system, _ = chat_messages(context, local._shown_tools([READ]))

    assert "confirm" not in system["content"]
    assert json.dumps({"type": "string"}) in system["content"]


def test_a_tools_own_confirm_stays_in_the_grammar() -> None:
    (shown,) = local._shown_tools([OWN_CONFIRM])

    assert shown.parameters == OWN_CONFIRM.parameters
    assert "confirm" in reply_grammar([shown], text_allowed=False)
