"""The ``confirm`` property the runtime adds to a governed tool's schema, as a model sees it.

The gate injects an optional ``confirm: bool`` into every governed tool that does not own one, so
that a model can ask for a person before a call runs (``confirm=true`` forces the approval). Some
readers of a schema must not be offered it:

- an MCP host's model, which cannot be the person and would only get its calls denied by a
  server that has nobody to ask;
- a grammar-forced local model, which fills every property it is shown (``true``, as often as
  not) and so turns its plain reads into approvals nobody can answer headless.

:func:`without_confirm_request` gives those readers the schema as it was before the injection.
The injected property is recognised by its exact definition, so a tool whose own schema has a
``confirm`` argument (an MCP server's tool, say) keeps it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["CONFIRM_REQUEST_PROPERTY", "confirm_request_schema", "without_confirm_request"]

CONFIRM_REQUEST_PROPERTY = "confirm"


def confirm_request_schema() -> dict[str, Any]:
    """A fresh copy of the injected property's JSON Schema."""
    return {
        "type": "boolean",
        "description": "Set to true to ask a person to approve this call before it runs.",
    }


def without_confirm_request(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``schema`` without the injected ``confirm`` (unchanged when it has none)."""
    copied: dict[str, Any] = copy.deepcopy(dict(schema))
    properties = copied.get("properties")
    if not isinstance(properties, dict):
        return copied
    if properties.get(CONFIRM_REQUEST_PROPERTY) != confirm_request_schema():
        return copied
    del properties[CONFIRM_REQUEST_PROPERTY]
    required = copied.get("required")
    if isinstance(required, list) and CONFIRM_REQUEST_PROPERTY in required:
        copied["required"] = [name for name in required if name != CONFIRM_REQUEST_PROPERTY]
    return copied
