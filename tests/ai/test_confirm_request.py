"""The runtime's ``confirm`` property left out for readers that must not be offered it."""

from __future__ import annotations

from tether.ai import CONFIRM_REQUEST_PROPERTY, confirm_request_schema, without_confirm_request

BASE = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}


def test_the_injected_property_is_removed_and_the_rest_kept() -> None:
    injected = {**BASE, "properties": {**BASE["properties"], "confirm": confirm_request_schema()}}
    assert without_confirm_request(injected) == BASE
    assert "confirm" in injected["properties"], "the schema given is not changed"


def test_a_tools_own_confirm_is_kept() -> None:
    own = {"type": "string", "enum": ["yes", "no"], "description": "Confirm the booking."}
    schema = {"type": "object", "properties": {"confirm": own}, "required": ["confirm"]}
    assert without_confirm_request(schema) == schema


def test_a_schema_without_properties_is_copied_as_it_is() -> None:
    schema = {"type": "object"}
    stripped = without_confirm_request(schema)
    assert stripped == schema and stripped is not schema
    assert CONFIRM_REQUEST_PROPERTY == "confirm"
