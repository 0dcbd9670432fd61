"""The interactive terminal attached to a durable run (``/runs RUN``), in a real terminal (tmux):
it lists the runs with the engine and database, follows a run a worker carries on, shows the
engine and database on the status line, asks the call the run waits on with the terminal's own
approval card, and sends the answer bound to its digest; Esc detaches and the run keeps waiting."""

from __future__ import annotations

from pathlib import Path

from tests.cli.support import MODEL, TETHER
from tests.cli.tmux import TmuxPane

from .support import Worker, scene, submit, wait_for_runs
from .test_approvals import wait_for_pending


def shows(text: str, *parts: str) -> bool:
    """Every part is in ``text``, wherever the terminal wrapped it."""
    flat = "".join(text.split())
    return all("".join(part.split()) in flat for part in parts)


async def test_the_terminal_attaches_to_a_run_and_answers_its_approval(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        run_id = await submit("run a: 1 steps", "q", s.env, s.work)
        worker = await Worker("q", s.env, s.work).start()
        pane = TmuxPane(width=160, height=40)
        try:
            await wait_for_pending(run_id, s.env, s.work)
            pane.start([TETHER, "--model", MODEL, "--no-sandbox"], cwd=str(s.work), env=s.env)
            await pane.wait_for("ctx 0%")
            pane.type("/runs")
            pane.send("Enter")
            listing = await pane.wait_for("Attach with /runs RUN")
            assert shows(listing, "engine: DBOS Transact", "database: SQLite")
            assert shows(listing, run_id, "waits for a person: bash")

            pane.type(f"/runs {run_id}")
            pane.send("Enter")
            asking = await pane.wait_for("y allow once")
            assert shows(asking, f"Run {run_id} waits for approval", "start a:0", "expires in 23 h")
            await pane.wait_for("> run a: 1 steps", timeout=5)  # the run's messages so far
            status = pane.screen().rstrip().splitlines()[-1]  # the status line
            assert shows(
                status, f"run {run_id} pending, waits for you", "DBOS · SQLite durable.sqlite"
            )

            pane.send("Escape")  # detach: the run keeps waiting for an answer
            await pane.wait_for(f"Detached from run {run_id}; it goes on")
            assert "waiting for approval" in await wait_for_pending(run_id, s.env, s.work)
            assert s.model.side_effects() == []

            pane.type(f"/runs {run_id}")
            pane.send("Enter")
            await pane.wait_for(lambda screen: screen.count(f"Attached to run {run_id}") == 2)
            await pane.wait_for("y allow once")  # the new card, armed (the first one is gone)
            pane.type("y")
            done = await pane.wait_for(f"Run {run_id} ended: success.")
            assert shows(done, f"allowed once — sent to run {run_id}")
            assert shows(done, "done a reply-")  # the run's last answer, followed live
            statuses = await wait_for_runs([run_id], s.env, s.work)
        finally:
            pane.close()
            await worker.stop()
    assert statuses == {run_id: "SUCCESS"}
    assert s.model.side_effects() == ["start a:0", "end a:0"]  # ran once
