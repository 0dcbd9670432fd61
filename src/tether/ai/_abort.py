"""Cancellation as a value: an :class:`AbortController` owns an :class:`AbortSignal`.

A signal can be passed around, inspected (``aborted``, ``reason``), waited on (``await wait()``)
and listened to (``add_listener``). Aborting is idempotent: the first reason wins and every
listener runs exactly once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ._errors import TetherError

__all__ = ["AbortController", "AbortError", "AbortSignal", "first_to_finish"]

_log = logging.getLogger("tether.abort")


class AbortError(TetherError):
    """Raised by :meth:`AbortSignal.throw_if_aborted` once the signal has fired."""


class AbortSignal:
    """The observable side of an abort: tools check it, wait on it, or subscribe to it."""

    __slots__ = ("_aborted", "_listeners", "_reason", "_waiters")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: Any = None
        self._listeners: list[Callable[[Any], None]] = []
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> Any:
        """What the aborter gave, or ``None``."""
        return self._reason

    def throw_if_aborted(self) -> None:
        if self._aborted:
            raise AbortError(str(self._reason) if self._reason is not None else "aborted")

    async def wait(self) -> None:
        """Return once the signal has fired (at once if it already has)."""
        if self._aborted:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            await future
        finally:
            if future in self._waiters:
                self._waiters.remove(future)

    def add_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener(reason)`` when the signal fires (at once if it already has).

        Returns a function that removes the listener.
        """
        if self._aborted:
            _call_listener(listener, self._reason)
            return _noop
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def _fire(self, reason: Any) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            _call_listener(listener, reason)
        for future in self._waiters:
            future.get_loop().call_soon_threadsafe(_resolve, future)


def _call_listener(listener: Callable[[Any], None], reason: Any) -> None:
    """A failing listener is logged; it never stops the others or the aborter."""
    try:
        listener(reason)
    except Exception:
        _log.exception("abort listener failed")


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _noop() -> None:
    return None


class AbortController:
    """Owns a signal and is the only thing that can fire it."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: Any = None) -> None:
        """Fire the signal; later calls do nothing."""
        self.signal._fire("aborted" if reason is None else reason)


async def first_to_finish(
    waits: Mapping[str, Awaitable[Any]], *, timeout: float | None, signal: AbortSignal | None
) -> str:
    """Wait for whichever ends first: one of ``waits`` (its name is returned), the signal
    (``"aborted"``) or the timeout (``"timed_out"``).

    Where several have ended, the first in ``waits``' order wins, then the signal. The waits this
    function started (coroutines, the signal's) are cancelled on the way out; a future passed in
    is left as it is, for its owner.
    """
    named: dict[asyncio.Future[Any], str] = {}
    started: list[asyncio.Future[Any]] = []
    for name, awaitable in waits.items():
        future = asyncio.ensure_future(awaitable)
        if future is not awaitable:
            started.append(future)
        named[future] = name
    if signal is not None:
        aborted = asyncio.ensure_future(signal.wait())
        started.append(aborted)
        named[aborted] = "aborted"
    try:
        done, _ = await asyncio.wait(named, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in started:
            wait.cancel()
    return next((name for future, name in named.items() if future in done), "timed_out")
