"""Telling the model about background tasks that ended without it looking, once each.

A task that ends while the model is mid-turn is steered into the run (delivered at the start of
the model's next turn, after the current tool batch); one that ends while no run is active waits
for the next prompt and goes in before it. An announcement the run never delivered (it ended
first) is kept for the next prompt, so none is lost and none is told twice. A task the model
itself cancelled, or whose end ``task_output`` already showed it, is not announced.
"""

from __future__ import annotations

from tether.agent import Agent
from tether.ai import UserMessage
from tether.tools import TaskEvent, task_end_announcement

__all__ = ["TaskAnnouncer"]


class TaskAnnouncer:
    """Subscribe :meth:`on_event` to the tasks; call :meth:`before_prompt` and
    :meth:`after_run` around every run of ``agent``."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._pending: list[UserMessage] = []
        self._steered: list[UserMessage] = []

    def on_event(self, event: TaskEvent) -> None:
        task = event.task
        if event.type != "task_end" or task.seen_end:
            return
        task.seen_end = True
        message = UserMessage(task_end_announcement(task))
        if self.agent.state.is_running:
            self.agent.steer(message)
            self._steered.append(message)
        else:
            self._pending.append(message)

    def before_prompt(self) -> None:
        for message in self._pending:
            self.agent.steer(message)
            self._steered.append(message)
        self._pending.clear()

    def after_run(self) -> None:
        delivered = {id(message) for message in self.agent.state.messages}
        self._pending.extend(m for m in self._steered if id(m) not in delivered)
        self._steered.clear()
