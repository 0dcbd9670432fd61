"""Which workspaces the person trusts to bring their own skills.

A repository can ship a skill that tells the model to run anything, so a project's skills are not
loaded until the person trusts that workspace (``tether skills trust``, or ``/skills trust`` in the
terminal). The trusted workspaces are kept, by real path, in ``trusted-workspaces.json`` in the
data directory (0600). A file that cannot be read or parsed trusts nothing (fail closed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["TrustStore"]

TRUST_FILE = "trusted-workspaces.json"


class TrustStore:
    """The trusted workspaces; ``path`` defaults to ``trusted-workspaces.json`` in the data
    directory (``$TETHER_HOME`` when set)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            from tether._home import data_dir

            path = data_dir() / TRUST_FILE
        self.path = Path(path)

    def workspaces(self) -> list[str]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        listed = raw.get("workspaces") if isinstance(raw, dict) else None
        return [w for w in listed if isinstance(w, str)] if isinstance(listed, list) else []

    def is_trusted(self, workspace: str) -> bool:
        return os.path.realpath(workspace) in self.workspaces()

    def trust(self, workspace: str) -> bool:
        """Trust ``workspace``; ``False`` when it already was."""
        real = os.path.realpath(workspace)
        known = self.workspaces()
        if real in known:
            return False
        self._write([*known, real])
        return True

    def revoke(self, workspace: str) -> bool:
        """Stop trusting ``workspace``; ``False`` when it was not trusted."""
        real = os.path.realpath(workspace)
        known = self.workspaces()
        if real not in known:
            return False
        self._write([w for w in known if w != real])
        return True

    def _write(self, workspaces: list[str]) -> None:
        from tether._home import open_private

        temporary = self.path.with_name(self.path.name + ".tmp")
        with open_private(temporary) as handle:
            json.dump({"workspaces": workspaces}, handle, indent=2)
            handle.write("\n")
        os.replace(temporary, self.path)
