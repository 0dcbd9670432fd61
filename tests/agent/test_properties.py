"""Property: whatever arguments a model sends, every tool call gets exactly one result, in source
order, the loop never raises, and no tool ever sees arguments that violate its schema."""

import asyncio
from collections import Counter
from typing import Any, Literal

import jsonschema_rs
import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.agent import (
    AbortSignal,
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    agent_loop,
)
from tether.ai import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    parameters_schema,
)
from tether.ai.faux import FauxModel, faux_message


class Shape(pydantic.BaseModel):
    x: int
    y: float = 0.0
    label: str | None = None
    kind: Literal["circle", "square"] = "circle"
    tags: list[str] = []


SCHEMAS: dict[str, Any] = {
    "echo": {
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 50}},
        "required": ["text"],
        "additionalProperties": False,
    },
    "math": {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "integer", "minimum": 0},
            "op": {"enum": ["add", "sub"]},
        },
        "required": ["a", "op"],
    },
    "flags": {
        "type": "object",
        "properties": {
            "on": {"type": "boolean"},
            "nested": {
                "type": "object",
                "properties": {
                    "depth": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["depth"],
            },
        },
    },
    "listing": {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "number"}, "maxItems": 5},
            "mode": {"type": ["string", "null"]},
        },
        "required": ["items"],
    },
    "anything": {"type": "object"},
    "prepared": {
        "type": "object",
        "properties": {"value": {"type": ["string", "number", "boolean", "null"]}},
        "required": ["value"],
    },
    "serial": {"type": "object", "properties": {"n": {"type": "integer"}}},
    "shape": Shape,
}
KEYS = sorted(
    {"text", "a", "b", "op", "on", "nested", "depth", "tags", "items", "mode", "value"}
    | {"n", "x", "y", "label", "kind"}
)
NAMES = [*SCHEMAS, "no_such_tool"]


def prepare(arguments: Any) -> Any:
    """A compatibility shim that sometimes fails: lists are refused, scalars wrapped."""
    if isinstance(arguments, list):
        raise ValueError(f"cannot prepare a list of {len(arguments)} items")
    if not isinstance(arguments, dict):
        return {"value": arguments}
    if "boom" in arguments:
        raise KeyError("boom")
    return arguments


def build_tools(executed: list[str], violations: list[Any]) -> list[AgentTool]:
    tools = []
    for name, parameters in SCHEMAS.items():
        validator = jsonschema_rs.validator_for(parameters_schema(parameters))

        def make_execute(name: str = name, validator: Any = validator) -> Any:
            async def execute(
                call_id: str, params: Any, signal: AbortSignal, on_update: Any
            ) -> str:
                executed.append(call_id)
                if isinstance(params, pydantic.BaseModel):
                    if not isinstance(params, Shape):
                        violations.append((name, call_id, "not a Shape", params))
                    params = params.model_dump(mode="json")
                if not validator.is_valid(params):
                    violations.append((name, call_id, params))
                return f"{name} ran"

            return execute

        tools.append(
            AgentTool(
                name,
                name.title(),
                f"The {name} tool.",
                parameters,
                make_execute(),
                prepare_arguments=prepare if name == "prepared" else None,
                execution_mode="sequential" if name == "serial" else None,
            )
        )
    return tools


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    # Near-misses that validation coerces, and enum members.
    st.sampled_from(["1", "-3", "2.5", "true", "false", "add", "sub", "circle", "square", ""]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=5)), children, max_size=4
        ),
    ),
    max_leaves=12,
)
# Arguments: anything at all, or objects built from the keys the schemas know (more of them pass).
arguments = st.one_of(
    json_values,
    st.dictionaries(st.sampled_from([*KEYS, "boom"]), json_values, max_size=5),
)
calls = st.lists(st.tuples(st.sampled_from(NAMES), arguments), min_size=1, max_size=6)


def run(tool_calls: list[ToolCall], mode: Literal["parallel", "sequential"]) -> dict[str, Any]:
    executed: list[str] = []
    violations: list[Any] = []
    tools = build_tools(executed, violations)
    fm = FauxModel([faux_message(*tool_calls), faux_message("done")])

    async def main() -> tuple[list[Any], list[Any]]:
        stream = agent_loop(
            [UserMessage("go")],
            AgentContext("", [], tools),
            AgentLoopConfig(model=fm.model, stream_fn=fm.stream, tool_execution=mode),
        )
        events = [event async for event in stream]
        return events, await stream.result()

    events, messages = asyncio.run(main())
    return {"events": events, "messages": messages, "executed": executed, "violations": violations}


@settings(max_examples=100, deadline=None)
@given(calls=calls, mode=st.sampled_from(["parallel", "sequential"]))
def test_every_call_gets_one_result_and_tools_see_only_valid_arguments(
    calls: list[tuple[str, Any]], mode: Literal["parallel", "sequential"]
) -> None:
    tool_calls = [ToolCall(f"call_{i}", name, args) for i, (name, args) in enumerate(calls)]
    ids = [c.id for c in tool_calls]

    outcome = run(tool_calls, mode)  # never raises
    events, messages = outcome["events"], outcome["messages"]

    assert outcome["violations"] == []
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ids
    assert [r.tool_name for r in results] == [c.name for c in tool_calls]
    turn_end = next(e for e in events if e.type == "turn_end" and e.tool_results)
    assert [r.tool_call_id for r in turn_end.tool_results] == ids
    for kind in ("tool_execution_start", "tool_execution_end"):
        assert Counter(e.tool_call_id for e in events if e.type == kind) == Counter(ids)

    executed = outcome["executed"]
    assert sorted(executed) == sorted(set(executed))  # no call executed twice
    for call, result in zip(tool_calls, results, strict=True):
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        if call.id in executed:
            assert result.is_error is False
            assert text == f"{call.name} ran"
        else:
            assert result.is_error is True
            assert text
        if call.name == "no_such_tool":
            assert result.is_error
            assert "no_such_tool" in text
    if mode == "sequential" or any(c.name == "serial" for c in tool_calls):
        assert executed == [i for i in ids if i in executed]  # ran in source order

    assert [e.type for e in events][-1] == "agent_end"
    final = messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "stop"


def test_the_strategy_reaches_every_outcome() -> None:
    # The property above only means something if some calls run and some are refused.
    outcome = run(
        [
            ToolCall("a", "math", {"a": "2.5", "op": "add", "b": "3"}),
            ToolCall("b", "prepared", 7),
            ToolCall("c", "prepared", [1]),
            ToolCall("d", "shape", {"x": "4", "tags": ["t"]}),
            ToolCall("e", "echo", {"text": 5}),
            ToolCall("f", "flags", {"nested": {"tags": []}}),
            ToolCall("g", "no_such_tool", {}),
        ],
        "parallel",
    )
    assert outcome["violations"] == []
    assert outcome["executed"] == ["a", "b", "d", "e"]
    results = [m for m in outcome["messages"] if isinstance(m, ToolResultMessage)]
    assert [r.is_error for r in results] == [False, False, True, False, False, True, True]
