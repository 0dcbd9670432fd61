"""Where skills are found, which one wins a name, and which may be loaded at all.

Each skills directory holds one skill per subdirectory with a ``SKILL.md``. They are scanned in
this order, and the first skill of a name wins (a later one of the same name is shadowed, with a
warning): the project's ``.tether/skills/``, ``.agents/skills/`` and ``.claude/skills/`` (for
people moving over), then the user's ``$TETHER_HOME/skills/`` (``~/.tether/skills/`` without
``TETHER_HOME``) and ``~/.agents/skills/``. So project skills override user skills.

Project skills come with the repository, so they are untrusted until the person trusts the
workspace (:class:`TrustStore`): until then they are listed as untrusted for the person, never
disclosed to the model, and shadow nothing (a user skill of the same name stays usable).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._format import SKILL_FILE, Diagnostic, Scope, Skill, parse_skill
from ._trust import TrustStore

__all__ = [
    "PROJECT_SKILL_DIRS",
    "SkillRoot",
    "SkillSet",
    "discover_skills",
    "find_skill_files",
    "skill_roots",
]

PROJECT_SKILL_DIRS = (".tether/skills", ".agents/skills", ".claude/skills")
_SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__"})
_MAX_ENTRIES = 2000


@dataclass(frozen=True, slots=True)
class SkillRoot:
    """One directory of skill directories."""

    path: str
    scope: Scope


@dataclass(slots=True)
class SkillSet:
    """What discovery found for one workspace.

    ``skills`` are those the model may be told about and load (by name, in precedence order);
    ``untrusted`` the project skills waiting for the person to trust ``workspace``;
    ``diagnostics`` every problem met, skipped skills' errors included.
    """

    workspace: str
    trusted: bool
    skills: dict[str, Skill] = field(default_factory=dict)
    untrusted: list[Skill] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        """The loadable skill ``name``; ``None`` for unknown and untrusted names alike."""
        return self.skills.get(name)

    def directories(self) -> list[str]:
        """The base directories of the loadable skills (read-only, readable without asking)."""
        return [skill.directory for skill in self.skills.values()]


def skill_roots(cwd: str, *, home: str | None = None) -> list[SkillRoot]:
    """The skills directories for workspace ``cwd``, in precedence order."""
    home = home or os.path.expanduser("~")
    tether_home = os.environ.get("TETHER_HOME")
    own = (
        os.path.join(os.path.expanduser(tether_home), "skills")
        if tether_home
        else os.path.join(home, ".tether", "skills")
    )
    project = [SkillRoot(os.path.join(cwd, d), "project") for d in PROJECT_SKILL_DIRS]
    return [
        *project,
        SkillRoot(own, "user"),
        SkillRoot(os.path.join(home, ".agents", "skills"), "user"),
    ]


def discover_skills(
    cwd: str,
    *,
    roots: Sequence[SkillRoot] | None = None,
    trust: TrustStore | None = None,
) -> SkillSet:
    """Every skill for workspace ``cwd`` (``roots`` defaults to :func:`skill_roots`)."""
    workspace = os.path.abspath(cwd)
    trusted = (trust or TrustStore()).is_trusted(workspace)
    found = SkillSet(workspace, trusted)
    winners: dict[str, Skill] = {}
    for root in roots if roots is not None else skill_roots(workspace):
        for skill_file in find_skill_files(root.path):
            skill, problems = parse_skill(skill_file, root.scope)
            found.diagnostics.extend(problems)
            if skill is None:
                continue
            if skill.scope == "project" and not trusted:
                _claim(found, winners, skill, found.untrusted)
                continue
            if _claim(found, winners, skill, None):
                found.skills[skill.name] = skill
    return found


def _claim(
    found: SkillSet, winners: dict[str, Skill], skill: Skill, untrusted: list[Skill] | None
) -> bool:
    """Record ``skill`` unless a skill of its name came first (then warn that it is shadowed).
    Untrusted skills go to ``untrusted`` and compete only among themselves."""
    key = f"untrusted:{skill.name}" if untrusted is not None else skill.name
    first = winners.get(key)
    if first is not None:
        found.diagnostics.append(
            Diagnostic(
                skill.path,
                1,
                "warning",
                f"skill {skill.name!r} is shadowed by {first.path}, found first",
            )
        )
        return False
    winners[key] = skill
    if untrusted is not None:
        untrusted.append(skill)
    return True


def find_skill_files(root: str) -> list[str]:
    """``<root>/<dir>/SKILL.md`` of each subdirectory that has one, by directory name."""
    try:
        with os.scandir(root) as entries:
            names = sorted(
                entry.name
                for _, entry in zip(range(_MAX_ENTRIES), entries, strict=False)
                if entry.name not in _SKIPPED_DIRS and entry.is_dir()
            )
    except OSError:
        return []
    paths = (os.path.join(root, name, SKILL_FILE) for name in names)
    return [path for path in paths if os.path.isfile(path)]
