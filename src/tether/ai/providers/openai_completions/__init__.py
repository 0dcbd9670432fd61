"""``openai-completions``: OpenAI Chat Completions and every server that speaks it.

:func:`stream` is this protocol's :data:`~tether.ai.StreamFn`; the request body is built in
``_request``, the raw 200 stream read in ``_chunks``, an empty stream explained in
``_empty_stream``.
"""

from ._provider import stream

__all__ = ["stream"]
