"""``AgentEventStream``: the events of one run as an async iterator, and its result."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from ._types import AgentEvent, AgentMessage

__all__ = ["AgentEventStream"]

Emit = Callable[[AgentEvent], None]


class AgentEventStream:
    """Runs ``producer(emit)`` as a task (started by the first ``__anext__`` or ``result()``).

    Events are buffered, so a slow consumer never loses one, and the run waits for its consumer
    only where it asks to (:meth:`caught_up`: before a tool runs, before the queues are read).
    ``await result()`` returns the run's new messages (and re-raises if the run itself
    failed, which the loop's own error handling makes a bug, not a normal outcome).
    """

    __slots__ = ("_buffer", "_caught_up", "_producer", "_task", "_waiter")

    def __init__(self, producer: Callable[[Emit], Coroutine[Any, Any, list[AgentMessage]]]) -> None:
        self._producer = producer
        self._buffer: deque[AgentEvent] = deque()
        self._task: asyncio.Task[list[AgentMessage]] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._caught_up: list[asyncio.Future[None]] = []

    def __aiter__(self) -> AgentEventStream:
        return self

    async def __anext__(self) -> AgentEvent:
        buffer = self._buffer
        if buffer:
            return buffer.popleft()
        task = self._start()
        while not buffer:
            if task.done():
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
                raise StopAsyncIteration
            self._release_caught_up()
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return buffer.popleft()

    async def caught_up(self) -> None:
        """Return once the consumer has taken every event emitted so far and asked for the next.

        A producer-side caller (e.g. a queue poll) uses this to let the consumer's handling of
        earlier events (listeners) finish first. Only meaningful while someone iterates.
        """
        if not self._buffer and self._waiter is not None:
            return
        future = asyncio.get_running_loop().create_future()
        self._caught_up.append(future)
        await future

    def _release_caught_up(self) -> None:
        waiting, self._caught_up = self._caught_up, []
        for future in waiting:
            if not future.done():
                future.set_result(None)

    async def result(self) -> list[AgentMessage]:
        """The messages the run added (prompts, assistant messages, tool results)."""
        return await self._start()

    def _start(self) -> asyncio.Task[list[AgentMessage]]:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._producer(self._push))
            self._task.add_done_callback(self._wake)
        return self._task

    def _push(self, event: AgentEvent) -> None:
        self._buffer.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake(self, _: Any) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
