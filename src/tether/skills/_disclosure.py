"""Progressive disclosure: the catalog in the system prompt, a skill's body when it is activated,
its files only when read.

The catalog lists name and description of each loadable skill, cut to a budget (2 % of the
model's window, between 1 and 8 KB) with a closing "N more: call list_skills". An activated
skill enters the conversation as one ``<skill_content>`` block: the body, the skill's directory,
its ``allowed-tools`` (shown, not granted) and the list of its files (not their contents). The
block's tag is how compaction recognises a loaded skill (:func:`preserved_skills`) and how a
second activation is recognised (:func:`loaded_skill_names`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

from tether.ai import TextContent, ToolResultMessage, UserMessage

from ._format import SKILL_FILE, Skill

__all__ = [
    "VIEW_SKILL",
    "catalog_budget",
    "catalog_prompt",
    "loaded_skill_names",
    "preserved_skills",
    "skill_content",
    "skill_files",
]

VIEW_SKILL = "view_skill"
_MAX_LISTED_FILES = 200
_SKIPPED = frozenset({".git", "node_modules", "__pycache__", ".DS_Store"})
_BLOCK = re.compile(r'<skill_content name="([^"]+)"[^>]*>.*?</skill_content>', re.DOTALL)
_INTRO = (
    "Skills are instructions for particular tasks, loaded on demand. When a task matches a "
    "skill's description, call view_skill with its name before you start, then follow it. A "
    "skill's files are read with read (its relative paths resolve against its directory); its "
    "scripts run through bash and are judged like any command."
)


def catalog_budget(context_window: int) -> int:
    """Characters the catalog may take: 2 % of the window (about 4 characters a token),
    at least 1 KB and at most 8 KB."""
    return max(1024, min(8192, context_window * 4 // 50))


def catalog_prompt(skills: Iterable[Skill], budget: int) -> str | None:
    """The system prompt's skills section, or ``None`` when there is no skill to disclose."""
    chosen = list(skills)
    if not chosen:
        return None
    entries = [
        f"<skill><name>{skill.name}</name><description>{_escape(skill.description)}"
        "</description></skill>"
        for skill in chosen
    ]
    used = len(_INTRO) + 60
    shown: list[str] = []
    for entry in entries:
        if used + len(entry) + 1 > budget:
            break
        shown.append(entry)
        used += len(entry) + 1
    lines = [_INTRO, "<available_skills>", *shown, "</available_skills>"]
    if len(shown) < len(entries):
        lines.append(f"{len(entries) - len(shown)} more: call list_skills.")
    return "\n".join(lines)


def skill_files(skill: Skill) -> tuple[list[str], bool]:
    """The skill's files relative to its directory (``SKILL.md`` left out), sorted, and whether
    the list was cut at its cap."""
    found: list[str] = []
    for directory, subdirectories, files in os.walk(skill.directory):
        subdirectories[:] = sorted(d for d in subdirectories if d not in _SKIPPED)
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(directory, name), skill.directory)
            if relative != SKILL_FILE and name not in _SKIPPED:
                found.append(relative)
            if len(found) > _MAX_LISTED_FILES:
                return sorted(found[:_MAX_LISTED_FILES]), True
    return sorted(found), False


def skill_content(skill: Skill) -> str:
    """The block an activation puts into the conversation."""
    files, cut = skill_files(skill)
    lines = [
        f'<skill_content name="{skill.name}" digest="{skill.digest}">',
        skill.body,
        "",
        f"Skill directory: {skill.directory}",
        "Relative paths in this skill resolve against the skill directory; its files can be "
        "read with read.",
    ]
    if skill.compatibility:
        lines.append(f"Compatibility: {skill.compatibility}")
    if skill.allowed_tools:
        lines.append(
            f"allowed-tools: {' '.join(skill.allowed_tools)} (informational: tether grants a "
            "skill nothing; every call is judged as usual)"
        )
    if files:
        lines.append("<skill_resources>")
        lines += [f"<file>{name}</file>" for name in files]
        if cut:
            lines.append(f"<!-- more files than {_MAX_LISTED_FILES}; list the rest with ls -->")
        lines.append("</skill_resources>")
    lines.append("</skill_content>")
    return "\n".join(lines)


def loaded_skill_names(messages: Sequence[Any]) -> list[str]:
    """The skills activated in ``messages`` (by ``view_skill`` or by the person), in order."""
    return list(dict.fromkeys(name for name, _ in _blocks(messages)))


def preserved_skills(dropped: Sequence[Any]) -> list[Any]:
    """Compaction's hook: the skills loaded in the messages being summarised away, as one user
    message to keep right after the summary (none when no skill was loaded)."""
    blocks = dict(_blocks(dropped))
    if not blocks:
        return []
    text = "\n\n".join(blocks.values())
    return [
        UserMessage(
            "These skills were loaded earlier in this conversation and still apply:\n\n" + text
        )
    ]


def _blocks(messages: Sequence[Any]) -> Iterable[tuple[str, str]]:
    """``(name, block)`` of each skill block in a person's message or a ``view_skill`` result;
    other tools' results may quote files and are never taken for a loaded skill."""
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if message.tool_name != VIEW_SKILL or message.is_error:
                continue
            blocks: Sequence[object] = message.content
        elif isinstance(message, UserMessage):
            content = message.content
            blocks = [TextContent(content)] if isinstance(content, str) else content
        else:
            continue
        for block in blocks:
            if isinstance(block, TextContent):
                for match in _BLOCK.finditer(block.text):
                    yield match[1], match[0]


def _escape(text: str) -> str:
    return " ".join(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").split())
