"""One streamed request, tried again while another try may mend it: the rule every HTTP
protocol shares, written once.

A protocol hands :func:`drive` its ``attempt`` — one request, whose stream it turns into
tether's events through the shared :class:`MessageAssembler` — and how to ``describe`` an
exception. The driver:

- yields each attempt's events as they come, but holds back the final ``done`` or ``error``
  event until the attempt has closed its response, because a caller stops reading there;
- when an attempt raises :class:`WireFailure`, tries again (backoff of :func:`retry_delay`)
  only before the first event reached the caller, while the failure is ``retryable`` and
  ``options.max_retries`` allows; otherwise the message ends in an ``error`` event with the
  failure's text, its partial content kept. The ``start`` event does not count: a retry reuses
  the assembler, so ``start`` reaches the caller once and nothing is ever shown twice;
- ends at once with stop reason ``aborted`` and :data:`ABORTED` when the signal fires,
  whether the request waits on the wire or for its next try;
- turns every other exception into an ``error`` event with ``describe(exc)``: it never raises.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing

from ..._stream import AssistantMessageEvent, StreamDone, StreamError, StreamOptions
from .._errors import retry_delay
from ._abort_guard import Aborted, AbortGuard
from ._assembler import Events, MessageAssembler

__all__ = ["ABORTED", "Attempt", "WireFailure", "drive"]

ABORTED = "The request was aborted"
"""The ``error_message`` of every message a provider ends because the abort signal fired."""

Attempt = Callable[[AbortGuard], AsyncGenerator[AssistantMessageEvent, None]]
"""One request and its stream; awaits the wire only through the guard's ``wait``."""


class WireFailure(Exception):
    """An attempt failed with ``message`` (the person's text); ``retryable`` when another try
    may succeed (a dropped connection, an overloaded server)."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


async def drive(
    assembler: MessageAssembler,
    options: StreamOptions,
    attempt: Attempt,
    describe: Callable[[Exception], str],
) -> AsyncIterator[AssistantMessageEvent]:
    """The events of ``attempt``, tried again as the module says; never raises."""
    guard = AbortGuard(options.signal)
    ending: Events = []  # yielded once the attempt has released its response
    retries = 0
    try:
        guard.check()
        while True:
            try:
                async with aclosing(attempt(guard)) as events:
                    async for event in events:
                        if isinstance(event, StreamDone | StreamError):
                            ending.append(event)
                        else:
                            yield event
                break
            except WireFailure as failure:
                if (
                    not failure.retryable
                    or assembler.reached_caller
                    or retries >= options.max_retries
                ):
                    ending = assembler.fail("error", failure.message)
                    break
            retries += 1
            await guard.wait(asyncio.sleep(retry_delay(retries)))
    except Aborted:
        ending = assembler.fail("aborted", ABORTED)
    except Exception as exc:  # the contract: a final error event, never an exception
        ending = assembler.fail("error", describe(exc))
    finally:
        guard.close()
    for event in ending:
        yield event
