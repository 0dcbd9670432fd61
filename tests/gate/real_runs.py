"""Running a spelling for real, then asking the policy: the two halves of every differential
test (the real program does what the plain spelling does; the policy must deny it as well)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tether.gate import PathPolicy, ShellPolicy


def run_in(workspace: Path, command: str, env: Mapping[str, str] | None = None) -> None:
    """Run ``command`` with bash in ``workspace``, its input closed, its output dropped; ``env``
    adds to (or replaces names in) the test's own environment."""
    environment = {**os.environ, **(env or {})}
    subprocess.run(
        ["bash", "-c", command], cwd=workspace, env=environment, stdin=subprocess.DEVNULL,
        capture_output=True, check=False, timeout=60,
    )  # fmt: skip


def decision(command: str, workspace: Path, home: str = "/root") -> str:
    """The policy's decision on ``command`` for ``workspace``, the home ``home``."""
    return ShellPolicy(PathPolicy(str(workspace), home=home)).classify(command).decision
