"""git as an allowed command runs with the state the model can write neutralised.

git obeys configuration and hooks that live in files (system, global, the repository's own) and
runs programs they name: an fsmonitor hook on ``status``, hooks, an external diff, a pager, gpg
for signatures. A read-only proof of ``git log`` says nothing about those, so the script that
runs an allowed git command (regenerated from the proof, :mod:`._allow`) spells them off:

    GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CEILING_DIRECTORIES=<workspace's parent>
    git -c core.fsmonitor= -c core.hooksPath=/dev/null -c diff.external= -c core.pager=cat
        -c gpg.program=false -c safe.bareRepository=explicit -c submodule.recurse=false
        -c diff.submodule=short <the proved arguments>

so what runs is exactly what was proved plus these. ``GIT_CEILING_DIRECTORIES`` at the
workspace's parent keeps git from finding a repository above the workspace (``HEAD:path`` of a
monorepo would read outside it); ``safe.bareRepository=explicit`` keeps it from using a bare
repository planted in the workspace. The last two keep a submodule's content out of what
is printed: it is another repository, whose history no check has listed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

__all__ = ["GIT_NEUTRAL_ENVIRONMENT", "GIT_NEUTRAL_OPTIONS", "neutralised_words"]

GIT_NEUTRAL_OPTIONS: tuple[str, ...] = (
    "-c", "core.fsmonitor=",
    "-c", "core.hooksPath=/dev/null",
    "-c", "diff.external=",
    "-c", "core.pager=cat",
    "-c", "gpg.program=false",
    "-c", "safe.bareRepository=explicit",
    "-c", "submodule.recurse=false",
    "-c", "diff.submodule=short",
)  # fmt: skip
"""Inserted right after ``git``: the configuration keys that make git run a program or read a
submodule's content, off."""

GIT_NEUTRAL_ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
)
"""Assigned before ``git``: no system or global configuration (``GIT_CEILING_DIRECTORIES`` is
added per workspace)."""


def neutralised_words(words: Sequence[str], workspace: str | None) -> list[str]:
    """The shell words (quoted) that run the proved command ``words``: as they are, or for git
    with the assignments and options above around it."""
    quoted = [quote_word(word) for word in words]
    if not words or words[0] != "git":
        return quoted
    environment = [f"{name}={quote_word(value)}" for name, value in GIT_NEUTRAL_ENVIRONMENT]
    if workspace is not None:
        parent = posixpath.dirname(posixpath.normpath(workspace))
        environment.append(f"GIT_CEILING_DIRECTORIES={quote_word(parent)}")
    options = [quote_word(option) for option in GIT_NEUTRAL_OPTIONS]
    return [*environment, quoted[0], *options, *quoted[1:]]


def quote_word(word: str) -> str:
    """``word`` single-quoted for bash: nothing in it expands."""
    return "'" + word.replace("'", "'\\''") + "'"
