"""The Mind's skill tools: ``list_skills()`` and ``view_skill(name)``, governed like every tool.

Both only read what discovery loaded (user skills and the project's once the workspace is
trusted), so their governance allows every call; their one parameter is shown to the AI reviewer.
``view_skill`` answers an unknown and an untrusted name with the same "no such skill" (no oracle
for what a repository ships), says a skill already loaded in this conversation is loaded instead
of repeating it, and reports each activation to :class:`SkillActivations`' ``on_activate`` (the
command records it in the session). Neither tool is offered by a hand or ``tether mcp serve``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tether.agent import AgentToolResult, ToolError, UpdateCallback
from tether.ai import AbortSignal, TextContent
from tether.gate import Governance, Review, Verdict
from tether.tools import ToolContext, ToolDefinition

from ._disclosure import VIEW_SKILL, loaded_skill_names, skill_content
from ._discovery import SkillSet
from ._format import Skill

__all__ = ["LIST_SKILLS", "SkillActivations", "create_skill_tools"]

LIST_SKILLS = "list_skills"
_GOVERNANCE = Governance(check=lambda args: Verdict.allow("reads the loaded skills only"))


class SkillActivations:
    """Which skills this conversation has loaded, and what happens on a new activation.

    ``messages`` seeds the loaded names (a resumed session); ``on_activate(skill, by)`` is
    called once per activation, ``by`` being ``"model"`` or ``"person"``.
    """

    def __init__(
        self,
        skills: SkillSet,
        messages: Sequence[Any] = (),
        on_activate: Callable[[Skill, str], None] | None = None,
    ) -> None:
        self.skills = skills
        self.on_activate = on_activate
        self.loaded: list[str] = loaded_skill_names(messages)

    def activate(self, name: str, by: str) -> str:
        """The skill's content block, recorded as loaded; ``LookupError`` with the message to
        show when there is no such (loadable) skill."""
        skill = self.skills.get(name)
        if skill is None:
            raise LookupError(f"no such skill: {name!r}; list_skills lists the skills there are")
        content = skill_content(skill)
        if name not in self.loaded:
            self.loaded.append(name)
        if self.on_activate is not None:
            self.on_activate(skill, by)
        return content


def create_skill_tools(activations: SkillActivations) -> list[ToolDefinition]:
    """``list_skills`` and ``view_skill`` over ``activations``' skills."""
    skills = activations.skills

    def list_skills(params: Mapping[str, Any]) -> AgentToolResult:
        lines = []
        for skill in skills.skills.values():
            mark = " (loaded)" if skill.name in activations.loaded else ""
            lines.append(f"- {skill.name}{mark}: {' '.join(skill.description.split())}")
        text = "\n".join(lines) if lines else "No skills are installed."
        return AgentToolResult([TextContent(text)], details={"count": len(lines)})

    def view_skill(params: Mapping[str, Any]) -> AgentToolResult:
        name = str(params.get("name", ""))
        skill = skills.get(name)
        if skill is not None and name in activations.loaded:
            text = (
                f"Skill {name!r} is already loaded in this conversation; follow its "
                "instructions from the earlier view_skill result."
            )
            return AgentToolResult([TextContent(text)], details={"name": name, "loaded": True})
        try:
            content = activations.activate(name, "model")
        except LookupError as exc:
            raise ToolError(str(exc)) from None
        assert skill is not None
        details = {"name": name, "digest": skill.digest, "directory": skill.directory}
        return AgentToolResult([TextContent(content)], details=details)

    name_parameter = {
        "type": "string",
        "description": "The skill's name, as the catalog or list_skills gives it.",
        "x-review": Review.INCLUDE.value,
    }
    return [
        _definition(
            LIST_SKILLS,
            "Skills",
            "List the skills there are: name and description of each (the system prompt's "
            "catalog may be cut short).",
            {"type": "object", "properties": {}},
            list_skills,
            "List the available skills",
        ),
        _definition(
            VIEW_SKILL,
            "Skill",
            "Load a skill's instructions by name: its body, its directory and the list of its "
            "files (read them with read when the instructions refer to them).",
            {"type": "object", "properties": {"name": name_parameter}, "required": ["name"]},
            view_skill,
            "Load a skill's instructions by name",
        ),
    ]


def _definition(
    name: str,
    label: str,
    description: str,
    parameters: dict[str, Any],
    answer: Callable[[Mapping[str, Any]], AgentToolResult],
    snippet: str,
) -> ToolDefinition:
    """A skill tool: ``answer(params)`` is all it does; it only reads what discovery loaded."""

    async def execute(
        tool_call_id: str,
        params: Mapping[str, Any],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ToolContext,
    ) -> AgentToolResult:
        return answer(params)

    def render_call(args: Any) -> str:
        shown = args.get("name") if isinstance(args, Mapping) else None
        return f"{name} {shown}" if isinstance(shown, str) else name

    definition = ToolDefinition(name, label, description, parameters, execute)
    definition.prompt_snippet, definition.render_call = snippet, render_call
    definition.governance = _GOVERNANCE
    return definition
