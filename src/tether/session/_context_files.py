"""Context files: what the person wrote for agents, found the way they expect.

``AGENTS.md`` (else ``CLAUDE.md``) from the user's config directory, then from every directory
from the git root down to the working directory, in that order (general to specific); without
a git repository only the working directory's own. Unreadable files are skipped.
"""

from __future__ import annotations

import os

__all__ = ["CONTEXT_FILE_NAMES", "find_context_files"]

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


def find_context_files(cwd: str, config_dir: str | None = None) -> list[tuple[str, str]]:
    """``(path, content)`` of each context file for ``cwd``; ``config_dir`` defaults to
    tether's user config directory."""
    if config_dir is None:
        from tether._home import config_dir as default_config_dir

        config_dir = str(default_config_dir())
    found: list[tuple[str, str]] = []
    for directory in [config_dir, *_project_dirs(os.path.abspath(cwd))]:
        for name in CONTEXT_FILE_NAMES:
            path = os.path.join(directory, name)
            content = _read(path)
            if content is not None:
                found.append((path, content))
                break
    return found


def _project_dirs(cwd: str) -> list[str]:
    """The directories from the git root down to ``cwd`` (only ``cwd`` outside a repository)."""
    chain = [cwd]
    current = cwd
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return chain[::-1]
        parent = os.path.dirname(current)
        if parent == current:
            return [cwd]
        chain.append(parent)
        current = parent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None
