"""Shared by the gate's tests: no daemon a real program starts outlives its test."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_gpg_agent_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """gpg starts an agent for a fresh home (a test's ``tmp_path``); stop it afterwards."""
    yield
    tmp_path = request.node.funcargs.get("tmp_path")
    home = Path(tmp_path) / ".gnupg" if tmp_path is not None else None
    if home is not None and home.is_dir() and shutil.which("gpgconf"):
        subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"],
                       capture_output=True, check=False, timeout=30)  # fmt: skip
