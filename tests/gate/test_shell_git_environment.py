"""git's environment names where it writes: ``GIT_WORK_TREE=/root git checkout .`` writes the
home as ``git --work-tree=/root checkout .`` does, and ``GIT_INDEX_FILE=~/.bashrc git add .``
writes its index (with the file names in it, one a line away from a command) into a startup
file. The variables were judged only as commands, so these were ``approve`` in every spelling
where the option is denied. Each spelling is run for real first, with a fake home: the write
happens there; then the same spelling must be denied."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_WORK_TREE = [
    "GIT_WORK_TREE={home} git checkout -- .", "export GIT_WORK_TREE={home}; git checkout -- .",
    "env GIT_WORK_TREE={home} git checkout -- .", "declare -x GIT_WORK_TREE={home}; git checkout .",
    "read GIT_WORK_TREE <<< {home}; export GIT_WORK_TREE; git checkout -- .",
    "printf -v GIT_WORK_TREE %s {home}; export GIT_WORK_TREE; git checkout -- .",
    "H={home}; GIT_WORK_TREE=$H git checkout -- .",
]  # fmt: skip
_INDEX = [
    "GIT_INDEX_FILE={home}/.bashrc git add .", "export GIT_INDEX_FILE={home}/.profile; git add .",
    "env GIT_INDEX_FILE={home}/.bashrc git add .",
]  # fmt: skip


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "home").mkdir()
    (workspace / ".bashrc").write_text("echo planted\n")
    for step in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                 "commit", "-qm", "x"]):  # fmt: skip
        subprocess.run(["git", *step], cwd=workspace, check=True, capture_output=True)
    return workspace


def _run(spelling: str, workspace: Path) -> None:
    subprocess.run(["bash", "-c", spelling], cwd=workspace, capture_output=True, check=False,
                   timeout=60)  # fmt: skip


def _decision(command: str, workspace: Path) -> str:
    home = str(workspace.parent / "home")
    return ShellPolicy(PathPolicy(str(workspace), home=home)).classify(command).decision


@pytest.mark.parametrize("spelling", _WORK_TREE)
def test_git_work_tree_in_the_environment_writes_there(repository: Path, spelling: str):
    home = repository.parent / "home"
    command = spelling.format(home=shlex.quote(str(home)))
    _run(command, repository)
    assert (home / ".bashrc").read_text() == "echo planted\n", command
    assert _decision(command, repository) == "deny", command
    assert _decision(spelling.format(home="~"), repository) == "deny", spelling


@pytest.mark.parametrize("spelling", _INDEX)
def test_git_index_file_in_the_environment_writes_there(repository: Path, spelling: str):
    home = repository.parent / "home"
    command = spelling.format(home=shlex.quote(str(home)))
    _run(command, repository)
    written = next(home.iterdir())
    assert written.read_bytes().startswith(b"DIRC"), command  # git's index, in a startup file
    assert _decision(command, repository) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["GIT_WORK_TREE=../other git log --oneline", "GIT_WORK_TREE=../other git status",
     "GIT_DIR=../other/.git GIT_WORK_TREE=../other git log", "GIT_WORK_TREE=/root git status"],
)  # fmt: skip
def test_a_work_tree_git_only_reads_is_read_as_the_option_is(repository: Path, command: str):
    """``GIT_WORK_TREE=DIR git status`` reads DIR, as ``git --work-tree=DIR status`` does: a
    person's call, not a write (the second review found it denied)."""
    assert _decision(command, repository) == "approve", command
    option = command.replace("GIT_WORK_TREE=", "git --work-tree=").replace(" git ", " ", 1)
    assert _decision(option, repository) == "approve", option


def test_an_index_git_status_refreshes_is_still_a_write(repository: Path):
    """``git status`` rewrites the index it refreshes, wherever ``GIT_INDEX_FILE`` puts it."""
    index = repository.parent / "home" / "index"
    shutil.copy(repository / ".git" / "index", index)
    before = index.stat().st_mtime_ns
    time.sleep(1.1)  # past the index's timestamp granularity
    (repository / ".bashrc").touch()  # a changed stat: status refreshes the entry
    run = f"GIT_INDEX_FILE={index} git status"
    subprocess.run(["bash", "-c", run], cwd=repository, capture_output=True, check=False)
    assert index.stat().st_mtime_ns != before, "git status did not rewrite the index"
    assert _decision("GIT_INDEX_FILE=~/.bashrc git status", repository) == "deny"


@pytest.mark.parametrize(
    "command",
    ["GIT_WORK_TREE=. git status", "GIT_WORK_TREE=sub git checkout -- .",
     "GIT_INDEX_FILE=.git/other-index git add .", "GIT_WORK_TREE=$(pwd) git status",
     "export GIT_INDEX_FILE=.git/i; git add ."],
)  # fmt: skip
def test_git_places_in_the_workspace_stay_a_persons_call(repository: Path, command: str):
    assert _decision(command, repository) == "approve", command
