"""Usage and cost: token counts per bucket, priced from the model's per-million prices."""

from __future__ import annotations

from ..._types import Model, Usage

__all__ = ["priced_usage"]


def priced_usage(
    model: Model, *, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0
) -> Usage:
    """A :class:`Usage` with ``total_tokens`` and ``cost`` filled in.

    ``input`` counts fresh input tokens only: cached reads and cache writes are their own buckets.
    """
    price = model.cost
    cost = (
        input * price.input
        + output * price.output
        + cache_read * price.cache_read
        + cache_write * price.cache_write
    ) / 1_000_000
    return Usage(
        input=input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        total_tokens=input + output + cache_read + cache_write,
        cost=cost,
    )
