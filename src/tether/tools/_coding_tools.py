"""The coding tool set: built-in tools by name, made for one working directory, and the one
builder of the governed set that the command, ``tether mcp serve`` and a hand all offer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tether.gate import Catalog

from ._definition import ToolDefinition
from ._registry import BUILTIN_TOOLS
from ._task_tools import create_task_tools
from ._tasks import TaskManager

__all__ = ["coding_tool_catalog", "create_coding_tools"]


def create_coding_tools(
    cwd: str,
    *,
    names: Iterable[str] | None = None,
    operations: Any = None,
    sandbox: bool | None = None,
    tasks: TaskManager | None = None,
) -> list[ToolDefinition]:
    """Create the named built-in tools for ``cwd``, in the order given (``None``: the default
    set, read, bash, edit and write).

    ``operations`` (an object implementing the tools' operations protocols, such as
    ``LocalOperations`` or a remote backend) is handed to every tool; ``None`` is this machine.
    ``sandbox`` goes to ``bash`` (``None``: bubblewrap where it works). With ``tasks`` and
    ``bash`` named, bash runs background tasks in that manager and the task tools
    (``task_output``, ``task_list``, ``task_cancel``) follow the named tools.
    """
    chosen = list(BUILTIN_TOOLS.default_names() if names is None else names)
    unknown = [name for name in chosen if name not in BUILTIN_TOOLS]
    if unknown:
        raise ValueError(
            f"Unknown tool name(s): {', '.join(unknown)}. "
            f"Built-in tools: {', '.join(BUILTIN_TOOLS)}."
        )
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"Duplicate tool names in {chosen}.")
    run_options = {"sandbox": sandbox, "tasks": tasks}
    tools = []
    for name in chosen:
        tool = BUILTIN_TOOLS[name]
        options = {key: run_options[key] for key in tool.run_options if key in run_options}
        tools.append(tool.create(cwd, operations=operations, **options))
    takes_tasks = any("tasks" in BUILTIN_TOOLS[name].run_options for name in chosen)
    if tasks is not None and takes_tasks:
        tools.extend(create_task_tools(tasks))
    return tools


def coding_tool_catalog(
    cwd: str,
    *,
    names: Iterable[str] | None = None,
    operations: Any = None,
    sandbox: bool | None = None,
    tasks: TaskManager | None = None,
) -> Catalog:
    """The governed tool set of a run — the named built-in tools, as :func:`create_coding_tools`
    makes them, each in its model-facing form — for the command, ``tether mcp serve`` and a
    hand alike; a run registers its other tools (skills) into it."""
    return Catalog(
        create_coding_tools(cwd, names=names, operations=operations, sandbox=sandbox, tasks=tasks)
    )
