"""A variable whose value some program runs, or reads as its options, is judged however it gets
its value: ``X='rm -rf ~'; GIT_SSH_COMMAND=$X git fetch``, ``export GIT_SSH_COMMAND=$X``,
``read GIT_SSH_COMMAND <<< '...'``, ``printf -v``, a function bash imports from the environment
(``env 'BASH_FUNC_echo%%=() { ...; }' bash -c echo``), and the options tar and unzip take from
``TAR_OPTIONS`` and ``UNZIP``. Each was ``approve`` (unasked in yolo mode) where the literal
``GIT_SSH_COMMAND='rm -rf ~' git fetch`` or ``tar -xf x.tar -C ~`` is denied. Each spelling runs
for real here with a harmless payload, then is judged with the harmful one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_GIT = "git ls-remote ssh://example.invalid/x >/dev/null 2>&1"
_RUNS = [
    f"X='{{cmd}}'; GIT_SSH_COMMAND=$X {_GIT}",
    f"X='{{cmd}}'; export GIT_SSH_COMMAND=$X; {_GIT}",
    f"X='{{cmd}}'; GIT_SSH_COMMAND=$X; export GIT_SSH_COMMAND; {_GIT}",
    f"read -r GIT_SSH_COMMAND <<< '{{cmd}}'; export GIT_SSH_COMMAND; {_GIT}",
    f"printf -v GIT_SSH_COMMAND '{{cmd}}'; export GIT_SSH_COMMAND; {_GIT}",
    f"X='{{cmd}}'; env GIT_SSH_COMMAND=\"$X\" {_GIT}",
    "env 'BASH_FUNC_echo%%=() {{ {cmd}; }}' bash -c 'echo hi'",
    "TAR_OPTIONS=\"--to-command='{cmd}'\" tar -xf a.tar",
    "env TAR_OPTIONS=\"--to-command='{cmd}'\" tar -xf a.tar",
]  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("x\n")
    subprocess.run(["tar", "-cf", "a.tar", "src"], cwd=tmp_path, check=True)
    if shutil.which("zip"):
        subprocess.run(["zip", "-qr", "a.zip", "src"], cwd=tmp_path, check=True)
    (tmp_path / "out").mkdir()
    return tmp_path


def _run(workspace: Path, script: str) -> None:
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(workspace), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-c", script], cwd=workspace, env=environment, capture_output=True,
                   stdin=subprocess.DEVNULL, check=False, timeout=60)  # fmt: skip


@pytest.mark.parametrize("spelling", _RUNS)
def test_a_value_some_program_runs_is_judged_however_it_is_set(workspace: Path, spelling: str):
    _run(workspace, spelling.format(cmd=f"touch {workspace}/ran"))
    assert (workspace / "ran").exists(), f"{spelling} runs its value"
    policy = ShellPolicy(PathPolicy(str(workspace), home="/root"))
    command = spelling.format(cmd="rm -rf /root")
    verdict = policy.classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)


_OPTIONS = [
    ("TAR_OPTIONS='-C {dir}' tar -xf a.tar", "tar"),
    ("export TAR_OPTIONS='-C {dir}'; tar -xf a.tar", "tar"),
    ("env TAR_OPTIONS='--directory={dir}' tar -xf a.tar", "tar"),
    ("UNZIP='-d {dir}' unzip -q a.zip", "unzip"),
    ("export UNZIPOPT='-d {dir}'; unzip -q a.zip", "unzip"),
]


@pytest.mark.parametrize(("spelling", "program"), _OPTIONS)
def test_options_a_program_reads_from_the_environment_are_judged(
    workspace: Path, spelling: str, program: str
):
    if shutil.which(program) is None or not (workspace / "a.zip").exists():
        pytest.skip(f"needs {program} and zip")
    _run(workspace, spelling.format(dir="out"))
    assert (workspace / "out" / "src" / "f").exists(), f"{spelling} extracts into out"
    policy = ShellPolicy(PathPolicy(str(workspace), home="/root"))
    command = spelling.format(dir="/root")
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize(
    "command",
    ["export PATH=$PATH:/opt/bin", "X=1; export X", "read -r line < notes.txt",
     "printf -v stamp %s 1", "GIT_SSH_COMMAND='ssh -i deploy_key' git fetch",
     "export TAR_OPTIONS=--no-same-owner"],
)  # fmt: skip
def test_ordinary_values_are_not_denied(command: str):
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert policy.classify(command).decision != "deny", command
