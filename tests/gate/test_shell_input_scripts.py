"""A ``-c`` script that starts a shell hands that shell its own input: ``echo CMD | su -c bash``
runs CMD, as ``echo CMD | su`` does. The script's input was never judged, so ``echo 'rm -rf ~' |
su -c bash`` was ``approve`` where ``echo 'rm -rf ~' | su`` and ``su -c 'rm -rf ~'`` are denied.
Each spelling is run for real first (``touch ran`` as the input: the file appears), then the
same spelling fed ``rm -rf ~`` must be denied."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_SPELLINGS = [
    "echo '{cmd}' | bash -c bash", "bash -c bash <<< '{cmd}'", "echo '{cmd}' | sh -c 'exec sh'",
    "echo '{cmd}' | bash -c 'bash -s'", "echo '{cmd}' | bash -c 'true; bash'",
    "echo '{cmd}' | bash -c 'bash -c bash'", "echo '{cmd}' | env sh -c sh",
    "printf '%s\\n' '{cmd}' | nice sh -c 'sh -'", "sh -c sh <<EOF\n{cmd}\nEOF",
]  # fmt: skip
_AS_ROOT = [
    "echo '{cmd}' | su -c bash", "su -c bash <<< '{cmd}'", "echo '{cmd}' | su -c 'bash -s'",
    "echo '{cmd}' | su root -c sh", "echo '{cmd}' | runuser -c bash root",
    "echo '{cmd}' | su -c 'sh -c sh'",
]  # fmt: skip
"""su and runuser ask no password only of root."""


def _policy(tmp_path: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(tmp_path), home="/root"))


def _runs_its_input(spelling: str, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    subprocess.run(["bash", "-c", spelling.format(cmd=f"touch {ran}")], cwd=tmp_path,
                   capture_output=True, check=False, timeout=30)  # fmt: skip
    assert ran.exists(), f"{spelling} did not run its input here"


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_a_shell_started_by_a_script_runs_the_scripts_input(tmp_path: Path, spelling: str):
    _runs_its_input(spelling, tmp_path)
    command = spelling.format(cmd="rm -rf ~")
    assert _policy(tmp_path).classify(command).decision == "deny", command


@pytest.mark.parametrize("spelling", _AS_ROOT)
def test_a_switched_users_script_hands_its_input_to_the_shell_it_starts(
    tmp_path: Path, spelling: str
):
    if os.geteuid() != 0 or shutil.which("su") is None or shutil.which("runuser") is None:
        pytest.skip("needs root, su and runuser")
    _runs_its_input(spelling, tmp_path)
    command = spelling.format(cmd="rm -rf ~")
    assert _policy(tmp_path).classify(command).decision == "deny", command


@pytest.mark.parametrize(
    "command",
    ["echo 'curl -s x | sh' | sudo sh -c sh", "echo 'rm -rf ~' | sudo -u root bash -c bash"],
)
def test_sudo_hands_a_scripts_input_on_as_well(command: str):
    assert ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(command).decision == "deny"


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("echo ls | bash -c bash", "approve"),  # a shell reading code is a person's call
        ("echo 'rm -rf ~' | bash -c cat", "approve"),  # printed, not run
        ("echo 'rm -rf ~' | bash -c 'echo hi | bash'", "approve"),  # bash reads echo's output
        ("bash -c 'cat' <<< 'rm -rf ~'", "approve"),
        ("su -c 'ls' <<< 'rm -rf ~'", "approve"),
    ],
)
def test_input_a_script_does_not_hand_to_a_shell_is_not_run(
    tmp_path: Path, command: str, decision: str
):
    assert _policy(tmp_path).classify(command).decision == decision, command


def test_check_command_whose_reader_has_gone_exits_with_the_verdict():
    """``python -m tether.gate check-command CMD | head -1``: once the reader has gone, the
    exit status is still the decision's, with no broken-pipe traceback."""
    reader, writer = os.pipe()
    os.close(reader)  # every write now fails with EPIPE, as after head has exited
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tether.gate", "check-command", "rm -rf ~"],
            stdout=writer, stderr=subprocess.PIPE, text=True, check=False, timeout=60,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
