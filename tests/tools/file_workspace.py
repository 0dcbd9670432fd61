"""One file tree, two homes: a real temp directory (``LocalOperations``) or memory
(``MemoryOperations``), so every file-tool test runs against both with the same absolute paths.

A test module parametrizes over :data:`WORKSPACE_KINDS` and builds the workspace with
:func:`make_workspace`; the tool under test gets ``workspace.operations`` and ``workspace.root``.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.agent import AgentContext, AgentLoopConfig, agent_loop
from tether.ai import AbortSignal, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel
from tether.tools._definition import ToolContext, ToolDefinition, wrap_tool_definition
from tether.tools.operations import LocalOperations, MemoryOperations

__all__ = [
    "WORKSPACE_KINDS",
    "Workspace",
    "call",
    "make_workspace",
    "run_through_agent_loop",
    "text_of",
]

WORKSPACE_KINDS = ("local", "memory")


@dataclass
class Workspace:
    kind: str
    root: str
    operations: Any

    def path(self, relative: str) -> str:
        return posixpath.join(self.root, relative)

    def write(self, relative: str, data: bytes | str) -> str:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        target = self.path(relative)
        if self.kind == "local":
            os.makedirs(posixpath.dirname(target), exist_ok=True)
            Path(target).write_bytes(raw)
        else:
            self.operations.files[posixpath.normpath(target)] = raw
            self.operations.make_dir(posixpath.dirname(target))
        return target

    def mkdir(self, relative: str) -> str:
        target = self.path(relative)
        if self.kind == "local":
            os.makedirs(target, exist_ok=True)
        else:
            self.operations.make_dir(target)
        return target

    def read(self, relative: str) -> bytes | None:
        target = posixpath.normpath(self.path(relative))
        if self.kind == "local":
            return Path(target).read_bytes() if os.path.isfile(target) else None
        data: bytes | None = self.operations.files.get(target)
        return data

    def names_in(self, relative: str) -> list[str]:
        """Every name directly inside a directory (files and directories)."""
        target = posixpath.normpath(self.path(relative))
        if self.kind == "local":
            return sorted(os.listdir(target))
        children = {
            posixpath.basename(p)
            for p in [*self.operations.files, *self.operations.directories]
            if p != target and posixpath.dirname(p) == target
        }
        return sorted(children)


def make_workspace(kind: str, tmp_path: Path) -> Workspace:
    root = str(tmp_path / "ws")
    if kind == "local":
        os.makedirs(root)
        return Workspace(kind, root, LocalOperations())
    memory = MemoryOperations()
    memory.make_dir(root)
    return Workspace(kind, root, memory)


async def call(
    definition: ToolDefinition, params: dict[str, Any], cwd: str, signal: AbortSignal | None = None
) -> Any:
    """Execute a definition directly with already-valid params."""
    return await definition.execute(
        "call-1", params, signal or AbortSignal(), None, ToolContext(cwd)
    )


def text_of(content: list[Any]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextContent))


async def run_through_agent_loop(
    definition: ToolDefinition, fm: FauxModel, cwd: str, prompt: str = "go"
) -> list[ToolResultMessage]:
    """Run ``agent_loop`` with the wrapped tool; return the tool-result messages it produced."""
    tool = wrap_tool_definition(definition, lambda: ToolContext(cwd))
    stream = agent_loop(
        [UserMessage(prompt)],
        AgentContext("", [], [tool]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    _ = [event async for event in stream]
    messages = await stream.result()
    return [m for m in messages if isinstance(m, ToolResultMessage)]
