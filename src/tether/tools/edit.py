"""The ``edit`` tool: precise text replacements in one file, all or nothing.

A call carries ``path`` and ``edits`` (``[{old_text, new_text}]``). Every ``old_text`` is located in
the file as it was before the call (see :mod:`._edit_matching` for exact and tolerant matching);
if any edit cannot be placed, nothing is written and the error names each failing edit
("edit 2 of 3") and the path. The read-modify-write runs in the file mutation queue, so parallel
edits of one file (even through different symlinks) apply one after another and none is lost.
Line endings and a UTF-8 byte-order mark survive the edit; the result carries a unified diff and
the first changed line.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from typing import Any

from tether.agent import AgentToolResult, ToolError
from tether.ai import AbortSignal, TextContent
from tether.gate import Review

from ._builtin import BuiltinTool, path_governance
from ._definition import ToolDefinition, run_as_execute
from ._edit_diff import first_changed_line, unified_diff
from ._edit_matching import EditsRejected, apply_edits
from ._mutation_queue import with_file_mutation_queue
from ._paths import resolve_path
from ._rendering import short
from .operations._protocols import EditOperations

__all__ = ["TOOL", "create_edit_tool", "prepare_edit_arguments"]

_UTF8_BOM = b"\xef\xbb\xbf"
_LEGACY_KEY_PAIRS = (("old_text", "new_text"), ("oldText", "newText"))

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "File to edit, relative to the working directory or absolute.",
        },
        "edits": {
            "type": "array",
            "minItems": 1,
            "description": (
                "The replacements to make. Each old_text is matched against the file as it is "
                "before this call (not after the other edits), must occur exactly once, and must "
                "not overlap another edit's old_text."
            ),
            "items": {
                "type": "object",
                "properties": {
                    "old_text": {
                        "type": "string",
                        "description": (
                            "Text to replace, copied exactly from the file (whitespace and "
                            "indentation included); include enough lines to make it unique."
                        ),
                    },
                    "new_text": {
                        "type": "string",
                        "description": "Text to put in its place (empty to delete it).",
                    },
                },
                "required": ["old_text", "new_text"],
            },
        },
    },
    "required": ["path", "edits"],
}

_DESCRIPTION = (
    "Edit a text file by replacing exact text. Give the file's path and a list of edits, each "
    "{old_text, new_text}. Every old_text is matched against the original file (edits do not see "
    "each other's results), must match exactly one place, and must not overlap another edit; "
    "if any edit fails, the file is left unchanged. Put all changes to one file in one call. "
    "Line endings and a UTF-8 BOM are kept. Use the write tool to create or fully rewrite a file."
)


def create_edit_tool(cwd: str, *, operations: EditOperations | None = None) -> ToolDefinition:
    """The ``edit`` tool for files under ``cwd``, reaching them through ``operations``
    (this machine's files by default)."""
    return TOOL.create(cwd, operations=operations)


def _define(cwd: str, ops: EditOperations) -> ToolDefinition:
    async def run(params: dict[str, Any], signal: AbortSignal) -> AgentToolResult:
        path: str = params["path"]
        edits = [(edit["old_text"], edit["new_text"]) for edit in params["edits"]]
        if not edits:
            raise ToolError(f"No edits given for {path}; pass at least one {{old_text, new_text}}.")
        resolved = resolve_path(path, cwd)

        async def read_modify_write() -> AgentToolResult:
            signal.throw_if_aborted()
            has_bom, original = _decode(await _read(ops, resolved, path), path)
            try:
                outcome = apply_edits(original, edits)
            except EditsRejected as rejected:
                lines = [
                    f"Edit {problem.index + 1} of {len(edits)} in {path}: {problem.reason}"
                    for problem in rejected.problems
                ]
                lines.append(f"No edits were applied; {path} is unchanged.")
                raise ToolError("\n".join(lines)) from None
            if outcome.text == original:
                raise ToolError(_no_change_message(outcome.unchanged, path))
            signal.throw_if_aborted()
            data = (_UTF8_BOM if has_bom else b"") + outcome.text.encode("utf-8")
            try:
                await ops.write_file(resolved, data)
            except PermissionError:
                raise ToolError(f"Permission denied: cannot write {path}.") from None
            return AgentToolResult(
                content=[TextContent(f"Successfully replaced {len(edits)} block(s) in {path}.")],
                details={
                    "diff": unified_diff(
                        original, outcome.text, outcome.regions, _diff_path(resolved, cwd)
                    ),
                    "first_changed_line": first_changed_line(
                        original, outcome.text, outcome.regions
                    ),
                },
            )

        return await with_file_mutation_queue(resolved, read_modify_write, real_path=ops.real_path)

    return ToolDefinition(
        name="edit",
        label="Edit",
        description=_DESCRIPTION,
        parameters=_PARAMETERS,
        execute=run_as_execute(run),
        prepare_arguments=prepare_edit_arguments,
        prompt_snippet="Replace exact text in a file (one or more old_text -> new_text edits)",
        prompt_guidelines=[
            "Read a file before editing it, and copy each old_text exactly from what read showed.",
            "Use edit for targeted changes; use write only for new files or complete rewrites.",
            "Make all changes to one file in a single edit call with several edits; each old_text "
            "must be unique in the file and must not overlap another edit's old_text.",
        ],
    )


def prepare_edit_arguments(raw: Any) -> Any:
    """Repair common model quirks before validation; anything unrecognised passes unchanged.

    ``edits`` sent as a JSON string is parsed; a single edit object is wrapped in a list;
    ``oldText``/``newText`` keys of an edit become ``old_text``/``new_text``; legacy top-level
    ``old_text``/``new_text`` (or ``oldText``/``newText``) become one more edit.
    """
    if not isinstance(raw, dict):
        return raw
    args = dict(raw)
    edits = args.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list | dict):
            edits = parsed
    if isinstance(edits, dict):
        edits = [edits]
    if isinstance(edits, list):
        edits = [_snake_case_edit(edit) for edit in edits]
    for old_key, new_key in _LEGACY_KEY_PAIRS:
        if old_key in args and new_key in args and (edits is None or isinstance(edits, list)):
            legacy = {"old_text": args.pop(old_key), "new_text": args.pop(new_key)}
            edits = [*(edits or []), legacy]
    if "edits" in args or edits is not None:
        args["edits"] = edits
    return args


