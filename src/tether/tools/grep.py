"""The ``grep`` tool: search file contents with ripgrep semantics.

The search itself belongs to a :class:`GrepOperations` (``rg`` on this machine, anything else
elsewhere); this module turns the model's arguments into a :class:`GrepQuery` and the outcome into
text a model can act on: ``file:line: text`` for matches, ``file-line- text`` for context lines,
each line capped at 500 characters, the whole capped at 2000 lines / 50 KiB, and a notice for
every cut saying how to see the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tether.agent import AgentToolResult
from tether.ai import AbortSignal, TextContent
from tether.gate import Review

from ._builtin import BuiltinTool, path_governance
from ._definition import ToolDefinition, run_as_execute
from ._rendering import quoted, short
from ._search import (
    SearchArguments,
    capped_notice,
    limit_notice,
    limit_parameter,
    search_errors,
    with_notices,
)
from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_CHARS,
    format_size,
    truncate_head,
    truncate_line,
)
from .operations._protocols import GrepLine, GrepOperations, GrepOutcome, GrepQuery

__all__ = ["TOOL", "create_grep_tool"]

DEFAULT_GREP_LIMIT = 100

_DESCRIPTION = (
    "Search file contents for a pattern (ripgrep). Returns matching lines as `file:line: text` "
    "and context lines as `file-line- text`, with paths relative to the searched directory. "
    "Respects .gitignore and includes hidden files. "
    f"Output stops at `limit` matches (default {DEFAULT_GREP_LIMIT}) or "
    f"{DEFAULT_MAX_LINES} lines / {format_size(DEFAULT_MAX_BYTES)}, whichever comes first; "
    f"lines longer than {GREP_MAX_LINE_CHARS} characters are cut."
)

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Regular expression (Rust regex syntax) to search for, "
            "or plain text when literal is true.",
        },
        "path": {
            "type": "string",
            "description": "Directory or file to search (default: the working directory).",
        },
        "glob": {
            "type": "string",
            "description": "Only search files whose path matches this glob, "
            "e.g. '*.py' or 'src/**/*.ts'.",
        },
        "ignore_case": {
            "type": "boolean",
            "description": "Match case-insensitively (default false).",
        },
        "literal": {
            "type": "boolean",
            "description": "Treat pattern as plain text, not a regex (default false).",
        },
        "context": {
            "type": "integer",
            "minimum": 0,
            "description": "Lines of context to show before and after each match (default 0).",
        },
        "limit": limit_parameter("matches", DEFAULT_GREP_LIMIT),
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


def create_grep_tool(cwd: str, *, operations: GrepOperations | None = None) -> ToolDefinition:
    """A ``grep`` tool searching under ``cwd`` through ``operations`` (default: this machine)."""
    return TOOL.create(cwd, operations=operations)


def _define(cwd: str, ops: GrepOperations) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        search = SearchArguments.read(params, cwd, DEFAULT_GREP_LIMIT)
        query = GrepQuery(
            pattern=search.pattern,
            path=search.path,
            glob=params.get("glob") or None,
            ignore_case=bool(params.get("ignore_case", False)),
            literal=bool(params.get("literal", False)),
            context=int(params.get("context", 0)),
            limit=search.limit,
        )
        with search_errors("grep", search, lambda error: _invalid_query_message(query, str(error))):
            outcome = await ops.grep(query, signal=signal)
        return _grep_result(outcome, search.limit)

    return ToolDefinition(
        name="grep",
        label="grep",
        description=_DESCRIPTION,
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prompt_snippet="Search file contents for a regex or literal text (respects .gitignore)",
        prompt_guidelines=[
            "Use grep to search file contents instead of running grep or rg through bash.",
            "Narrow broad searches with path and glob before raising limit.",
        ],
    )


def _invalid_query_message(query: GrepQuery, reason: str) -> str:
    message = f"Invalid search for pattern {query.pattern!r}: {reason}"
    if not query.literal and "regex" in reason:
        message += "\nTo search for the text as written, set literal=true."
    return message


def _render_head(lines: Sequence[GrepLine]) -> tuple[str, list[bool]]:
    """The lines as ``path:line: text`` (match) or ``path-line- text`` (context), text capped,
    and per line whether its text was cut.

    Rendering stops once the lines rendered exceed a cap of :func:`truncate_head` (characters
    never outnumber UTF-8 bytes), so a cut keeps what cutting the whole listing would keep.
    """
    rendered: list[str] = []
    cut_flags: list[bool] = []
    size = 0
    for line in lines:
        if len(rendered) > DEFAULT_MAX_LINES or size > DEFAULT_MAX_BYTES:
            break
        text, cut = truncate_line(line.text, GREP_MAX_LINE_CHARS)
        separator = ":" if line.is_match else "-"
        entry = f"{line.path}{separator}{line.line_number}{separator} {text}"
        size += len(entry) + (1 if rendered else 0)  # as joined by newlines
        rendered.append(entry)
        cut_flags.append(cut)
    return "\n".join(rendered), cut_flags


def _grep_result(outcome: GrepOutcome, limit: int) -> AgentToolResult:
    if not outcome.lines:
        return AgentToolResult(
            content=[TextContent("No matches found")],
            details={"match_count": 0, "match_limit_reached": None},
        )
    head, cut_flags = _render_head(outcome.lines)
    truncation = truncate_head(head)
    lines_cut = any(cut_flags[: truncation.output_lines])
    notices: list[str] = []
    if outcome.limit_reached:
        notices.append(limit_notice(limit, "matches"))
    if truncation.truncated:
        notices.append(
            capped_notice(
                truncation,
                len(outcome.lines),
                "lines",
                "Narrow the search with path or glob, or refine pattern, to see the rest",
            )
        )
    if lines_cut:
        notices.append(
            f"[Some lines truncated to {GREP_MAX_LINE_CHARS} chars. Use read to see full lines]"
        )
    text = with_notices(truncation.content, notices)
    details: dict[str, Any] = {
        "match_count": outcome.match_count,
        "match_limit_reached": limit if outcome.limit_reached else None,
        "lines_truncated": lines_cut,
        "truncated_by": truncation.truncated_by,
    }
    return AgentToolResult(content=[TextContent(text)], details=details)


def _render_call(args: Mapping[str, Any]) -> str:
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
    where = f" in {short(args['path'])}" if args.get("path") else ""
    shown = f"grep {quoted(args.get('pattern'))}{where}"
    return shown + (f" ({', '.join(flags)})" if flags else "")


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["match_count"]
    shown = f"{count} match{'' if count == 1 else 'es'}"
    return shown + (", limit reached" if details.get("match_limit_reached") else "")


TOOL = BuiltinTool(
    name="grep",
    define=_define,
    exposure={
        "pattern": Review.INCLUDE,
        "path": Review.INCLUDE,
        "glob": Review.INCLUDE,
        "ignore_case": Review.INCLUDE,
        "literal": Review.INCLUDE,
        "context": Review.INCLUDE,
        "limit": Review.INCLUDE,
    },
    governance=path_governance("read"),
    read_only=True,
    idempotent=True,
    render_call=_render_call,
    render_result=_render_result,
)
"""``grep``: its definition, review exposure, governance and renderers."""
