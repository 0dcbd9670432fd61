"""validate_tool_arguments: schema checks with coercion of the near-misses models produce."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest

from tether.ai import (
    Tool,
    ToolArgumentsError,
    ToolCall,
    validate_arguments,
    validate_tool_arguments,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "note": {"type": "string"},
        "items": {"type": "array", "items": {"type": "number"}},
        "nested": {
            "type": "object",
            "properties": {
                "level": {"type": "integer"},
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"on": {"type": "boolean"}, "label": {"type": "string"}},
                        "required": ["on"],
                    },
                },
            },
        },
    },
    "required": ["name"],
}

REF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "y": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            },
            "required": ["x"],
        }
    },
    "properties": {
        "origin": {"$ref": "#/$defs/Point"},
        "path": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
        "scale": {"anyOf": [{"type": "number"}, {"type": "null"}]},
    },
    "required": ["origin"],
}

TOOL = Tool("x", "a test tool", SCHEMA)
REF_TOOL = Tool("geo", "a tool with $defs", REF_SCHEMA)


def call(arguments: dict[str, Any], name: str = "x") -> ToolCall:
    return ToolCall("call_1", name, arguments)


def validate(arguments: dict[str, Any], tool: Tool = TOOL) -> dict[str, Any]:
    return validate_tool_arguments(tool, call(arguments, tool.name))


def rejection(arguments: dict[str, Any], tool: Any = TOOL) -> ToolArgumentsError:
    with pytest.raises(ToolArgumentsError) as info:
        validate_tool_arguments(tool, call(arguments, tool.name))
    return info.value


def paths(error: ToolArgumentsError) -> list[str]:
    return [e.path for e in error.errors]


# --- valid arguments ----------------------------------------------------------------------------


def test_valid_arguments_are_returned_as_an_equal_copy() -> None:
    arguments = {"name": "a", "count": 2, "ratio": 0.5, "flag": True, "items": [1, 2.5]}
    tool_call = call(arguments)
    result = validate_tool_arguments(TOOL, tool_call)
    assert result == arguments
    assert result is not tool_call.arguments


def test_nested_containers_of_valid_arguments_are_copies() -> None:
    arguments = {
        "name": "a",
        "items": [1, 2],
        "nested": {"level": 1, "entries": [{"on": True, "label": "l"}]},
    }
    snapshot = json.loads(json.dumps(arguments))
    tool_call = call(arguments)
    result = validate_tool_arguments(TOOL, tool_call)
    assert result["items"] is not arguments["items"]
    assert result["nested"] is not arguments["nested"]
    assert result["nested"]["entries"] is not arguments["nested"]["entries"]
    assert result["nested"]["entries"][0] is not arguments["nested"]["entries"][0]
    result["items"].append(99)
    result["nested"]["level"] = 42
    result["nested"]["entries"][0]["label"] = "changed"
    result["nested"]["entries"].append({"on": False})
    result["name"] = "changed"
    assert tool_call.arguments == snapshot


def test_flat_valid_arguments_are_a_copy() -> None:
    tool_call = call({"name": "a", "count": 1})
    result = validate_tool_arguments(TOOL, tool_call)
    result["count"] = 5
    result["extra"] = True
    assert tool_call.arguments == {"name": "a", "count": 1}


def test_coerced_arguments_are_copies_too() -> None:
    arguments = {"name": 5, "nested": {"level": "3", "entries": [{"on": "true"}]}}
    snapshot = json.loads(json.dumps(arguments))
    tool_call = call(arguments)
    result = validate_tool_arguments(TOOL, tool_call)
    assert result == {"name": "5", "nested": {"level": 3, "entries": [{"on": True}]}}
    result["nested"]["entries"][0]["on"] = False
    result["nested"]["level"] = 0
    assert tool_call.arguments == snapshot  # the received arguments were never modified


def test_the_tool_call_arguments_are_not_modified_by_coercion() -> None:
    tool_call = call({"name": 42, "note": None, "items": ["1", "2"]})
    validate_tool_arguments(TOOL, tool_call)
    assert tool_call.arguments == {"name": 42, "note": None, "items": ["1", "2"]}


# --- coercions ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [(42, "42"), (3.5, "3.5"), (-7, "-7"), (0, "0"), (True, "true"), (False, "false")],
)
def test_numbers_and_booleans_become_strings(given: Any, expected: str) -> None:
    result = validate({"name": given})
    assert result == {"name": expected}
    assert isinstance(result["name"], str)


@pytest.mark.parametrize(
    ("given", "expected"),
    [("3", 3), ("2.5", 2.5), ("-4", -4), ("0", 0), ("1e3", 1000), (" 8 ", 8)],
)
def test_numeric_strings_become_numbers(given: str, expected: float) -> None:
    result = validate({"name": "a", "ratio": given})
    assert result == {"name": "a", "ratio": expected}
    assert isinstance(result["ratio"], int | float)
    assert not isinstance(result["ratio"], bool)


def test_numeric_string_for_a_number_keeps_integers_integral() -> None:
    result = validate({"name": "a", "ratio": "3"})
    assert result["ratio"] == 3
    assert type(result["ratio"]) is int


@pytest.mark.parametrize(("given", "expected"), [("7", 7), ("-12", -12), ("7.0", 7)])
def test_integer_strings_become_integers(given: str, expected: int) -> None:
    result = validate({"name": "a", "count": given})
    assert result == {"name": "a", "count": expected}
    assert type(result["count"]) is int


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("true", True),
        ("false", False),
        ("TRUE", True),
        ("False", False),
        ("tRuE", True),
        (" true ", True),
    ],
)
def test_boolean_strings_become_booleans(given: str, expected: bool) -> None:
    result = validate({"name": "a", "flag": given})
    assert result == {"name": "a", "flag": expected}
    assert result["flag"] is expected


def test_null_for_an_optional_property_is_dropped() -> None:
    result = validate({"name": "a", "note": None, "count": None})
    assert result == {"name": "a"}


def test_null_for_a_required_property_is_an_error() -> None:
    error = rejection({"name": None})
    assert paths(error) == ["name"]
    assert "null" in error.errors[0].reason


@pytest.mark.parametrize(
    ("value", "shown"),
    [(float("inf"), "Infinity"), (float("-inf"), "-Infinity"), (float("nan"), "NaN")],
)
def test_a_non_finite_number_is_named_as_such_at_its_path(value: float, shown: str) -> None:
    error = rejection({"origin": {"x": value}}, REF_TOOL)
    assert [(e.path, e.reason) for e in error.errors] == [
        ("origin.x", f"{shown} is not a finite number")
    ]


@pytest.mark.parametrize(
    ("arguments", "path"),
    [({"w": float("inf")}, "w"), ({"a": [1, {"b": float("nan")}]}, "a[1].b")],
)
def test_a_non_finite_number_is_refused_even_where_the_schema_allows_anything(
    arguments: dict[str, Any], path: str
) -> None:
    open_tool = Tool("open", "any arguments", {"type": "object"})
    error = rejection(arguments, open_tool)
    assert [e.path for e in error.errors] == [path]
    assert error.errors[0].reason.endswith("is not a finite number")
    assert validate({"name": "a", "count": 2}) == {"name": "a", "count": 2}


def test_nested_objects_and_arrays_are_coerced() -> None:
    result = validate(
        {
            "name": 1,
            "items": ["1", "2.5", 3, "-4"],
            "nested": {
                "level": "2",
                "entries": [{"on": "true", "label": 7}, {"on": "FALSE", "label": None}],
            },
        }
    )
    assert result == {
        "name": "1",
        "items": [1, 2.5, 3, -4],
        "nested": {"level": 2, "entries": [{"on": True, "label": "7"}, {"on": False}]},
    }


def test_several_coercions_at_once() -> None:
    result = validate({"name": True, "count": "3", "ratio": "0.25", "flag": "false"})
    assert result == {"name": "true", "count": 3, "ratio": 0.25, "flag": False}


def test_ref_and_defs_are_followed_for_coercion() -> None:
    result = validate(
        {"origin": {"x": "1.5", "y": "2"}, "path": [{"x": "3"}, {"x": 4, "y": "5"}]},
        REF_TOOL,
    )
    assert result == {"origin": {"x": 1.5, "y": 2}, "path": [{"x": 3}, {"x": 4, "y": 5}]}


def test_any_of_with_null_accepts_null_and_coerces_strings() -> None:
    assert validate({"origin": {"x": 1, "y": None}, "scale": None}, REF_TOOL) == {
        "origin": {"x": 1, "y": None},
        "scale": None,
    }
    assert validate({"origin": {"x": 1}, "scale": "4"}, REF_TOOL) == {
        "origin": {"x": 1},
        "scale": 4,
    }


def test_nullable_type_list_keeps_null_and_coerces_the_rest() -> None:
    tool = Tool(
        "n",
        "",
        {"type": "object", "properties": {"v": {"type": ["string", "null"]}}},
    )
    assert validate({"v": None}, tool) == {"v": None}
    assert validate({"v": 12}, tool) == {"v": "12"}


def test_ref_errors_carry_nested_paths() -> None:
    error = rejection({"origin": {"y": 1}, "path": [{"x": 1}, {"x": "far"}]}, REF_TOOL)
    assert sorted(paths(error)) == ["origin.x", "path[1].x"]
    message = str(error)
    assert "origin.x: required property is missing" in message
    assert "path[1].x" in message and "far" in message


def test_additional_properties_schema_is_used_for_coercion() -> None:
    tool = Tool("m", "", {"type": "object", "additionalProperties": {"type": "integer"}})
    assert validate({"a": "1", "b": 2, "c": None}, tool) == {"a": 1, "b": 2}


def test_constraints_apply_to_the_coerced_value() -> None:
    tool = Tool("c", "", {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}})
    assert validate({"n": "4"}, tool) == {"n": 4}
    error = rejection({"n": "1"}, tool)
    assert paths(error) == ["n"]
    assert "minimum" in error.errors[0].reason
    assert '{"n": "1"}' in str(error)


@pytest.mark.parametrize("given", ["abc", "", "3 apples", "0x10", "nan", "NaN", "inf", "-inf"])
def test_non_numeric_strings_are_not_numbers(given: str) -> None:
    error = rejection({"name": "a", "ratio": given})
    assert paths(error) == ["ratio"]


@pytest.mark.parametrize("given", ["nan", "inf", "Infinity", "1e400"])
def test_non_finite_strings_are_not_coerced_to_integers(given: str) -> None:
    error = rejection({"name": "a", "count": given})
    assert paths(error) == ["count"]


def test_fractional_string_is_not_an_integer() -> None:
    error = rejection({"name": "a", "count": "7.5"})
    assert paths(error) == ["count"]


@pytest.mark.parametrize("given", ["yes", "1", "on", ""])
def test_other_strings_are_not_booleans(given: str) -> None:
    error = rejection({"name": "a", "flag": given})
    assert paths(error) == ["flag"]


def test_numbers_are_not_coerced_to_booleans() -> None:
    error = rejection({"name": "a", "flag": 1})
    assert paths(error) == ["flag"]


# --- error messages -----------------------------------------------------------------------------


def test_error_message_names_tool_path_reason_and_received_arguments() -> None:
    arguments = {"name": "a", "count": "many"}
    error = rejection(arguments)
    message = str(error)
    assert message.startswith('Invalid arguments for tool "x"')
    assert error.tool_name == "x"
    assert len(error.errors) == 1
    assert error.errors[0].path == "count"
    assert "integer" in error.errors[0].reason
    assert f"count: {error.errors[0].reason}" in message
    assert json.dumps(arguments) in message  # the arguments as received, not as coerced


def test_missing_required_property_is_reported_at_its_own_path() -> None:
    error = rejection({"count": 1})
    assert paths(error) == ["name"]
    assert error.errors[0].reason == "required property is missing"
    assert "name: required property is missing" in str(error)
    assert '{"count": 1}' in str(error)


def test_array_item_paths_use_brackets() -> None:
    error = rejection({"name": "a", "items": [1, "two", 3]})
    assert paths(error) == ["items[1]"]
    assert "items[1]:" in str(error)


def test_every_error_is_listed() -> None:
    arguments = {
        "count": "x",
        "ratio": "y",
        "flag": "maybe",
        "items": [1, "b", "c"],
        "nested": {"entries": [{"on": True}, {"label": "no on"}]},
    }
    error = rejection(arguments)
    expected = {
        "name",
        "count",
        "ratio",
        "flag",
        "items[1]",
        "items[2]",
        "nested.entries[1].on",
    }
    assert set(paths(error)) == expected
    assert len(error.errors) == len(expected)
    message = str(error)
    for path in expected:
        assert f"{path}: " in message
    assert message.count("\n  - ") == len(expected)


def test_received_arguments_are_rendered_as_json_including_non_ascii() -> None:
    arguments = {"name": "a", "count": "zwölf", "note": None}
    error = rejection(arguments)
    assert json.dumps(arguments, ensure_ascii=False) in str(error)
    assert error.arguments == arguments


def test_tool_arguments_error_is_a_value_error() -> None:
    assert issubclass(ToolArgumentsError, ValueError)


def test_error_names_the_tool_not_the_call() -> None:
    tool = Tool("write_file", "", SCHEMA)
    with pytest.raises(ToolArgumentsError, match='Invalid arguments for tool "write_file"'):
        validate_tool_arguments(tool, ToolCall("c", "something_else", {}))


# --- pydantic models ----------------------------------------------------------------------------


class Inner(pydantic.BaseModel):
    k: int
    tags: list[str] = []


class Params(pydantic.BaseModel):
    name: str
    count: int = 1
    ratio: float | None = None
    flag: bool = False
    inner: Inner | None = None
    items: list[Inner] = []
    nums: list[float] = []


@dataclass
class ModelTool:
    name: str
    parameters: Any


PYDANTIC_TOOL = ModelTool("pt", Params)

DEFAULTS: dict[str, Any] = {
    "count": 1,
    "ratio": None,
    "flag": False,
    "inner": None,
    "items": [],
    "nums": [],
}


def test_pydantic_valid_arguments_give_a_dict() -> None:
    tool_call = ToolCall("c", "pt", {"name": "a", "count": 3, "inner": {"k": 1, "tags": ["t"]}})
    result = validate_tool_arguments(PYDANTIC_TOOL, tool_call)
    assert type(result) is dict
    assert result == {**DEFAULTS, "name": "a", "count": 3, "inner": {"k": 1, "tags": ["t"]}}
    result["inner"]["tags"].append("x")
    assert tool_call.arguments["inner"] == {"k": 1, "tags": ["t"]}


def test_pydantic_number_to_string_coercion() -> None:
    result = validate_tool_arguments(PYDANTIC_TOOL, ToolCall("c", "pt", {"name": 42}))
    assert result == {**DEFAULTS, "name": "42"}


@pytest.mark.parametrize(("given", "expected"), [(True, "true"), (3.5, "3.5")])
def test_pydantic_scalar_to_string_coercions(given: Any, expected: str) -> None:
    result = validate_tool_arguments(PYDANTIC_TOOL, ToolCall("c", "pt", {"name": given}))
    assert result["name"] == expected


def test_pydantic_nested_coercion() -> None:
    result = validate_tool_arguments(
        PYDANTIC_TOOL,
        ToolCall(
            "c",
            "pt",
            {
                "name": "a",
                "ratio": "2.5",
                "flag": "TRUE",
                "inner": {"k": "3", "tags": [1, 2]},
                "nums": ["1", "2.5"],
            },
        ),
    )
    assert result == {
        **DEFAULTS,
        "name": "a",
        "ratio": 2.5,
        "flag": True,
        "inner": {"k": 3, "tags": ["1", "2"]},
        "nums": [1.0, 2.5],
    }


def test_pydantic_null_for_optional_field_falls_back_to_default() -> None:
    result = validate_tool_arguments(
        PYDANTIC_TOOL, ToolCall("c", "pt", {"name": "a", "count": None, "ratio": None})
    )
    assert result == {**DEFAULTS, "name": "a"}


def test_validate_arguments_returns_a_model_instance() -> None:
    value = validate_arguments("pt", Params, {"name": 42, "count": "5"})
    assert isinstance(value, Params)
    assert value.name == "42"
    assert value.count == 5


def test_validate_arguments_with_a_schema_returns_a_dict() -> None:
    assert validate_arguments("x", SCHEMA, {"name": 1}) == {"name": "1"}


def test_pydantic_errors_name_tool_paths_and_arguments() -> None:
    arguments = {"items": [{"k": 1}, {"k": "x"}], "count": "abc"}
    with pytest.raises(ToolArgumentsError) as info:
        validate_tool_arguments(PYDANTIC_TOOL, ToolCall("c", "pt", arguments))
    error = info.value
    assert error.tool_name == "pt"
    assert set(paths(error)) == {"name", "count", "items[1].k"}
    message = str(error)
    assert message.startswith('Invalid arguments for tool "pt"')
    assert "items[1].k: " in message
    assert "name: required property is missing" in message
    assert json.dumps(arguments) in message


def test_pydantic_required_null_is_an_error() -> None:
    with pytest.raises(ToolArgumentsError) as info:
        validate_tool_arguments(PYDANTIC_TOOL, ToolCall("c", "pt", {"name": None}))
    assert paths(info.value) == ["name"]


@pytest.mark.parametrize("given", ["nan", "inf"])
def test_pydantic_non_finite_strings_are_rejected_like_json_schema(given: str) -> None:
    with pytest.raises(ToolArgumentsError):
        validate_tool_arguments(PYDANTIC_TOOL, ToolCall("c", "pt", {"name": "a", "ratio": given}))


class Loose(pydantic.BaseModel):
    meta: dict[str, Any] = {}
    anything: Any = None


def test_pydantic_dict_result_does_not_share_containers_with_the_call() -> None:
    arguments = {"meta": {"k": [1]}, "anything": {"x": [2]}}
    tool_call = ToolCall("c", "loose", arguments)
    result = validate_tool_arguments(ModelTool("loose", Loose), tool_call)
    result["meta"]["k"].append(99)
    result["anything"]["x"].append(99)
    assert tool_call.arguments == {"meta": {"k": [1]}, "anything": {"x": [2]}}


def test_pydantic_model_instance_does_not_share_containers_with_the_arguments() -> None:
    arguments = {"meta": {"k": [1]}, "anything": {"x": [2]}}
    value = validate_arguments("loose", Loose, arguments)
    assert isinstance(value, Loose)
    value.meta["k"].append(99)
    value.anything["x"].append(99)
    assert arguments == {"meta": {"k": [1]}, "anything": {"x": [2]}}


# --- unknown arguments -----------------------------------------------------------------------

READ: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 1}},
    "required": ["path"],
}


def refusal(parameters: Any, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("read", parameters, arguments)
    return str(caught.value)


def test_a_misspelled_argument_is_an_error_naming_the_closest_parameter() -> None:
    message = refusal(READ, {"path": "a.py", "offest": 2})
    assert "  - (root): unknown argument 'offest'; did you mean 'offset'?" in message
    assert 'Received arguments: {"path": "a.py", "offest": 2}' in message


def test_an_unknown_argument_without_a_close_name_lists_the_parameters() -> None:
    message = refusal(READ, {"path": "a.py", "colour": "red"})
    assert "unknown argument 'colour'; expected one of: path, offset" in message
    no_parameters = {"type": "object", "properties": {}}
    assert "this tool takes no arguments" in refusal(no_parameters, {"x": 1})


def test_unknown_arguments_are_refused_at_any_depth_and_alongside_other_errors() -> None:
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {"type": "object", "properties": {"old_text": {}, "new_text": {}}},
            },
            "offset": {"type": "integer"},
        },
    }
    message = refusal(schema, {"edits": [{"old_txt": "a", "new_text": "b"}], "offset": "x"})
    assert "  - edits[0]: unknown argument 'old_txt'; did you mean 'old_text'?" in message
    assert "  - offset:" in message


@pytest.mark.parametrize(
    "opening",
    [
        {"additionalProperties": True},
        {"additionalProperties": {"type": "integer"}},
        {"patternProperties": {"^x_": {}}},
        {"unevaluatedProperties": True},
    ],
)
def test_a_schema_that_allows_other_properties_keeps_them(opening: dict[str, Any]) -> None:
    arguments = {"path": "a.py", "x_extra": 2}
    assert validate_arguments("read", {**READ, **opening}, arguments) == arguments


def test_parts_of_a_composed_object_are_not_closed_on_their_own() -> None:
    composed = {"allOf": [{"properties": {"path": {}}}, {"properties": {"offset": {}}}]}
    arguments = {"path": "a", "offset": 1}
    assert validate_arguments("t", composed, arguments) == arguments
    beside_a_ref = {"$ref": "#/$defs/base", "properties": {"offset": {}}, "$defs": {"base": {}}}
    assert validate_arguments("t", beside_a_ref, arguments) == arguments


def test_a_schema_without_listed_properties_stays_open() -> None:
    assert validate_arguments("t", {"type": "object"}, {"any": 1}) == {"any": 1}


def test_unknown_arguments_of_a_pydantic_model_are_errors_unless_it_allows_extra() -> None:
    class Strict(pydantic.BaseModel):
        path: str
        offset: int = 1

    class Open(Strict):
        model_config = pydantic.ConfigDict(extra="allow")

    assert "did you mean 'offset'?" in refusal(Strict, {"path": "a", "offest": 2})
    assert validate_arguments("read", Open, {"path": "a", "offest": 2}).offest == 2


def test_the_model_is_shown_the_schema_as_written() -> None:
    tool = Tool("read", "", READ)
    validate_tool_arguments(tool, ToolCall("1", "read", {"path": "a"}))
    assert "additionalProperties" not in READ


# --- wording ---------------------------------------------------------------------------------


def test_an_exclusive_bound_says_what_the_value_must_be() -> None:
    schema = {
        "type": "object",
        "properties": {
            "timeout": {"type": "number", "exclusiveMinimum": 0},
            "ratio": {"type": "number", "exclusiveMaximum": 1},
        },
    }
    message = refusal(schema, {"timeout": 0, "ratio": 1})
    assert "  - timeout: 0 must be greater than 0" in message
    assert "  - ratio: 1 must be less than 1" in message
