"""How tools read the paths a model gives them."""

from __future__ import annotations

import posixpath

__all__ = ["resolve_path"]


def resolve_path(path: str, cwd: str) -> str:
    """Absolute, normalised form of a model-given path.

    A leading ``@`` (a common model habit from chat UIs) is dropped, ``~`` expands to the home
    directory, and relative paths resolve against ``cwd``. Symlinks are not resolved here.
    """
    text = path.strip()
    if text.startswith("@"):
        text = text[1:]
    if text == "~" or text.startswith("~/"):
        text = posixpath.expanduser(text)
    if not posixpath.isabs(text):
        text = posixpath.join(cwd, text)
    return posixpath.normpath(text)
