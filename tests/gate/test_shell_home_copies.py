"""A copy or search of the home directory is denied however the home is spelled. ``tar -czf
o.tgz ~`` was denied while ``tar -czf o.tgz /root`` (the same directory by its path) was
``approve``, which runs unasked in yolo mode, because a cheap test of the words let only ``~``,
``.`` and ``..`` through to the rule; a directory that holds the home (``/``, its parent) was
not seen as holding its secrets at all. Each spelling is run for real here, to show it does
copy the key, then judged."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_SPELLINGS = ["{home}", "{home}/", "~", "~/", "../home/alice", "../home/alice/.", "{home}/..",
              "../home"]  # fmt: skip
_COPIES = {
    "tar": ("tar -czf out.tgz {spelling}", "tar -tzf out.tgz"),
    "zip": ("zip -qr out.zip {spelling}", "unzip -l out.zip"),
    "cp": ("cp -r {spelling} out", "find out"),
    "rsync": ("rsync -a {spelling} out", "find out"),
}


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home" / "alice"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return home, workspace


@pytest.mark.parametrize("spelling", _SPELLINGS)
@pytest.mark.parametrize("program", sorted(_COPIES))
def test_every_spelling_of_the_home_copies_its_keys_and_is_denied(
    tmp_path: Path, program: str, spelling: str
):
    if shutil.which(program) is None or shutil.which("unzip") is None:
        pytest.skip(f"needs {program} and unzip")
    home, workspace = _home(tmp_path)
    copy, listing = _COPIES[program]
    command = copy.format(spelling=spelling.format(home=home))
    environment = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", command], cwd=workspace, env=environment, capture_output=True,
                   check=False, timeout=30)  # fmt: skip
    listed = subprocess.run(shlex.split(listing), cwd=workspace, capture_output=True, text=True,
                            check=False, timeout=30)  # fmt: skip
    assert "id_rsa" in listed.stdout, f"{command} copies the key"

    policy = ShellPolicy(PathPolicy(str(workspace), home=str(home)))
    verdict = policy.classify(f"cd {shlex.quote(str(workspace))} && {command}")
    assert verdict.decision == "deny", (command, verdict.reasons)
    assert any("holding secrets" in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(
    "command",
    ["tar -czf o.tgz /", "tar -czf o.tgz -C / root", "cp -r / o", "grep -r PRIVATE /",
     "rg PRIVATE /", "grep -r PRIVATE /root/..", "zip -r o.zip /root/"],
)  # fmt: skip
def test_a_directory_that_holds_the_home_is_denied_too(command: str):
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize(
    "command",
    ["tar -czf o.tgz src", "cp -r src out", "rsync -a src/ out/", "zip -qr o.zip .",
     "grep -r TODO .", "tar -czf o.tgz -C /tmp/ws src", "cp -r /tmp/ws/src /tmp/ws/out"],
)  # fmt: skip
def test_copies_inside_the_workspace_are_not_denied(command: str):
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert policy.classify(f"cd /tmp/ws && {command}").decision != "deny", command
