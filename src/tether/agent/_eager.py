"""Run a coroutine eagerly: step it synchronously, and only make a task if it has to wait.

Most tool calls finish without ever suspending (validation, a dict lookup, a computed result).
Creating an asyncio task for each costs more than the call itself, so a batch starts each call's
coroutine in place and hands it to a task only at its first real suspension — the same idea as
Python 3.12's eager task factory, available on every supported version and for one batch only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["start_eagerly"]

T = TypeVar("T")


def start_eagerly(coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T] | None:
    """Step ``coroutine`` until it first suspends.

    Returns ``None`` when it finished on the spot, otherwise a task that carries on from where it
    suspended. Exceptions raised before the first suspension propagate to the caller.
    """
    try:
        first_yield = coroutine.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_carry_on(coroutine, first_yield))


async def _carry_on(coroutine: Coroutine[Any, Any, T], first_yield: Any) -> T:
    result: T = await _Resumption(coroutine, first_yield)
    return result


class _Resumption:
    """An awaitable that re-yields the suspension the coroutine already made, then drives it."""

    __slots__ = ("coroutine", "first_yield")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], first_yield: Any) -> None:
        self.coroutine = coroutine
        self.first_yield = first_yield

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine = self.coroutine
        pending = self.first_yield
        while True:
            try:
                sent = yield pending
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # cancellation and throw() go to the coroutine
                try:
                    pending = coroutine.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    pending = coroutine.send(sent)
                except StopIteration as stop:
                    return stop.value
