"""The grammar that confines the embedded model to plain text or one valid tool call.

A reply is either free text (its first character is anything but ``{``) or exactly one call,
written as ``{"name": <tool name>, "arguments": <arguments>}`` with the name one of the offered
tools and the arguments following that tool's JSON Schema. llama.cpp samples only tokens the
grammar allows, so a call can neither name an unknown tool nor break its schema's shape.

The schemas go through llama.cpp's own converter, taught three things it lacks: integer bounds
(``minimum`` / ``maximum`` and their exclusive forms), lower bounds on numbers, and strings
without raw control characters (which a strict JSON parser refuses). Keywords no grammar can
express (``multipleOf``, upper bounds on fractional numbers...) are left to the argument
validation every call passes before it runs; a schema the converter cannot read at all falls
back to "any JSON object" for that tool.
"""

from __future__ import annotations

import copy
import json
import logging
import math
from collections.abc import Sequence
from typing import Any

from llama_cpp.llama_grammar import PRIMITIVE_RULES, RESERVED_NAMES, SchemaConverter

from ..._types import Tool
from ._prompt import call_head

__all__ = ["integer_range", "reply_grammar"]

_log = logging.getLogger("tether.ai.providers.local")

_MAX_DIGITS = 16  # as many digits as llama.cpp's own integer rule allows
_SPACE = " space"
# JSON strings may not hold raw control characters; llama.cpp's char rule lets them through.
_STRICT_CHAR = (
    r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] '
    r"[0-9a-fA-F])"
)
_FREE_TEXT = r"[^{] [^\x00]*"


