"""Protected paths: the files inside a workspace that make programs run code later.

A command that may write the workspace must not be able to plant code that runs *outside* its
control afterwards — when the person runs ``git status``, opens the editor or ``cd``s into the
directory. These are the places where writing a file does that. The one list is used twice:
the path policy asks a person before ``write``/``edit`` change one of them, and the bash
sandbox keeps them read-only (and uncreatable) for the commands it runs unasked.

- :data:`PROTECTED_DIRECTORIES` at any depth, with everything below them: ``.git`` (hooks,
  ``config`` with ``core.fsmonitor``, ``commondir`` pointing git at another config), ``.vscode``
  (tasks and settings that run programs), ``.idea`` (run configurations);
- :data:`PROTECTED_FILES` at any depth: ``.envrc`` (direnv), the rust toolchain files (``path``
  makes ``cargo``/``rustc`` run another binary), ``.pre-commit-config.yaml`` (hooks),
  ``.rgignore`` / ``.ignore`` (widen what searches read);
- :data:`PROTECTED_ROOT_NAMES` at the workspace root only: ``HEAD`` — with ``objects/`` and
  ``refs/`` beside it the workspace itself is a bare repository whose ``config`` git obeys.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = [
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "PROTECTED_ROOT_NAMES",
    "protected_workspace_rule",
]

PROTECTED_DIRECTORIES: dict[str, str] = {
    ".git": "the git repository (its hooks and config run programs on the next git command)",
    ".vscode": "editor settings and tasks (the editor runs programs they name)",
    ".idea": "IDE settings (run configurations and tools run programs)",
}
"""Directory name -> why it is protected; matched at any depth, with all it contains."""

PROTECTED_FILES: dict[str, str] = {
    ".envrc": "a direnv file (runs when a shell enters the directory)",
    "rust-toolchain": "a rust toolchain file (cargo and rustc run the toolchain it names)",
    "rust-toolchain.toml": "a rust toolchain file (cargo and rustc run the toolchain it names)",
    ".pre-commit-config.yaml": "pre-commit hooks (run on the next git commit)",
    ".rgignore": "an ignore file (changes what searches read)",
    ".ignore": "an ignore file (changes what searches read)",
}
"""File name -> why it is protected; matched at any depth."""

PROTECTED_ROOT_NAMES: dict[str, str] = {
    "HEAD": "a HEAD at the workspace root (with objects/ and refs/ it makes the workspace a "
    "bare git repository whose config git obeys)",
}
"""Name at the workspace root -> why it is protected."""

_DIRECTORIES = {name.casefold(): why for name, why in PROTECTED_DIRECTORIES.items()}
_FILES = {name.casefold(): why for name, why in PROTECTED_FILES.items()}
_ROOT = {name.casefold(): why for name, why in PROTECTED_ROOT_NAMES.items()}


def protected_workspace_rule(relative: str) -> str | None:
    """Why ``relative`` (a POSIX path relative to the workspace root, no ``..``) is protected,
    naming the protected path; ``None`` when it is not. Case-insensitive, as a case-folding
    file system would open it."""
    parts = [part for part in PurePosixPath(relative).parts if part not in ("", ".")]
    if not parts:
        return None
    folded = [part.casefold() for part in parts]
    for index, part in enumerate(folded):
        if part in _DIRECTORIES:
            return f"{'/'.join(parts[: index + 1])}/ is {_DIRECTORIES[part]}"
    if folded[-1] in _FILES:
        return f"{'/'.join(parts)} is {_FILES[folded[-1]]}"
    if len(folded) == 1 and folded[0] in _ROOT:
        return f"{parts[0]} is {_ROOT[folded[0]]}"
    return None
