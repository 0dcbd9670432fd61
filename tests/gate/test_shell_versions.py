"""``PROGRAM --version`` is read-only only for the system's program: through a version
manager's shim (rustup's proxies, asdf's or mise's shims, pyenv's) the workspace's config can name
the binary that runs (``rust-toolchain.toml``'s ``path``, ``.tool-versions``' ``path:``), so the
workspace would choose what runs unasked."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy


def _shim(directory: Path, name: str) -> None:
    """A shim as version managers write them: it runs the binary the workspace's config names."""
    directory.mkdir(exist_ok=True)
    shim = directory / name
    shim.write_text('#!/bin/sh\nexec "$(cat .tool-path)" "$@"\n')
    shim.chmod(0o755)


def test_a_shim_runs_what_the_workspace_names_so_its_version_is_not_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    workspace, shims = tmp_path / "ws", tmp_path / "shims"
    workspace.mkdir()
    _shim(shims, "node")
    evil = workspace / "evil"
    evil.write_text(f"#!/bin/sh\ntouch {workspace}/ran\n")
    evil.chmod(0o755)
    (workspace / ".tool-path").write_text(str(evil))
    path = f"{shims}:/usr/bin:/bin"
    subprocess.run(["node", "--version"], cwd=workspace, env={**os.environ, "PATH": path},
                   check=False, capture_output=True)  # fmt: skip
    assert (workspace / "ran").exists()  # the workspace chose what ran
    monkeypatch.setenv("PATH", path)
    verdict = ShellPolicy(PathPolicy(str(workspace))).classify("node --version")
    assert verdict.decision != "allow", verdict.reasons


def test_the_systems_own_program_reports_its_version_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    links = tmp_path / "bin"
    links.mkdir()
    (links / "python3").symlink_to("/usr/bin/python3")  # a link to the system's is the system's
    monkeypatch.setenv("PATH", f"{links}:/usr/bin:/bin")
    policy = ShellPolicy(PathPolicy(str(tmp_path)))
    assert policy.classify("python3 --version").decision == "allow"
    assert policy.classify("python3 -V").decision == "allow"
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert policy.classify("python3 --version").decision != "allow"  # not found: not proved
