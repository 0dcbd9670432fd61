"""``PROGRAM --version``: read-only for a program that is the system's, not for a version
manager's shim. ``rustc --version`` through rustup's proxy runs the toolchain a workspace's
``rust-toolchain.toml`` names (``path = "./evil"``), and asdf's or mise's shims run the binary a
``.tool-versions`` names (``nodejs path:./evil``): the workspace would choose what runs unasked.
So the allow holds only where the name resolves, symlinks followed, to a file under the system's
own directories.
"""

from __future__ import annotations

import os
import shutil

from ._path_rules import word_set

__all__ = ["VERSIONED", "version_refusal"]

VERSIONED = word_set(
    "python python3 node npm npx cargo rustc go gcc clang make pip pip3 uv ruff mypy pytest "
    "docker git java javac deno bun tsc"
)
"""Programs whose ``--version`` (or ``-V``) alone is read-only when they are the system's."""
_SYSTEM_ROOTS = ("/usr/", "/bin/", "/sbin/", "/nix/store/")


def version_refusal(name: str) -> str | None:
    """Why ``name --version`` is not provably read-only here (``None``: it is)."""
    found = shutil.which(name)  # looked up afresh: a link the workspace holds may change
    real = os.path.realpath(found) if found is not None else None
    if real is None:
        return f"{name} --version: {name} is not found here"
    if not real.startswith(_SYSTEM_ROOTS):
        return (
            f"{name} --version: {name} is {real}, not a system program (a version manager's "
            "shim may run what the workspace's config names)"
        )
    return None
