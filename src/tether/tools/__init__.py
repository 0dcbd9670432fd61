"""Layer 3 — the product's tools.

:class:`ToolDefinition` (an :class:`~tether.agent.AgentTool` plus prompt text, rendering and
governance, with a ``ctx`` argument injected by :func:`wrap_tool_definition`); the built-in coding
tools read, write, edit, bash, grep, find and ls, each reaching the system only through its
protocol in :mod:`tether.tools.operations` and each described whole — schema, review exposure,
governance, renderers — by one :class:`BuiltinTool` in its own module, gathered in
:data:`BUILTIN_TOOLS`; :func:`coding_tool_catalog`, the governed tool set every mode offers;
background tasks (:class:`TaskManager` and the task tools); output truncation; the file
mutation queue; and the system prompt.
"""

from ._bash_governance import PROVED_READ_ONLY
from ._builtin import BuiltinTool, path_governance
from ._coding_tools import coding_tool_catalog, create_coding_tools
from ._definition import ToolContext, ToolDefinition, wrap_tool_definition
from ._mutation_queue import with_file_mutation_queue
from ._paths import resolve_path
from ._registry import BUILTIN_TOOL_NAMES, BUILTIN_TOOLS, BuiltinTools, builtin_governance
from ._system_prompt import ContextFile, build_system_prompt
from ._task_log import LogSlice, TaskLog
from ._task_tools import (
    TASK_TOOL_NAMES,
    create_task_tools,
    describe_task,
    task_end_announcement,
)
from ._tasks import (
    CancelOutcome,
    Task,
    TaskEvent,
    TaskLimitError,
    TaskLimits,
    TaskManager,
    TaskStatus,
)
from ._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from .bash import create_bash_tool
from .edit import create_edit_tool
from .find import create_find_tool
from .grep import create_grep_tool
from .ls import create_ls_tool
from .read import create_read_tool
from .write import create_write_tool

__all__ = [
    "BUILTIN_TOOLS",
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "PROVED_READ_ONLY",
    "TASK_TOOL_NAMES",
    "BuiltinTool",
    "BuiltinTools",
    "CancelOutcome",
    "ContextFile",
    "LogSlice",
    "Task",
    "TaskEvent",
    "TaskLimitError",
    "TaskLimits",
    "TaskLog",
    "TaskManager",
    "TaskStatus",
    "ToolContext",
    "ToolDefinition",
    "TruncationResult",
    "build_system_prompt",
    "builtin_governance",
    "coding_tool_catalog",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_task_tools",
    "create_write_tool",
    "describe_task",
    "format_size",
    "path_governance",
    "resolve_path",
    "task_end_announcement",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "with_file_mutation_queue",
    "wrap_tool_definition",
]
