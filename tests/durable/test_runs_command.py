"""``tether runs``: what it shows (engine, database, the record), cancel, and the refusals to
recover a run under another catalog of tools or from steps of another shape."""

from __future__ import annotations

import asyncio
import base64
import os
import pickle
import sqlite3
from pathlib import Path

from .support import Worker, finish_with_a_fresh_worker, scene, submit, tether, wait_for_runs
from .test_approvals import wait_for_pending


def running_commands(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in command:
            found.append(command)
    return found


async def test_cancel_ends_the_run_and_kills_its_tool_processes(tmp_path: Path) -> None:
    async with scene(tmp_path, pause=41.5) as s:
        env, work, model = s.env, s.work, s.model
        run_id = await submit("run c: 2 steps", "q", env, work, "--gate", "yolo")
        worker = await Worker("q", env, work).start()
        try:
            while not model.side_effects():
                await asyncio.sleep(0.05)
            assert running_commands("sleep 41.5")
            assert (
                await tether("runs", "cancel", run_id, env=env, cwd=work) == f"cancelled {run_id}\n"
            )
            statuses = await wait_for_runs([run_id], env, work)
            for _ in range(100):
                if not running_commands("sleep 41.5"):
                    break
                await asyncio.sleep(0.1)
            assert not running_commands("sleep 41.5")
        finally:
            await worker.stop()
    assert statuses[run_id] == "CANCELLED"
    assert model.side_effects() == ["start c:0"]


async def test_runs_show_the_engine_and_a_record_and_refuse_another_catalog(
    tmp_path: Path,
) -> None:
    async with scene(tmp_path) as s:
        env, work, model, home = s.env, s.work, s.model, s.home
        run_id = await submit("run k: 1 steps", "q", env, work)
        listing = await tether("runs", "list", env=env, cwd=work)
        database = home / "durable.sqlite"
        assert listing.splitlines()[0].startswith("engine: DBOS Transact 3.")
        assert f"database: SQLite {database}" in listing.splitlines()[0]
        assert f"{run_id}  ENQUEUED" in listing
        worker = await Worker("q", env, work).start()
        shown = await wait_for_pending(run_id, env, work)
        await worker.stop()
        assert "tether: 0.1.0" in shown
        assert "catalog: " in shown
        assert "engine: DBOS Transact" in shown

        skill = home / "skills" / "notes"  # a user skill adds tools: another catalog
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            "---\nname: notes\ndescription: Take notes.\n---\nWrite notes.\n", encoding="utf-8"
        )
        statuses = await finish_with_a_fresh_worker([run_id], "q", env, work)
        shown = await tether("runs", "show", run_id, env=env, cwd=work)
    assert statuses[run_id] == "ERROR"
    assert "the model chose its calls among other tools" in shown
    assert model.side_effects() == []
    logs = await tether("runs", "logs", run_id, env=env, cwd=work)
    assert "user: run k: 1 steps" in logs


def record_as_the_first_design(database: Path, run_id: str) -> None:
    """Rewrite a run's record as a tether of the first design wrote it: no ``steps_format``
    (its steps were ``tether.tool_decided``/``tether.tool_executed``)."""
    with sqlite3.connect(database) as connection:
        (output,) = connection.execute(
            "SELECT output FROM operation_outputs WHERE workflow_uuid = ? AND function_name = ?",
            (run_id, "tether.run_record"),
        ).fetchone()
        record = pickle.loads(base64.b64decode(output))
        del record["steps_format"]
        connection.execute(
            "UPDATE operation_outputs SET output = ? WHERE workflow_uuid = ? AND function_name = ?",
            (base64.b64encode(pickle.dumps(record)).decode(), run_id, "tether.run_record"),
        )


async def test_a_run_recorded_in_the_old_step_shape_is_refused_not_replayed(
    tmp_path: Path,
) -> None:
    async with scene(tmp_path) as s:
        env, work, model = s.env, s.work, s.model
        run_id = await submit("run o: 1 steps", "q", env, work)
        worker = await Worker("q", env, work).start()
        await wait_for_pending(run_id, env, work)  # one model turn on record, then it parks
        await worker.stop()
        record_as_the_first_design(s.home / "durable.sqlite", run_id)
        asked = len(model.asked)

        statuses = await finish_with_a_fresh_worker([run_id], "q", env, work)
        shown = await tether("runs", "show", run_id, env=env, cwd=work)
    assert statuses[run_id] == "ERROR"
    assert "steps of another shape (decided/executed)" in shown
    assert "Finish it with a worker of the tether that started it" in " ".join(shown.split())
    assert len(model.asked) == asked  # nothing was replayed: the model was not asked again
    assert model.side_effects() == []
