"""How a front end shows a built-in tool's calls and results: one short line each, safely.

Each tool module writes its own two renderers (see :class:`~._builtin.BuiltinTool`); this module
turns them into the ``render_call`` / ``render_result`` hooks of its
:class:`~tether.tools.ToolDefinition`. A model never sees them; a terminal, a log or an
approval screen does. They take what the agent loop hands out — the validated arguments, the
final :class:`~tether.agent.AgentToolResult` and whether it is an error — and never raise: a
value of an unexpected shape renders as ``?`` rather than breaking the front end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from tether.agent import AgentToolResult
from tether.ai import TextContent
from tether.gate import redact_secrets, sanitize_for_display

__all__ = ["call_renderer", "quoted", "result_renderer", "short"]

_MAX_SHOWN_CHARS = 80


def call_renderer(render: Callable[[Mapping[str, Any]], str]) -> Callable[[Any], str]:
    def render_call(args: Any) -> str:
        try:
            return render(args if isinstance(args, Mapping) else {})
        except Exception:  # a front end must never break on an odd argument
            return "?"

    return render_call


def result_renderer(
    render: Callable[[AgentToolResult, Mapping[str, Any]], str], *, renders_errors: bool = False
) -> Callable[[AgentToolResult, bool], str]:
    """``render`` for successes; an error shows its first line, or what ``render`` makes of its
    details when ``renders_errors`` (bash: how the command ended)."""

    def render_result(result: AgentToolResult, is_error: bool) -> str:
        details = result.details if isinstance(result.details, Mapping) else {}
        prefix = "error: " if is_error else ""
        try:
            if is_error and not renders_errors:
                return prefix + _first_line(result)
            return prefix + render(result, details)
        except Exception:  # details of another shape (e.g. rewritten by an after-hook)
            return prefix + _first_line(result)

    return render_result


def _first_line(result: AgentToolResult) -> str:
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    return short(text.strip().split("\n", 1)[0]) if text.strip() else "?"


def short(value: Any) -> str:
    """One short line safe to print: secrets masked, no escape sequences or invisible
    characters (a model chooses these values; a terminal or approval screen shows them)."""
    text = value if isinstance(value, str) else "?"
    text = " ".join(sanitize_for_display(redact_secrets(text)).split())
    return text if len(text) <= _MAX_SHOWN_CHARS else text[: _MAX_SHOWN_CHARS - 3] + "..."


def quoted(value: Any) -> str:
    return json.dumps(short(value), ensure_ascii=False)
