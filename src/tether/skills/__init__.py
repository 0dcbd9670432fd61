"""Skills: the open Agent Skills format (agentskills.io), disclosed progressively and governed.

A skill is a directory with a ``SKILL.md`` (YAML front matter — ``name``, ``description`` and
optional ``license``, ``compatibility``, ``metadata``, ``allowed-tools`` — then Markdown
instructions) and optional ``scripts/``, ``references/``, ``assets/``. :func:`parse_skill` reads
one leniently (:class:`Diagnostic` s name file and line); :func:`discover_skills` finds them in the
project and user directories with project-over-user precedence, keeping project skills out until
the person trusts the workspace (:class:`TrustStore`); :func:`catalog_prompt` is what the system
prompt carries; :func:`create_skill_tools` makes the Mind's ``list_skills`` and ``view_skill``;
:func:`preserved_skills` keeps loaded skills through a compaction.

Where it sits: above ``tools`` (its tools are :class:`~tether.tools.ToolDefinition` s governed
with the gate's vocabulary), beside ``session``, ``remote`` and ``mcp``; it imports none of them,
and the command wires it to the session (activation entries, compaction).
"""

from ._disclosure import (
    VIEW_SKILL,
    catalog_budget,
    catalog_prompt,
    loaded_skill_names,
    preserved_skills,
    skill_content,
    skill_files,
)
from ._discovery import (
    PROJECT_SKILL_DIRS,
    SkillRoot,
    SkillSet,
    discover_skills,
    find_skill_files,
    skill_roots,
)
from ._format import SKILL_FILE, Diagnostic, Skill, parse_skill
from ._tools import LIST_SKILLS, SkillActivations, create_skill_tools
from ._trust import TrustStore

__all__ = [
    "LIST_SKILLS",
    "PROJECT_SKILL_DIRS",
    "SKILL_FILE",
    "VIEW_SKILL",
    "Diagnostic",
    "Skill",
    "SkillActivations",
    "SkillRoot",
    "SkillSet",
    "TrustStore",
    "catalog_budget",
    "catalog_prompt",
    "create_skill_tools",
    "discover_skills",
    "find_skill_files",
    "loaded_skill_names",
    "parse_skill",
    "preserved_skills",
    "skill_content",
    "skill_files",
    "skill_roots",
]
