"""The programs tar runs (``-I``, ``--to-command``, ``--checkpoint-action=exec=``...), read as
GNU tar reads its options: checked against the real tar, spelling by spelling. ``tar -xI CMD
-f a.tar`` (a cluster) and ``tar xIf CMD a.tar`` (the old style) once ran CMD unjudged where
``tar -I CMD -xf a.tar`` is denied."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._wrappers import unwrap

_PROGRAM = "sh -c 'touch marker; cat'"
_SPELLINGS = [
    "-x -I PROG -f a.tar", "-xI PROG -f a.tar", "-xvI PROG -f a.tar", "xIf PROG a.tar",
    "xfI a.tar PROG", "-x -IPROG -f a.tar", "-xf a.tar -I PROG",
    "-x --use-compress-program=PROG -f a.tar",
    "-x --use-compress-program PROG -f a.tar", "-x --use=PROG -f a.tar", "-x --use PROG -f a.tar",
    "-xf a.tar --to-command=CMD", "-xf a.tar --to-c=CMD", "-xf a.tar --to-c CMD",
    "xf a.tar --to-c CMD",
    "-x --checkpoint=1 --checkpoint-action=exec=CMD -f a.tar",
    "-x --checkpoint=1 --checkpoint-act=exec=CMD -f a.tar",
    "-x --checkpoint=1 --checkpoint-act exec=CMD -f a.tar",
]  # fmt: skip


def _argv(spelling: str) -> list[str]:
    words = shlex.split(spelling)
    return [w.replace("PROG", _PROGRAM).replace("CMD", "touch marker") for w in words]


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_every_program_the_real_tar_runs_is_judged(tmp_path: Path, spelling: str):
    tar = shutil.which("tar")
    if tar is None or "GNU" not in subprocess.run([tar, "--version"], capture_output=True,
                                                  text=True, check=False).stdout:  # fmt: skip
        pytest.skip("needs GNU tar")
    (tmp_path / "f.txt").write_text("x\n")
    subprocess.run([tar, "-cf", "a.tar", "f.txt"], cwd=tmp_path, check=True)
    argv = _argv(spelling)
    subprocess.run([tar, *argv], cwd=tmp_path, capture_output=True, check=False, timeout=20)
    assert (tmp_path / "marker").exists(), f"tar {argv} runs the program"
    scripts = unwrap("tar", tuple(argv))
    assert scripts is not None
    assert any("touch marker" in script for script in scripts.scripts), (argv, scripts)
    dangerous = shlex.join(argv).replace("touch marker", "rm -rf /")
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(f"tar {dangerous}").decision == "deny", dangerous


@pytest.mark.parametrize(
    "command",
    [
        "tar -czf out.tgz --exclude .env src",
        "tar --exclude=.env -czf out.tgz src",
        "tar -czf out.tgz --exclude='*.env' src",
    ],
)
def test_a_secret_left_out_of_the_archive_is_not_read(tmp_path: Path, command: str):
    """``--exclude .env`` names a pattern tar leaves out, not a file it reads: the everyday
    way to archive a project without its secrets is not a secret read (it was denied)."""
    if shutil.which("tar") is None:
        pytest.skip("needs tar")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ".env").write_text("TOKEN=x\n")
    (tmp_path / "src" / "a.txt").write_text("a\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, timeout=30)
    listed = subprocess.run(["tar", "-tzf", "out.tgz"], cwd=tmp_path, capture_output=True,
                            text=True, check=True).stdout  # fmt: skip
    assert ".env" not in listed and "a.txt" in listed
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(command).decision != "deny", command
    assert policy.classify("tar -czf out.tgz src/.env").decision == "deny"
    assert policy.classify("tar -czf out.tgz --exclude src/.env src/.env").decision == "deny"
