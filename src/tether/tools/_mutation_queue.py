"""Serialise mutations of one file; mutations of different files run in parallel.

Parallel tool batches may hold several edits of the same file; each must see the previous one's
result. The queue is keyed by the real path, so two symlinks to one file share a queue.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["with_file_mutation_queue"]

T = TypeVar("T")

_locks: dict[str, tuple[asyncio.Lock, int]] = {}


async def with_file_mutation_queue(
    path: str,
    fn: Callable[[], Awaitable[T]],
    *,
    real_path: Callable[[str], Awaitable[str]] | None = None,
) -> T:
    """Run ``fn()`` once every earlier mutation queued for the same file has finished (FIFO).

    ``real_path`` resolves symlinks (an operations' ``real_path``); by default this machine's.
    """
    key = await real_path(path) if real_path is not None else os.path.realpath(path)
    lock, users = _locks.get(key, (None, 0))
    if lock is None:
        lock = asyncio.Lock()
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            return await fn()
    finally:
        lock, users = _locks[key]
        if users <= 1:
            del _locks[key]
        else:
            _locks[key] = (lock, users - 1)
