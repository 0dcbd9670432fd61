"""``tether check-command`` (the real executable) says, for an allowed command, whether it would
run in the read-only jail or on the proof alone — bubblewrap missing from PATH, as it is on a
machine without it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .support import TETHER, run_tether


async def test_an_allowed_command_names_the_jail(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    done = await run_tether("check-command", "ls", home=tmp_path / "home", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "guard: runs in the read-only jail (bubblewrap): nothing writable, no network"
    )


async def test_without_bubblewrap_the_proof_alone_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("bash", "sh", "git"):  # everything but bwrap
        found = shutil.which(program)
        if found:
            os.symlink(found, bin_dir / program)
    monkeypatch.setenv("PATH", f"{Path(TETHER).parent}:{bin_dir}")
    home = tmp_path / "home"
    allowed = await run_tether("check-command", "ls", home=home, cwd=tmp_path)
    assert allowed.code == 0, allowed.stderr
    assert allowed.stdout.splitlines()[-1] == (
        "guard: no read-only jail (bubblewrap is not available): the proof alone decides"
    )
    approved = await run_tether("check-command", "rm -rf build", home=home, cwd=tmp_path)
    assert approved.code == 1 and "guard:" not in approved.stdout
