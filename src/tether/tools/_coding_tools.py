"""The coding tool set: the built-in tools by name, created for one working directory."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._definition import ToolDefinition
from ._task_tools import create_task_tools
from ._tasks import TaskManager
from .bash import create_bash_tool
from .edit import create_edit_tool
from .find import create_find_tool
from .grep import create_grep_tool
from .ls import create_ls_tool
from .read import create_read_tool
from .write import create_write_tool

__all__ = ["BUILTIN_TOOL_FACTORIES", "create_coding_tools"]

BUILTIN_TOOL_FACTORIES: dict[str, Callable[..., ToolDefinition]] = {
    "read": create_read_tool,
    "bash": create_bash_tool,
    "edit": create_edit_tool,
    "write": create_write_tool,
    "grep": create_grep_tool,
    "find": create_find_tool,
    "ls": create_ls_tool,
}


def create_coding_tools(
    cwd: str,
    *,
    names: Iterable[str] = ("read", "bash", "edit", "write"),
    operations: Any = None,
    sandbox: bool | None = None,
    tasks: TaskManager | None = None,
) -> list[ToolDefinition]:
    """Create the named built-in tools for ``cwd``, in the order given.

    ``operations`` (an object implementing the tools' operations protocols, such as
    ``LocalOperations`` or a remote backend) is handed to every tool; ``None`` is this machine.
    ``sandbox`` goes to ``bash`` (``None``: bubblewrap where it works). With ``tasks`` and
    ``bash`` named, bash runs background tasks in that manager and the task tools
    (``task_output``, ``task_list``, ``task_cancel``) follow the named tools.
    """
    chosen = list(names)
    unknown = [name for name in chosen if name not in BUILTIN_TOOL_FACTORIES]
    if unknown:
        raise ValueError(
            f"Unknown tool name(s): {', '.join(unknown)}. "
            f"Built-in tools: {', '.join(BUILTIN_TOOL_FACTORIES)}."
        )
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"Duplicate tool names in {chosen}.")
    tools = []
    for name in chosen:
        options: dict[str, Any] = {"operations": operations}
        if name == "bash":
            options.update(sandbox=sandbox, tasks=tasks)
        tools.append(BUILTIN_TOOL_FACTORIES[name](cwd, **options))
    if tasks is not None and "bash" in chosen:
        tools.extend(create_task_tools(tasks))
    return tools
