"""The ``find`` tool: list files by glob with ripgrep semantics (.gitignore respected).

The listing belongs to a :class:`FindOperations` (``rg --files`` on this machine); this module
turns the outcome into sorted relative POSIX paths, one per line, capped at ``limit`` results and
2000 lines / 50 KiB, with a notice for every cut saying how to see the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from ._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head
from .operations._protocols import FindOperations, FindOutcome

__all__ = ["TOOL", "create_find_tool"]

_DEFAULT_LIMIT = 1000

_DESCRIPTION = (
    "Find files by glob pattern. Returns matching file paths relative to the searched "
    "directory, sorted, one per line. Respects .gitignore and includes hidden files. "
    "A path naming a file lists that file only if pattern matches its name. "
    f"Output stops at `limit` results (default {_DEFAULT_LIMIT}) or "
    f"{DEFAULT_MAX_LINES} lines / {format_size(DEFAULT_MAX_BYTES)}, whichever comes first."
)

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob to match files against, e.g. '*.py' (any depth), "
            "'**/*.json' or 'src/**/*.spec.ts' (relative to path).",
        },
        "path": {
            "type": "string",
            "description": "Directory to search in (default: the working directory); "
            "a file is listed if pattern matches its name.",
        },
        "limit": limit_parameter("results", _DEFAULT_LIMIT),
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


def create_find_tool(cwd: str, *, operations: FindOperations | None = None) -> ToolDefinition:
    """A ``find`` tool listing files under ``cwd`` via ``operations`` (default: this machine)."""
    return TOOL.create(cwd, operations=operations)


def _define(cwd: str, ops: FindOperations) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        search = SearchArguments.read(params, cwd, _DEFAULT_LIMIT)
        with search_errors(
            "find", search, lambda error: f"Invalid glob pattern {search.pattern!r}: {error}"
        ):
            outcome = await ops.find(search.pattern, search.path, search.limit, signal=signal)
        return _find_result(outcome, search.limit)

    return ToolDefinition(
        name="find",
        label="find",
        description=_DESCRIPTION,
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prompt_snippet="Find files by glob pattern (respects .gitignore)",
        prompt_guidelines=[
            "Use find to locate files by name instead of running find or ls -R through bash.",
        ],
    )


def _find_result(outcome: FindOutcome, limit: int) -> AgentToolResult:
    if not outcome.paths:
        return AgentToolResult(
            content=[TextContent("No files found matching pattern")],
            details={"count": 0, "result_limit_reached": None},
        )
    # Past DEFAULT_MAX_LINES + 1 paths the cut is the same whatever follows: join no more.
    truncation = truncate_head("\n".join(outcome.paths[: DEFAULT_MAX_LINES + 1]))
    notices: list[str] = []
    if outcome.limit_reached:
        notices.append(limit_notice(limit, "results"))
    if truncation.truncated:
        notices.append(
            capped_notice(
                truncation,
                len(outcome.paths),
                "paths",
                "Refine pattern or search a subdirectory to see the rest",
            )
        )
    text = with_notices(truncation.content, notices)
    details: dict[str, Any] = {
        "count": len(outcome.paths),
        "result_limit_reached": limit if outcome.limit_reached else None,
        "truncated_by": truncation.truncated_by,
    }
    return AgentToolResult(content=[TextContent(text)], details=details)


def _render_call(args: Mapping[str, Any]) -> str:
    where = f" in {short(args['path'])}" if args.get("path") else ""
    return f"find {quoted(args.get('pattern'))}{where}"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["count"]
    shown = f"{count} file{'' if count == 1 else 's'}"
    return shown + (", limit reached" if details.get("result_limit_reached") else "")


TOOL = BuiltinTool(
    name="find",
    define=_define,
    exposure={"pattern": Review.INCLUDE, "path": Review.INCLUDE, "limit": Review.INCLUDE},
    governance=path_governance("read"),
    read_only=True,
    idempotent=True,
    render_call=_render_call,
    render_result=_render_result,
)
"""``find``: its definition, review exposure, governance and renderers."""