def reply_grammar(tools: Sequence[Tool], *, text_allowed: bool) -> str:
    """GBNF for one reply: a call of one of ``tools``, or (when ``text_allowed``) free text."""
    converter = _ToolSchemaConverter(  # type: ignore[no-untyped-call]
        prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    calls = []
    for index, tool in enumerate(tools):
        arguments_rule = converter.arguments_rule(tool, f"tool-{index}")
        calls.append(f'{json.dumps(call_head(tool.name))} {arguments_rule} "}}"')
    converter.set_rule("tool-call", " | ".join(calls))
    if text_allowed:
        converter.set_rule("free-text", _FREE_TEXT)
        converter.set_rule("root", "tool-call | free-text")
    else:
        converter.set_rule("root", "tool-call")
    return converter.grammar()


def integer_range(lower: int | None, upper: int | None) -> str | None:
    """A GBNF expression for the JSON integers in ``[lower, upper]`` (``None``: unbounded), or
    ``None`` when the range is empty or beyond 16 digits."""
    if lower is not None and upper is not None and lower > upper:
        return None
    alternatives = []
    if lower is None or lower < 0:
        # -x for x in [-(highest negative allowed), -lower]
        closest = -1 if upper is None or upper >= 0 else upper
        magnitudes = _natural_range(-closest, None if lower is None else -lower)
        if magnitudes is not None:
            alternatives.append(f'"-" ({magnitudes})')
    if upper is None or upper >= 0:
        naturals = _natural_range(max(lower or 0, 0), upper)
        if naturals is not None:
            alternatives.append(naturals)
    return " | ".join(alternatives) or None


class _ToolSchemaConverter(SchemaConverter):
    """llama.cpp's schema converter with bounded numbers and strict strings."""

    def arguments_rule(self, tool: Tool, name: str) -> str:
        """The rule for ``tool``'s arguments; any JSON object if its schema cannot be read."""
        schema = _with_private_definitions(tool.parameters, name)
        try:
            self.resolve_refs(schema, name)
            return str(self.visit(schema, name))
        except Exception as exc:
            _log.warning(
                "The local model's grammar cannot follow the schema of tool %r (%s); its "
                "arguments are only held to be a JSON object and are checked before the call runs",
                tool.name,
                exc,
            )
            return str(self._add_primitive("object", PRIMITIVE_RULES["object"]))

    def visit(self, schema: Any, name: str) -> Any:
        if isinstance(schema, dict):
            bounded = _bounded_number(schema)
            if bounded is not None:
                rule_name = name + "-" if name in RESERVED_NAMES else name or "root"
                return self._add_rule(rule_name, f"({bounded}){_SPACE}")  # type: ignore[no-untyped-call]
        return super().visit(schema, name)  # type: ignore[no-untyped-call]

    def set_rule(self, name: str, rule: str) -> None:
        self._rules[name] = rule

    def grammar(self) -> str:
        if "char" in self._rules:
            self._rules["char"] = _STRICT_CHAR
        return str(self.format_grammar())  # type: ignore[no-untyped-call]


def _bounded_number(schema: dict[str, Any]) -> str | None:
    """The expression for an integer or number schema with bounds we can express, else None."""
    kind = schema.get("type")
    if kind not in ("integer", "number") or any(key in schema for key in ("enum", "const")):
        return None
    lower, lower_exclusive = _bound(schema, "minimum", "exclusiveMinimum", lower=True)
    upper, upper_exclusive = _bound(schema, "maximum", "exclusiveMaximum", lower=False)
    if lower is None and upper is None:
        return None
    if kind == "integer":
        return integer_range(
            _lowest_integer(lower, lower_exclusive), _highest_integer(upper, upper_exclusive)
        )
    if upper is not None or lower is None or lower < 0 or lower != int(lower):
        return None
    return _number_at_least(int(lower), exclusive=lower_exclusive)


def _bound(
    schema: dict[str, Any], inclusive_key: str, exclusive_key: str, *, lower: bool
) -> tuple[float | None, bool]:
    """The tightest bound and whether it is exclusive, from either JSON Schema spelling."""
    inclusive = _finite(schema.get(inclusive_key))
    exclusive = schema.get(exclusive_key)
    if exclusive is True:  # draft 4: a flag on the inclusive bound
        return inclusive, inclusive is not None
    candidates = [
        (value, is_exclusive)
        for value, is_exclusive in ((inclusive, False), (_finite(exclusive), True))
        if value is not None
    ]
    if not candidates:
        return None, False
    # a lower bound tightens upwards, an upper one downwards; an exclusive bound wins a tie
    return max(candidates, key=lambda bound: (bound[0] if lower else -bound[0], bound[1]))


def _lowest_integer(bound: float | None, exclusive: bool) -> int | None:
    if bound is None:
        return None
    return math.floor(bound) + 1 if exclusive else math.ceil(bound)


def _highest_integer(bound: float | None, exclusive: bool) -> int | None:
    if bound is None:
        return None
    return math.ceil(bound) - 1 if exclusive else math.floor(bound)


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _number_at_least(lower: int, *, exclusive: bool) -> str | None:
    """Numbers (no exponent) at least ``lower``, or above it when ``exclusive``."""
    fraction = f'"." [0-9]{{1,{_MAX_DIGITS}}}'
    integral = _natural_range(lower + 1 if exclusive else lower, None)
    if integral is None:
        return None
    above = f"({integral}) ({fraction})?"
    if not exclusive:
        return above
    # lower itself with a fraction that is not all zeros
    return f'{above} | "{lower}." [0-9]{{0,{_MAX_DIGITS - 1}}} [1-9]'


def _natural_range(lower: int, upper: int | None) -> str | None:
    """Decimal numerals without leading zeros for the integers in ``[lower, upper]`` (>= 0)."""
    lowest_length = len(str(lower))
    highest_length = _MAX_DIGITS if upper is None else len(str(upper))
    alternatives = []
    for length in range(lowest_length, highest_length + 1):
        first = 10 ** (length - 1) if length > 1 else 0
        if upper is None and first > lower:  # every longer numeral, in one alternative
            alternatives.append(f"[1-9] [0-9]{{{length - 1},{_MAX_DIGITS - 1}}}")
            break
        start = max(lower, first)
        end = 10**length - 1 if upper is None else min(upper, 10**length - 1)
        if start <= end:
            alternatives.append(_same_length_range(str(start), str(end)))
    return " | ".join(alternatives) or None


def _same_length_range(low: str, high: str) -> str:
    """Digit strings of one length from ``low`` to ``high`` (inner zeros allowed)."""
    rest = len(low) - 1
    if low == high:
        return f'"{low}"'
    if low == "0" * len(low) and high == "9" * len(high):
        return f"[0-9]{{{len(low)}}}"
    if rest == 0:
        return f"[{low}-{high}]"
    if low[0] == high[0]:
        return f'"{low[0]}" ({_same_length_range(low[1:], high[1:])})'
    parts = [f'"{low[0]}" ({_same_length_range(low[1:], "9" * rest)})']
    if int(low[0]) + 1 <= int(high[0]) - 1:
        parts.append(f"[{int(low[0]) + 1}-{int(high[0]) - 1}] [0-9]{{{rest}}}")
    parts.append(f'"{high[0]}" ({_same_length_range("0" * rest, high[1:])})')
    return " | ".join(parts)


def _with_private_definitions(schema: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A copy of ``schema`` whose top-level definitions carry ``prefix`` in their names.

    The converter names a referenced definition's rule after the definition alone, so two tools
    that each define ``Item`` would otherwise share one rule.
    """
    copied = copy.deepcopy(schema)
    renames: dict[str, str] = {}
    for section in ("$defs", "definitions"):
        definitions = copied.get(section)
        if isinstance(definitions, dict):
            copied[section] = {f"{prefix}-{key}": value for key, value in definitions.items()}
            renames.update(
                {f"#/{section}/{key}": f"#/{section}/{prefix}-{key}" for key in definitions}
            )
    if renames:
        _rename_refs(copied, renames)
    return copied


def _rename_refs(node: Any, renames: dict[str, str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in renames:
            node["$ref"] = renames[ref]
        for value in node.values():
            _rename_refs(value, renames)
    elif isinstance(node, list):
        for item in node:
            _rename_refs(item, renames)
