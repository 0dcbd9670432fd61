"""Abort while waiting on the wire: the signal cancels the read in flight, not the caller.

A provider awaits the network inside :meth:`AbortGuard.wait`. When the abort signal fires while
such an await is pending, the guard cancels the current task, takes the cancellation back and
raises :class:`Aborted` in its place, so the provider can close the connection at once and end
the message with stop reason ``aborted``. Between awaits (while the caller handles an event) the
guard is disarmed and never touches the caller's task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..._abort import AbortSignal

__all__ = ["AbortGuard", "Aborted"]

T = TypeVar("T")


class Aborted(Exception):
    """The abort signal fired while a provider waited on the wire (or before it started)."""


class AbortGuard:
    """Arms a cancellation of the current task around each await on the wire."""

    __slots__ = ("_armed", "_fired", "_loop", "_remove", "_signal", "_task")

    def __init__(self, signal: AbortSignal | None) -> None:
        self._signal = signal
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        self._armed = False
        self._fired = False
        self._remove = signal.add_listener(self._on_abort) if signal is not None else None

    @property
    def aborted(self) -> bool:
        return self._signal is not None and self._signal.aborted

    def check(self) -> None:
        """Raise :class:`Aborted` if the signal has fired."""
        if self.aborted:
            raise Aborted

    async def wait(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``; an abort meanwhile cancels it and raises :class:`Aborted`."""
        if self.aborted:
            _discard(awaitable)
            raise Aborted
        self._armed = True
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self._fired and self._task is not None:
                self._fired = False
                self._task.uncancel()
                raise Aborted from None
            raise
        finally:
            self._armed = False

    def close(self) -> None:
        """Stop listening to the signal."""
        if self._remove is not None:
            self._remove()
            self._remove = None

    def _on_abort(self, _reason: Any) -> None:
        self._loop.call_soon_threadsafe(self._cancel_if_armed)

    def _cancel_if_armed(self) -> None:
        if self._armed and not self._fired and self._task is not None:
            self._fired = True
            self._task.cancel()


def _discard(awaitable: Awaitable[Any]) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
