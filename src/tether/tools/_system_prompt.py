"""The system prompt of a coding session, built from the active tools.

Rebuild it whenever the active tool set changes: it lists each active tool that has a
``prompt_snippet``, then the active tools' ``prompt_guidelines`` (each once, in first-seen
order), then the project's context files and the working directory. Given as the loop's (or the
``Agent``'s) ``system_prompt_for=functools.partial(build_system_prompt, cwd=...)``, it is rebuilt
at the start of every run and whenever a result activates tools.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tether.agent import AgentTool

from ._definition import ToolDefinition

__all__ = ["ContextFile", "build_system_prompt"]

INTRO = (
    "You are a coding agent working in the user's project. You act through the tools below; "
    "each call is validated and may be refused or need a person's approval, in which case "
    "adapt instead of retrying the same call."
)


@dataclass(frozen=True, slots=True)
class ContextFile:
    """A project instruction file (e.g. AGENTS.md) whose content goes into the prompt."""

    path: str
    content: str


def build_system_prompt(
    tools: Iterable[ToolDefinition | AgentTool],
    *,
    cwd: str,
    append: str | None = None,
    context_files: Iterable[ContextFile | tuple[str, str]] = (),
) -> str:
    """Compose the system prompt for ``tools`` (definitions, or agent tools wrapped from them)."""
    definitions = [_definition_of(tool) for tool in tools]
    sections = [INTRO]
    listed = [f"- {d.name}: {d.prompt_snippet}" for d in definitions if d and d.prompt_snippet]
    if listed:
        sections.append("Available tools:\n" + "\n".join(listed))
    guidelines: dict[str, None] = {}
    for definition in definitions:
        if definition is not None:
            for guideline in definition.prompt_guidelines:
                guidelines.setdefault(guideline.strip(), None)
    if guidelines:
        sections.append("Guidelines:\n" + "\n".join(f"- {g}" for g in guidelines if g))
    for item in context_files:
        context = item if isinstance(item, ContextFile) else ContextFile(*item)
        sections.append(f"# Project context: {context.path}\n\n{context.content.strip()}")
    if append:
        sections.append(append.strip())
    sections.append(f"Current working directory: {cwd}")
    return "\n\n".join(sections)


def _definition_of(tool: ToolDefinition | AgentTool) -> ToolDefinition | None:
    if isinstance(tool, ToolDefinition):
        return tool
    definition = tool.metadata.get("definition")
    return definition if isinstance(definition, ToolDefinition) else None
