"""The review exposure vocabulary: what the AI reviewer may see of one parameter.

It is defined here, below the gate that interprets it, so that ``@tool(review=...)`` can check a
value against the one list; :mod:`tether.gate` exports the same enum.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Review"]


class Review(StrEnum):
    """What the AI reviewer may see of one parameter."""

    INCLUDE = "include"
    """The value."""
    REDACT = "redact"
    """A placeholder, never the value."""
    REQUIRE_USER = "require_user"
    """Nothing: a call with this parameter goes straight to a person."""
