"""Expansions whose value is known before the script runs (``_shell/_known_values.py``):
``${HOME%/}``, ``${HOME/x/y}``, ``${X:-DIR}``, ``$(printf '%s' DIR)`` and ```echo DIR```. A red
team spelled the home and its keys this way, each ``approve`` where ``rm -rf ~`` and ``cat
~/.ssh/id_rsa`` are denied. Each spelling is shown to expand, in the real bash with a fake
home, to what the plain spelling does; then both must be denied."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision
else:
    from real_runs import decision

_SPELLINGS = [
    ("rm -rf ${{HOME%/}}", "rm -rf {home}"), ("rm -rf ${{HOME%%/}}", "rm -rf {home}"),
    ("rm -rf ${{HOME/nowhere/else}}", "rm -rf {home}"),
    ("rm -rf ${{HOME//nowhere}}", "rm -rf {home}"), ("rm -rf ${{HOME:0}}", "rm -rf {home}"),
    ("rm -rf $(printf '%s' {home})", "rm -rf {home}"), ("rm -rf `printf {home}`", "rm -rf {home}"),
    ("rm -rf $(echo {home})", "rm -rf {home}"), ('rm -rf "$(printf %s/ {home})"', "rm -rf {home}/"),
    ("cat ${{HOME%/}}/.ssh/id_rsa", "cat {home}/.ssh/id_rsa"),
    ("cat $(printf '%s/.ssh/id_%s' {home} rsa)", "cat {home}/.ssh/id_rsa"),
    ("ln ${{HOME%/}}/.ssh/id_rsa a.txt", "ln {home}/.ssh/id_rsa a.txt"),
    ("sh -c \"$(printf 'rm -rf %s' {home})\"", "sh -c 'rm -rf {home}'"),
]  # fmt: skip


def _echoed(command: str, home: Path) -> str:
    environment = {**os.environ, "HOME": str(home)}
    done = subprocess.run(["bash", "-c", f"printf '[%s]' {command}"], env=environment,
                          capture_output=True, text=True, check=True, timeout=30)  # fmt: skip
    return done.stdout


@pytest.mark.parametrize(("spelling", "plain"), _SPELLINGS)
def test_a_known_expansion_is_judged_as_what_it_expands_to(
    tmp_path: Path, spelling: str, plain: str
):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command, plain = spelling.format(home=home), plain.format(home=home)
    assert _echoed(command, home) == _echoed(plain, home), command
    assert decision(plain, workspace, home=str(home)) == "deny", plain
    assert decision(command, workspace, home=str(home)) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["rm -rf ${HOME#/}", "rm -rf $(echo build)", "cat $(echo README.md)", "echo $(date)",
     "rm -rf $(printf '%s' \"$X\")", "rm -rf ${HOME%/*}x", "ls $(ls)",
     "rm -rf ${SET_BY_THE_ENVIRONMENT:-build}"],
)  # fmt: skip
def test_an_expansion_not_known_or_harmless_stays_a_persons_call(tmp_path: Path, command: str):
    assert decision(command, tmp_path, home="/root") == "approve", command
