"""An allowed git command runs as proved plus the options and environment that switch off the
state the model can write: real git, in a real repository, through the regenerated script."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

if __package__:
    from .git_repos import git, new_repo
else:
    from git_repos import git, new_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one commit and a change, and a global config that would show."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(name, raising=False)
    (home / ".gitconfig").write_text("[format]\n\tpretty = tformat:GLOBAL-CONFIG-%h\n")
    path = new_repo(tmp_path / "repo")
    (path / "README.md").write_text("changed\n")
    return path


def run_allowed(command: str, workspace: Path) -> subprocess.CompletedProcess[str]:
    verdict = ShellPolicy(PathPolicy(str(workspace))).classify(command)
    assert verdict.decision == "allow", verdict
    assert verdict.prepared is not None
    return subprocess.run(
        ["bash", "-c", verdict.prepared["command"]],
        cwd=workspace, capture_output=True, text=True, check=False, env=dict(os.environ),
    )  # fmt: skip


def test_the_regenerated_script_spells_the_neutral_options(repo: Path) -> None:
    verdict = ShellPolicy(PathPolicy(str(repo))).classify("git log --oneline | wc -l")
    assert verdict.prepared is not None
    script = verdict.prepared["command"]
    assert script.startswith(
        "GIT_CONFIG_NOSYSTEM='1' GIT_CONFIG_GLOBAL='/dev/null' "
        f"GIT_CEILING_DIRECTORIES='{repo.parent}' 'git' '-c' 'core.fsmonitor=' "
        "'-c' 'core.hooksPath=/dev/null' '-c' 'diff.external=' '-c' 'core.pager=cat' "
        "'-c' 'gpg.program=false' '-c' 'safe.bareRepository=explicit' "
        "'-c' 'submodule.recurse=false' '-c' 'diff.submodule=short' 'log' '--oneline' | "
    )
    assert script.endswith("| 'wc' '-l'")


def test_global_configuration_is_not_read(repo: Path) -> None:
    assert (
        "GLOBAL-CONFIG"
        in subprocess.run(
            ["git", "log"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout
    )  # the global file is really there
    shown = run_allowed("git log", repo)
    assert shown.returncode == 0 and "readme" in shown.stdout
    assert "GLOBAL-CONFIG" not in shown.stdout


def test_programs_the_repository_config_names_do_not_run(repo: Path) -> None:
    marker = repo.parent / "ran"
    hook = repo.parent / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    hook.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "diff.external", "gpg.program"):
        git(repo, "config", key, str(hook))
    git(repo, "config", "log.showSignature", "true")
    for command in ("git status", "git diff", "git log -n 1", "git show --stat"):
        run_allowed(command, repo)
        assert not marker.exists(), command


def test_git_does_not_find_a_repository_above_the_workspace(repo: Path) -> None:
    inner = repo / "sub"
    inner.mkdir()
    (inner / "b.txt").write_text("b\n")
    outside_view = run_allowed("git log", inner)
    assert outside_view.returncode != 0 and "readme" not in outside_view.stdout
    assert "not a git repository" in outside_view.stderr
