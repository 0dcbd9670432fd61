"""How a front end shows the built-in tools' calls and results: one short line each.

These are the ``render_call`` / ``render_result`` hooks of the built-in
:class:`~tether.tools.ToolDefinition`\\ s. A model never sees them; a terminal, a log or an
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

__all__ = ["CALL_RENDERERS", "RESULT_RENDERERS"]

_MAX_SHOWN_CHARS = 80


def _render_read_call(args: Mapping[str, Any]) -> str:
    offset, limit = args.get("offset"), args.get("limit")
    if offset is None and limit is None:
        return f"read {_short(args.get('path'))}"
    first = offset or 1
    last = f"{first + limit - 1}" if isinstance(limit, int) and isinstance(first, int) else ""
    return f"read {_short(args.get('path'))}:{first}-{last}"


def _render_read_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    if "mime_type" in details:
        shown = f"image {details['mime_type']} {details['width']}x{details['height']}"
        original = (details["original_width"], details["original_height"])
        if original != (details["width"], details["height"]):
            shown += f" (resized from {original[0]}x{original[1]})"
        return shown
    total = details.get("total_lines")
    if total == 0:
        return "empty file"
    if "line_bytes" in details:
        return f"line {details['start_line']} alone is {details['line_bytes']:,} bytes: not shown"
    shown = f"lines {details['start_line']}-{details['end_line']}"
    shown += f" of {total}" if total is not None else ""
    if details.get("next_offset"):
        shown += f", more from offset={details['next_offset']}"
    return shown


def _render_write_call(args: Mapping[str, Any]) -> str:
    content = args.get("content")
    size = len(content.encode("utf-8")) if isinstance(content, str) else "?"
    return f"write {_short(args.get('path'))} ({size} byte{'' if size == 1 else 's'})"


def _render_write_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["bytes"]
    return f"wrote {count:,} byte{'' if count == 1 else 's'}"


def _render_edit_call(args: Mapping[str, Any]) -> str:
    edits = args.get("edits")
    count = len(edits) if isinstance(edits, list) else "?"
    return f"edit {_short(args.get('path'))} ({count} edit{'' if count == 1 else 's'})"


def _render_edit_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    diff_lines = str(details["diff"]).splitlines()
    body = diff_lines[2:] if diff_lines[:1] and diff_lines[0].startswith("--- ") else diff_lines
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return f"+{added} -{removed} lines, first change at line {details['first_changed_line']}"


def _render_bash_call(args: Mapping[str, Any]) -> str:
    shown = f"$ {_short(args.get('command'))}"
    timeout = args.get("timeout")
    has_timeout = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    return shown + (f"  (timeout {timeout:g} s)" if has_timeout else "")


def _render_bash_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    if details.get("aborted"):
        shown = "aborted"
    elif details.get("timed_out"):
        shown = "timed out"
    else:
        shown = f"exit {details['exit_code']}"
    if details.get("full_output_path"):
        shown += f", full output in {details['full_output_path']}"
    return shown


def _render_grep_call(args: Mapping[str, Any]) -> str:
    flags = [
        flag
        for flag, present in (
            ("ignore case", args.get("ignore_case")),
            ("literal", args.get("literal")),
            (f"context {args.get('context')}", args.get("context")),
            (f"glob {args.get('glob')}", args.get("glob")),
        )
        if present
    ]
    where = f" in {_short(args['path'])}" if args.get("path") else ""
    shown = f"grep {_quoted(args.get('pattern'))}{where}"
    return shown + (f" ({', '.join(flags)})" if flags else "")


def _render_grep_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["match_count"]
    shown = f"{count} match{'' if count == 1 else 'es'}"
    return shown + (", limit reached" if details.get("match_limit_reached") else "")


def _render_find_call(args: Mapping[str, Any]) -> str:
    where = f" in {_short(args['path'])}" if args.get("path") else ""
    return f"find {_quoted(args.get('pattern'))}{where}"


def _render_find_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["count"]
    shown = f"{count} file{'' if count == 1 else 's'}"
    return shown + (", limit reached" if details.get("result_limit_reached") else "")


def _render_ls_call(args: Mapping[str, Any]) -> str:
    return f"ls {_short(args.get('path') or '.')}"


def _render_ls_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    total, shown = details["total_entries"], details.get("shown_entries", 0)
    text = f"{total} entr{'y' if total == 1 else 'ies'}"
    return text + (f", {shown} shown" if shown < total else "")


def _call_renderer(render: Callable[[Mapping[str, Any]], str]) -> Callable[[Any], str]:
    def render_call(args: Any) -> str:
        try:
            return render(args if isinstance(args, Mapping) else {})
        except Exception:  # a front end must never break on an odd argument
            return "?"

    return render_call


def _result_renderer(
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
    return _short(text.strip().split("\n", 1)[0]) if text.strip() else "?"


def _short(value: Any) -> str:
    """One short line safe to print: secrets masked, no escape sequences or invisible
    characters (a model chooses these values; a terminal or approval screen shows them)."""
    text = value if isinstance(value, str) else "?"
    text = " ".join(sanitize_for_display(redact_secrets(text)).split())
    return text if len(text) <= _MAX_SHOWN_CHARS else text[: _MAX_SHOWN_CHARS - 3] + "..."


def _quoted(value: Any) -> str:
    return json.dumps(_short(value), ensure_ascii=False)


CALL_RENDERERS: dict[str, Callable[[Any], str]] = {
    name: _call_renderer(render)
    for name, render in {
        "read": _render_read_call,
        "write": _render_write_call,
        "edit": _render_edit_call,
        "bash": _render_bash_call,
        "grep": _render_grep_call,
        "find": _render_find_call,
        "ls": _render_ls_call,
    }.items()
}
RESULT_RENDERERS: dict[str, Callable[[AgentToolResult, bool], str]] = {
    "read": _result_renderer(_render_read_result),
    "write": _result_renderer(_render_write_result),
    "edit": _result_renderer(_render_edit_result),
    "bash": _result_renderer(_render_bash_result, renders_errors=True),
    "grep": _result_renderer(_render_grep_result),
    "find": _result_renderer(_render_find_result),
    "ls": _result_renderer(_render_ls_result),
}
