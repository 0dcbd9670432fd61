"""Files a directory search never reads: their contents would reach the model through grep.

The list is the path policy's own (:data:`tether.gate.SECRET_SEARCH_GLOBS`), so grep can never
read what ``read`` would be denied. A search of one file named explicitly is the policy's call.
"""

from __future__ import annotations

from tether.gate import SECRET_SEARCH_GLOBS

from ._glob import compile_glob

__all__ = ["SECRET_FILE_GLOBS", "is_secret_file"]

SECRET_FILE_GLOBS = SECRET_SEARCH_GLOBS
"""Globs matched case-insensitively; one without a slash names a file or directory anywhere."""

_SECRET_MATCHERS = tuple(compile_glob(glob.casefold()) for glob in SECRET_FILE_GLOBS)


def is_secret_file(relative_path: str) -> bool:
    """Whether ``relative_path`` (POSIX, relative to the searched directory) is a secret file or
    lies in a secret directory — as ripgrep's exclusions prune a matching directory whole."""
    parts = relative_path.casefold().split("/")
    prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    return any(matches(prefix) for prefix in prefixes for matches in _SECRET_MATCHERS)
