"""Real git repositories for the gate's tests: ``git`` in one, and a new one with a commit."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True, capture_output=True, text=True, input=stdin,
    ).stdout.strip()  # fmt: skip


def new_repo(path: Path) -> Path:
    """A repository at ``path`` with one commit ("readme") of ``README.md``."""
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.email", "a@b.c")
    git(path, "config", "user.name", "A")
    (path / "README.md").write_text("readme\n")
    git(path, "add", "README.md")
    git(path, "commit", "-qm", "readme")
    return path
