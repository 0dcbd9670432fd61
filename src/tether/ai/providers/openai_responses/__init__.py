"""``openai-responses``: the OpenAI Responses API, streamed.

:func:`stream` is this protocol's :data:`~tether.ai.StreamFn`; the request body (replayed
reasoning items, ``call_id|item_id`` tool-call ids) is built in ``_request``, the server's events
turned into tether's in ``_events``.
"""

from ._provider import stream

__all__ = ["stream"]
