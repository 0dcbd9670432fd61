"""Telling the model about background tasks that ended without it looking, once each.

A task that ends while the model is mid-turn is announced at the start of the model's next
turn: steered in when the current turn's tool batch is done (the turn ends with tool results,
so the model goes on). One that ends during a final answer, or while no run is active, waits
for the next prompt and goes in before it. An announcement a run never delivered is kept for the
next prompt, so none is lost and none is told twice. A task whose end the model already saw —
its own ``task_cancel``, a ``task_output`` or the start result after the end — is not announced.
"""

from __future__ import annotations

from tether.agent import Agent, AgentEvent, TurnEnd
from tether.ai import UserMessage
from tether.tools import Task, TaskEvent, task_end_announcement

__all__ = ["TaskAnnouncer"]


class TaskAnnouncer:
    """Subscribe :meth:`on_task_event` to the tasks and :meth:`on_agent_event` to ``agent``;
    call :meth:`before_prompt` and :meth:`after_run` around every run."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._ended: list[Task] = []
        self._steered: list[tuple[Task, UserMessage]] = []

    def on_task_event(self, event: TaskEvent) -> None:
        if event.type == "task_end" and not event.task.seen_end:
            self._ended.append(event.task)

    def on_agent_event(self, event: AgentEvent) -> None:
        if isinstance(event, TurnEnd) and event.tool_results:
            self._steer_ended()

    def before_prompt(self) -> None:
        self._steer_ended()

    def after_run(self) -> None:
        delivered = {id(message) for message in self.agent.state.messages}
        for task, message in self._steered:
            if id(message) not in delivered:
                task.seen_end = False
                self._ended.append(task)
        self._steered.clear()

    def _steer_ended(self) -> None:
        for task in self._ended:
            if task.seen_end:
                continue
            task.seen_end = True
            message = UserMessage(task_end_announcement(task))
            self.agent.steer(message)
            self._steered.append((task, message))
        self._ended.clear()
