"""``anthropic-messages``: Anthropic's Messages API, streamed.

:func:`stream` is this protocol's :data:`~tether.ai.StreamFn`; the request body (cache points,
thinking budgets) is built in ``_request``, the server's events turned into tether's in
``_events``.
"""

from ._provider import stream

__all__ = ["stream"]
