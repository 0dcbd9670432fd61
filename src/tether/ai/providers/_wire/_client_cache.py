"""SDK clients kept per event loop, so the turns of a run reuse one connection pool.

Building an ``AsyncOpenAI`` or ``AsyncAnthropic`` client costs a TLS context (20-40 ms here)
and a new client opens new connections (a TCP and TLS handshake per turn). A client is kept for
each distinct configuration (server, key, retries, headers) and event loop: connection pools
belong to the loop that made them, so another loop (another ``asyncio.run``) gets its own, and
a loop's clients go when the loop does.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from ..._stream import StreamOptions
from ..._types import Model

__all__ = ["cached_client"]

T = TypeVar("T")

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Hashable, Any]] = (
    weakref.WeakKeyDictionary()
)


def cached_client(
    sdk: str,
    model: Model,
    options: StreamOptions,
    api_key: str | None,
    make: Callable[[dict[str, str]], T],
) -> T:
    """The ``sdk`` client for this server, key, retry bound and headers on the running loop,
    made by ``make(headers)`` the first time."""
    headers = {**model.headers, **(options.headers or {})}
    key: Hashable = (sdk, model.base_url, api_key, options.max_retries, *sorted(headers.items()))
    loop = asyncio.get_running_loop()
    clients = _clients.setdefault(loop, {})
    client = clients.get(key)
    if client is None:
        client = clients[key] = make(headers)
    return client
