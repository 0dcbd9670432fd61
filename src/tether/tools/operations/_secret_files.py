"""Files a directory search never reads: their contents would reach the model through grep.

A search of one file named explicitly is the path policy's call, not this list's.
"""

from __future__ import annotations

from ._glob import compile_glob

__all__ = ["SECRET_FILE_GLOBS", "is_secret_file"]

SECRET_FILE_GLOBS = (".env", ".env.*", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.pem")
"""File-name globs (no slash: they match the name at any depth)."""

_SECRET_MATCHERS = tuple(compile_glob(glob) for glob in SECRET_FILE_GLOBS)


def is_secret_file(relative_path: str) -> bool:
    """Whether the file at ``relative_path`` (POSIX, relative to the search) is a secret file."""
    return any(matches(relative_path) for matches in _SECRET_MATCHERS)
