""":class:`tether.durable.DurableRun` in a process killed inside a tool: after recovery a call
of an idempotent tool runs again; any other call is answered ``interrupted``, never re-run —
whether the calls come one per turn or as one parallel batch whose decisions are written
together."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tether.session import INTERRUPTED_CALL

ROOT = Path(__file__).resolve().parents[2]
LOOK = {"name": "look", "text": "look ran", "is_error": False}
POKE = {"name": "poke", "text": "poke ran", "is_error": False}
POKE_INTERRUPTED = {"name": "poke", "text": INTERRUPTED_CALL, "is_error": True}


def crash_run(
    tmp_path: Path, crash: str, execution: str = "sequential"
) -> tuple[dict[str, Any], list[str]]:
    db, log = tmp_path / "runs.sqlite", tmp_path / "tools.log"
    command = [
        sys.executable,
        "-m",
        "tests.durable.crash_program",
        str(db),
        str(log),
        crash,
        execution,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    first = subprocess.run(command, check=False, env=env, cwd=ROOT, capture_output=True, timeout=60)
    if crash == "none":
        assert first.returncode == 0, first.stderr
        return json.loads(first.stdout), log.read_text().split()
    assert first.returncode == -9, first.stderr  # killed inside the tool
    second = subprocess.run(
        command, check=False, env=env, cwd=ROOT, capture_output=True, timeout=60
    )
    assert second.returncode == 0, second.stderr
    return json.loads(second.stdout), log.read_text().split()


def test_an_idempotent_call_cut_off_runs_again(tmp_path: Path) -> None:
    run, ran = crash_run(tmp_path, "look")
    assert ran == ["look", "look", "poke"]
    assert run["results"] == [LOOK, POKE]


def test_any_other_call_cut_off_is_interrupted_and_not_run_again(tmp_path: Path) -> None:
    run, ran = crash_run(tmp_path, "poke")
    assert ran == ["look", "poke"]
    assert run["results"] == [LOOK, POKE_INTERRUPTED]


def test_a_batch_writes_its_decisions_once_and_its_results_before_the_next_turn(
    tmp_path: Path,
) -> None:
    run, ran = crash_run(tmp_path, "none", "parallel")
    assert ran == ["look", "poke"]
    assert run["results"] == [LOOK, POKE]
    assert run["writes"] == 2  # both decisions before poke ran; poke's result before turn 2


def test_in_a_batch_the_idempotent_call_runs_again_and_the_other_is_interrupted(
    tmp_path: Path,
) -> None:
    run, ran = crash_run(tmp_path, "poke", "parallel")
    assert ran == ["look", "poke"]  # look's result was written with the batch's decisions
    assert run["results"] == [LOOK, POKE_INTERRUPTED]
