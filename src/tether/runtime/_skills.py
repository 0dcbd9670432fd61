"""Skills in a run: discovered for the working directory, disclosed in the system prompt, loaded by
``view_skill`` or ``/skill:NAME``, recorded in the session, kept through compaction.

Only where the tools run on this machine: with ``--remote`` a skill's files would be here while
``read`` reads there, so no skill is loaded. Each activation is a ``custom`` session entry of
type ``skill_activation`` (name, digest, file, scope, who activated it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tether.ai import Model

if TYPE_CHECKING:
    from tether.session import Session
    from tether.skills import Skill, SkillActivations
    from tether.tools import ToolDefinition

__all__ = ["SKILL_ACTIVATION", "RunSkills", "load_run_skills"]

SKILL_ACTIVATION = "skill_activation"


@dataclass(slots=True)
class RunSkills:
    """A run's skills: what the loop gets (tools, prompt section, readable directories) and the
    activations (loaded names, counted in the status line)."""

    activations: SkillActivations
    definitions: list[ToolDefinition] = field(default_factory=list)
    catalog: str | None = None

    @property
    def directories(self) -> list[str]:
        """The loaded skills' directories: read without asking, never written."""
        return self.activations.skills.directories()

    def activate(self, name: str) -> str:
        """``/skill:NAME``: the content block for the person's message (``LookupError``)."""
        return self.activations.activate(name, "person")


def load_run_skills(
    cwd: str, model: Model, session: Session | None, messages: list[Any]
) -> RunSkills:
    """Discover the skills for ``cwd``; the tools exist only when there is a skill to load."""
    from tether.skills import (
        SkillActivations,
        catalog_budget,
        catalog_prompt,
        create_skill_tools,
        discover_skills,
    )

    found = discover_skills(cwd)

    def record(skill: Skill, by: str) -> None:
        if session is None:
            return
        from tether.session import CustomEntry

        data = {
            "name": skill.name,
            "digest": skill.digest,
            "path": skill.path,
            "scope": skill.scope,
            "by": by,
        }
        session.append(CustomEntry(custom_type=SKILL_ACTIVATION, data=data))

    activations = SkillActivations(found, messages, on_activate=record)
    if not found.skills:
        return RunSkills(activations)
    catalog = catalog_prompt(found.skills.values(), catalog_budget(model.context_window))
    return RunSkills(activations, create_skill_tools(activations), catalog)
