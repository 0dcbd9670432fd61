"""Skill directories written for the tests, in the shape the Agent Skills specification gives."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    directory: str,
    front: str | None = None,
    body: str = "# Steps\n\nDo the thing.\n",
    files: dict[str, str] | None = None,
) -> Path:
    """``root/directory/SKILL.md`` with front matter ``front`` (default: a valid one named after
    the directory) and ``files`` beside it; returns the ``SKILL.md`` path."""
    skill = root / directory
    skill.mkdir(parents=True, exist_ok=True)
    if front is None:
        front = f"name: {directory}\ndescription: Does {directory} things. Use for {directory}.\n"
    path = skill / "SKILL.md"
    path.write_text(f"---\n{front}---\n{body}", encoding="utf-8")
    for relative, content in (files or {}).items():
        target = skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return path
