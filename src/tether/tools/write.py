"""The ``write`` tool: create or replace a whole file with the model's text.

The bytes written are the UTF-8 encoding of ``content``, and that byte count is what the result
reports. Parent directories are created. The replacement is atomic (the operations write a temp
file and rename it over the target, :meth:`WriteOperations.write_file`), so a reader or a crash
never sees a half-written file. Writes and edits of one file are serialised through the file
mutation queue, keyed by the real path, so a parallel batch touching the same file stays ordered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.agent import AgentToolResult, ToolError
from tether.ai import AbortSignal, TextContent
from tether.gate import Review

from ._builtin import BuiltinTool, path_governance
from ._definition import ToolDefinition, run_as_execute
from ._mutation_queue import with_file_mutation_queue
from ._paths import resolve_path
from ._rendering import short
from .operations._protocols import WriteOperations

__all__ = ["TOOL", "create_write_tool"]

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "File to write: relative to the working directory, or absolute.",
        },
        "content": {
            "type": "string",
            "description": "The complete new content of the file.",
        },
    },
    "required": ["path", "content"],
}


def create_write_tool(cwd: str, *, operations: WriteOperations | None = None) -> ToolDefinition:
    """The ``write`` tool rooted at ``cwd``."""
    return TOOL.create(cwd, operations=operations)


def _define(cwd: str, ops: WriteOperations) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        path: str = params["path"]
        data = params["content"].encode("utf-8")
        resolved = resolve_path(path, cwd)

        async def write() -> None:
            signal.throw_if_aborted()
            await ops.write_file(resolved, data)

        try:
            await with_file_mutation_queue(resolved, write, real_path=ops.real_path)
        except IsADirectoryError as exc:
            raise ToolError(f"Cannot write {path}: it is a directory.") from exc
        except (NotADirectoryError, FileExistsError) as exc:
            raise ToolError(
                f"Cannot write {path}: part of its parent path is a file, not a directory."
            ) from exc
        except PermissionError as exc:
            raise ToolError(f"Permission denied: cannot write {path}.") from exc
        except OSError as exc:
            raise ToolError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
        size = len(data)
        return AgentToolResult(
            [TextContent(f"Successfully wrote {size} byte{'' if size == 1 else 's'} to {path}")],
            details={"path": resolved, "bytes": size},
        )

    return ToolDefinition(
        name="write",
        label="Write",
        description=(
            "Write a file: create it, or replace its whole content. Parent directories are "
            "created. Prefer edit for changing part of an existing file."
        ),
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prompt_snippet="Create a file or replace a whole file's content",
        prompt_guidelines=[
            "Use write only for new files or complete rewrites; use edit for changes to part of "
            "a file.",
        ],
    )


def _render_call(args: Mapping[str, Any]) -> str:
    content = args.get("content")
    size = len(content.encode("utf-8")) if isinstance(content, str) else "?"
    return f"write {short(args.get('path'))} ({size} byte{'' if size == 1 else 's'})"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    count = details["bytes"]
    return f"wrote {count:,} byte{'' if count == 1 else 's'}"


TOOL = BuiltinTool(
    name="write",
    define=_define,
    exposure={"path": Review.INCLUDE, "content": Review.REDACT},
    governance=path_governance("write"),
    idempotent=True,
    render_call=_render_call,
    render_result=_render_result,
    default=True,
)
"""``write``: its definition, review exposure, governance and renderers."""
