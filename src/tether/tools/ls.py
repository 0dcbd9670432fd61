"""The ``ls`` tool: the entries of one directory, one per line.

Entries are sorted case-insensitively (ties broken by the exact name, so the order is stable),
dotfiles included, directories marked with a trailing ``/``. At most ``limit`` entries are listed;
the listing is also capped at 2000 lines / 50 KiB like every tool output, and each cut ends in a
notice giving the total and how to see the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.agent import AgentToolResult, ToolError
from tether.ai import AbortSignal, TextContent, clean_text
from tether.gate import Review

from ._builtin import BuiltinTool, path_governance
from ._definition import ToolDefinition, run_as_execute
from ._paths import resolve_path
from ._rendering import short
from ._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head
from .operations._protocols import DirEntry, LsOperations

__all__ = ["DEFAULT_LS_LIMIT", "TOOL", "create_ls_tool"]

DEFAULT_LS_LIMIT = 500

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "Directory to list: relative to the working directory, or absolute. "
            "Default: the working directory.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": f"Maximum number of entries to list. Default: {DEFAULT_LS_LIMIT}.",
        },
    },
}


def create_ls_tool(cwd: str, *, operations: LsOperations | None = None) -> ToolDefinition:
    """The ``ls`` tool rooted at ``cwd``."""
    return TOOL.create(cwd, operations=operations)


def _define(cwd: str, ops: LsOperations) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        path: str = params.get("path") or "."
        limit: int = params.get("limit") or DEFAULT_LS_LIMIT
        resolved = resolve_path(path, cwd)
        stat = await ops.stat(resolved)
        if stat is None:
            raise ToolError(f"Path not found: {path}")
        if stat.kind != "directory":
            raise ToolError(f"Not a directory: {path}")
        try:
            entries = await ops.list_dir(resolved)
        except FileNotFoundError as exc:
            raise ToolError(f"Path not found: {path}") from exc
        except NotADirectoryError as exc:
            raise ToolError(f"Not a directory: {path}") from exc
        except PermissionError as exc:
            raise ToolError(f"Permission denied: cannot list {path}.") from exc
        return _listing(resolved, entries, limit)

    return ToolDefinition(
        name="ls",
        label="List",
        description=(
            "List a directory's entries, sorted case-insensitively, including dotfiles; "
            f"directories end in '/'. At most {DEFAULT_LS_LIMIT} entries unless limit says "
            "otherwise."
        ),
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prompt_snippet="List the entries of a directory",
        prompt_guidelines=["Use ls to look at a directory instead of running ls in bash."],
    )


def _listing(resolved: str, entries: list[DirEntry], limit: int) -> AgentToolResult:
    total = len(entries)
    details: dict[str, Any] = {"path": resolved, "total_entries": total}
    if not entries:
        details["shown_entries"] = 0
        return AgentToolResult([TextContent("(empty directory)")], details=details)
    ordered = sorted(entries, key=lambda entry: (entry.name.casefold(), entry.name))
    names = [_shown(e.name) for e in ordered[:limit]]
    listed = [f"{n}/" if e.kind == "directory" else n for n, e in zip(names, ordered, strict=False)]
    truncation = truncate_head("\n".join(listed), DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
    shown = truncation.output_lines if truncation.truncated else len(listed)
    notice: str | None = None
    if truncation.truncated:
        cap = (
            format_size(DEFAULT_MAX_BYTES)
            if truncation.truncated_by == "bytes"
            else f"{DEFAULT_MAX_LINES}-line"
        )
        notice = (
            f"[Output cut at the {cap} limit: showing {shown} of {total} entries. "
            "List a subdirectory, or use find with a pattern, to see the rest.]"
        )
    elif total > limit:
        notice = (
            f"[{limit} entries limit reached; the directory has {total}. "
            f"Use limit={total} for more.]"
        )
    details["shown_entries"] = shown
    details["entry_limit_reached"] = total > limit
    if truncation.truncated:
        details["truncation"] = {
            "truncated_by": truncation.truncated_by,
            "output_lines": truncation.output_lines,
            "output_bytes": truncation.output_bytes,
        }
    text = f"{truncation.content}\n\n{notice}" if notice else truncation.content
    return AgentToolResult([TextContent(text)], details=details)


def _shown(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (kept by the OS as lone surrogates) are
    written as ``\\xNN`` escapes, so the listing can be shown and recorded."""
    if name.isascii():
        return name
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no OS decoding makes: replaced
        return clean_text(name)[0]


def _render_call(args: Mapping[str, Any]) -> str:
    return f"ls {short(args.get('path') or '.')}"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    total, shown = details["total_entries"], details.get("shown_entries", 0)
    text = f"{total} entr{'y' if total == 1 else 'ies'}"
    return text + (f", {shown} shown" if shown < total else "")


TOOL = BuiltinTool(
    name="ls",
    define=_define,
    exposure={"path": Review.INCLUDE, "limit": Review.INCLUDE},
    governance=path_governance("read"),
    read_only=True,
    idempotent=True,
    render_call=_render_call,
    render_result=_render_result,
)
"""``ls``: its definition, review exposure, governance and renderers."""