def _snake_case_edit(edit: Any) -> Any:
    if not isinstance(edit, dict):
        return edit
    renamed = dict(edit)
    for snake, camel in (("old_text", "oldText"), ("new_text", "newText")):
        if camel in renamed and snake not in renamed:
            renamed[snake] = renamed.pop(camel)
    return renamed


async def _read(ops: EditOperations, resolved: str, path: str) -> bytes:
    try:
        return await ops.read_file(resolved)
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(
            f"File not found: {path} (resolved to {resolved}). Check the path; "
            "use the write tool to create a new file."
        ) from None
    except IsADirectoryError:
        raise ToolError(f"{path} is a directory, not a file; edit changes files only.") from None
    except PermissionError:
        raise ToolError(f"Permission denied: cannot read {path}.") from None


def _decode(data: bytes, path: str) -> tuple[bool, str]:
    """``(has_bom, text)``; a file that is not UTF-8 is refused rather than re-encoded."""
    has_bom = data.startswith(_UTF8_BOM)
    body = data[len(_UTF8_BOM) :] if has_bom else data
    try:
        return has_bom, body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(_UTF8_BOM) if has_bom else 0)
        raise ToolError(
            f"{path} is not valid UTF-8 text (byte 0x{body[exc.start]:02x} at offset {offset}); "
            "edit only changes UTF-8 text files. Use bash to change other files."
        ) from None


def _no_change_message(unchanged: list[bool], path: str) -> str:
    total = len(unchanged)
    same = [str(index + 1) for index, flag in enumerate(unchanged) if flag]
    if len(same) == total:
        which = "edit 1 of 1 has" if total == 1 else f"edits {', '.join(same)} of {total} have"
        reason = f"{which} new_text identical to the text it replaces"
    else:
        reason = f"together, the {total} edits restore the original text"
    return (
        f"No changes made to {path}: {reason}, so the file would stay the same. "
        "Give a new_text that differs from old_text."
    )


def _diff_path(resolved: str, cwd: str) -> str:
    """The path shown after ``a/`` and ``b/``: relative to ``cwd`` when inside it."""
    root = posixpath.normpath(cwd)
    if resolved == root or resolved.startswith(root.rstrip("/") + "/"):
        return posixpath.relpath(resolved, root)
    return resolved.lstrip("/")


def _render_call(args: Mapping[str, Any]) -> str:
    edits = args.get("edits")
    count = len(edits) if isinstance(edits, list) else "?"
    return f"edit {short(args.get('path'))} ({count} edit{'' if count == 1 else 's'})"


def _render_result(result: AgentToolResult, details: Mapping[str, Any]) -> str:
    diff_lines = str(details["diff"]).splitlines()
    body = diff_lines[2:] if diff_lines[:1] and diff_lines[0].startswith("--- ") else diff_lines
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return f"+{added} -{removed} lines, first change at line {details['first_changed_line']}"


TOOL = BuiltinTool(
    name="edit",
    define=_define,
    exposure={"path": Review.INCLUDE, "edits": Review.REDACT},
    governance=path_governance("write"),
    render_call=_render_call,
    render_result=_render_result,
    default=True,
)
"""``edit``: its definition, review exposure, governance and renderers."""
