"""Background tasks in the interactive terminal (tmux): the status line counts running tasks,
``/tasks`` lists them with their last lines, ``/tasks kill ID`` stops one."""

from __future__ import annotations

import psutil

from .support import text_reply, tool_reply
from .test_interactive import launch, project, send

__all__ = ["launch", "project"]  # the fixtures, shared with the other terminal tests

FOLLOW = "tail -f -n +1 ticks.log"


async def test_the_status_line_counts_running_tasks_and_tasks_lists_and_kills_them(
    launch, project
) -> None:
    (project / "ticks.log").write_text("first-line\nsecond-line\n")
    replies = [
        tool_reply(("c1", "bash", {"command": FOLLOW, "background": True})),
        text_reply("Following the log."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "follow the log")
        await pane.wait_for("Following the log.")
        await pane.wait_for("1 task running (/tasks)")  # the status line redraws after the reply
        await send(pane, "/tasks")
        listed = await pane.wait_for("/tasks kill ID stops one")
        assert "#1 running" in listed and "second-line" in listed
        followers = [
            p for p in psutil.process_iter(["cmdline"]) if "ticks.log" in (p.info["cmdline"] or [])
        ]
        assert followers
        await send(pane, "/tasks kill 1")
        await pane.wait_for("Task 1 killed, with every process it started.")
        await pane.wait_for(lambda screen: "task running" not in screen, whole=False)
        for process in followers:
            psutil.wait_procs([process], timeout=10)
            assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
        await send(pane, "/tasks kill 1")
        await pane.wait_for("Task 1 had already ended.")
