"""Governed tool metadata: x-review exposure, confirm injection and consumption, projections."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import UserMessage, without_confirm_request
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate._governance import (
    Governance,
    Review,
    action_digest,
    govern,
    is_confirm_forced,
    model_facing_schema,
    project_for_review,
    review_exposure,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "x-review": "include"},
        "content": {"type": "string", "x-review": "redact"},
        "token": {"type": "string", "x-review": "require_user"},
        "nested": {
            "type": "object",
            "x-review": "include",
            "properties": {"deep": {"type": "string", "x-review": "redact"}},
        },
    },
    "required": ["path"],
}


def test_review_exposure_reads_every_parameter() -> None:
    assert review_exposure(SCHEMA) == {
        "path": Review.INCLUDE,
        "content": Review.REDACT,
        "token": Review.REQUIRE_USER,
        "nested": Review.INCLUDE,
    }


def test_missing_or_unknown_exposure_is_an_error_naming_the_parameter() -> None:
    schema = {"properties": {"a": {"type": "string"}, "b": {"x-review": "maybe"}}}
    with pytest.raises(ValueError, match=r"a, b \('maybe'\)"):
        review_exposure(schema)


def test_model_facing_schema_strips_every_x_review_and_injects_confirm() -> None:
    facing = model_facing_schema(SCHEMA, owns_confirm=False)
    assert "x-review" not in repr(facing)
    assert facing["properties"]["confirm"] == {
        "type": "boolean",
        "description": "Set to true to ask a person to approve this call before it runs.",
    }
    assert "x-review" in repr(SCHEMA)  # the original is untouched
    owned = model_facing_schema(SCHEMA, owns_confirm=True)
    assert "confirm" not in owned["properties"]


def test_projection_redacts_and_withholds() -> None:
    args = {
        "path": "a.txt",
        "content": "s3cret body",
        "token": "t",
        "extra": [1, 2],
        "confirm": True,
    }
    projection = project_for_review(args, review_exposure(SCHEMA))
    assert projection.arguments == {
        "path": "a.txt",
        "content": "[redacted: 11 characters]",
        "extra": "[redacted: list of 2 items]",
    }
    assert projection.complete is False
    assert "s3cret" not in repr(projection)
    complete = project_for_review({"path": "a"}, review_exposure(SCHEMA))
    assert complete.complete is True


def test_digest_binds_exact_arguments_but_not_confirm() -> None:
    a = action_digest("write", {"path": "a", "content": "x"})
    assert a == action_digest("write", {"content": "x", "path": "a", "confirm": True})
    assert a != action_digest("write", {"path": "a", "content": "y"})
    assert a != action_digest("edit", {"path": "a", "content": "x"})


@pytest.mark.parametrize(
    ("raw", "args", "forced"),
    [
        ({"confirm": True}, {}, True),
        ({"confirm": "true"}, {}, True),
        ({}, {"confirm": True}, True),
        ({"confirm": False}, {"confirm": False}, False),
        ({}, {}, False),
        ("not a dict", None, False),
    ],
)
def test_confirm_is_read_from_the_raw_call_and_the_arguments(
    raw: Any, args: Any, forced: bool
) -> None:
    assert is_confirm_forced(raw, args) is forced


async def _record(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
    _record.seen.append(params)  # type: ignore[attr-defined]
    return "ok"


_record.seen = []  # type: ignore[attr-defined]


async def test_the_runtime_consumes_confirm_unless_the_tool_owns_it() -> None:
    _record.seen.clear()  # type: ignore[attr-defined]
    schema = {"type": "object", "properties": {"path": {"type": "string", "x-review": "include"}}}
    consumed = govern(
        AgentTool("c", "c", "d", schema, _record, metadata={"governance": Governance()})
    )
    owned_schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "x-review": "include"},
            "confirm": {"type": "boolean", "x-review": "include"},
        },
    }
    owned = govern(
        AgentTool(
            "o",
            "o",
            "d",
            owned_schema,
            _record,
            metadata={"governance": Governance(owns_confirm=True)},
        )
    )
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("c", {"path": "a", "confirm": True}),
                faux_tool_call("o", {"path": "b", "confirm": True}),
            ),
            faux_text("done"),
        ]
    )
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [consumed, owned]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream, tool_execution="sequential"),
    )
    await stream.result()
    assert _record.seen == [{"path": "a"}, {"path": "b", "confirm": True}]  # type: ignore[attr-defined]
    shown = {tool.name: tool.parameters for tool in fm.contexts[0].tools}
    assert "confirm" in shown["c"]["properties"] and "x-review" not in repr(shown)


async def test_a_governed_pydantic_tool_still_receives_a_model_instance() -> None:
    class Params(pydantic.BaseModel):
        path: str = pydantic.Field(json_schema_extra={"x-review": "include"})

    received: list[Any] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        received.append(params)
        return "ok"

    tool = govern(AgentTool("p", "p", "d", Params, execute, metadata={"governance": Governance()}))
    assert isinstance(tool.parameters, dict) and "confirm" in tool.parameters["properties"]
    fm = FauxModel(
        [faux_message(faux_tool_call("p", {"path": "x", "confirm": False})), faux_text("ok")]
    )
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [tool]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    await stream.result()
    assert received == [Params(path="x")]


def test_ungoverned_tools_pass_through_unchanged() -> None:
    tool = AgentTool("u", "u", "d", {"type": "object"}, _record)
    assert govern(tool) is tool


def test_the_injected_confirm_is_the_one_without_confirm_request_removes() -> None:
    facing = model_facing_schema(SCHEMA, owns_confirm=False)
    stripped = without_confirm_request(facing)
    assert stripped == model_facing_schema(SCHEMA, owns_confirm=True)
    assert "confirm" not in stripped["properties"]
