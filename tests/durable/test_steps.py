""":class:`tether.durable.DurableRun` in a process killed inside a tool: after recovery a call
of an idempotent tool runs again; any other call is answered ``interrupted``, never re-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tether.session import INTERRUPTED_CALL

ROOT = Path(__file__).resolve().parents[2]


def crash_run(tmp_path: Path, crash: str) -> tuple[list[dict[str, Any]], list[str]]:
    db, log = tmp_path / "runs.sqlite", tmp_path / "tools.log"
    command = [sys.executable, "-m", "tests.durable.crash_program", str(db), str(log), crash]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    first = subprocess.run(command, check=False, env=env, cwd=ROOT, capture_output=True, timeout=60)
    assert first.returncode == -9, first.stderr  # killed inside the tool
    second = subprocess.run(
        command, check=False, env=env, cwd=ROOT, capture_output=True, timeout=60
    )
    assert second.returncode == 0, second.stderr
    results = [json.loads(line) for line in second.stdout.decode().splitlines()]
    return results, log.read_text().split()


def test_an_idempotent_call_cut_off_runs_again(tmp_path: Path) -> None:
    results, ran = crash_run(tmp_path, "look")
    assert ran == ["look", "look", "poke"]
    assert results == [
        {"name": "look", "text": "look ran", "is_error": False},
        {"name": "poke", "text": "poke ran", "is_error": False},
    ]


def test_any_other_call_cut_off_is_interrupted_and_not_run_again(tmp_path: Path) -> None:
    results, ran = crash_run(tmp_path, "poke")
    assert ran == ["look", "poke"]
    assert results == [
        {"name": "look", "text": "look ran", "is_error": False},
        {"name": "poke", "text": INTERRUPTED_CALL, "is_error": True},
    ]
