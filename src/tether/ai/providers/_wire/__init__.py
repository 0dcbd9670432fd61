"""What every wire protocol shares, private to :mod:`tether.ai.providers`.

The assembler that turns a protocol's pieces into tether's events and the final message
(:class:`MessageAssembler`), tool-call arguments parsed while they stream
(:class:`StreamingArguments`), server-sent events split from raw bytes (:class:`SSEDecoder`),
the abort guard around each await on the wire (:class:`AbortGuard`), one SDK client kept per
event loop (:func:`cached_client`), usage priced by the model's cost (:func:`priced_usage`), and
the one driver of a streamed request with the retry rule and the abort text (:func:`drive`).
"""

from ._abort_guard import Aborted, AbortGuard
from ._arguments import StreamingArguments
from ._assembler import Events, MessageAssembler
from ._client_cache import cached_client
from ._driver import ABORTED, Attempt, WireFailure, drive
from ._sse import SSEDecoder
from ._usage import priced_usage

__all__ = [
    "ABORTED",
    "AbortGuard",
    "Aborted",
    "Attempt",
    "Events",
    "MessageAssembler",
    "SSEDecoder",
    "StreamingArguments",
    "WireFailure",
    "cached_client",
    "drive",
    "priced_usage",
]
