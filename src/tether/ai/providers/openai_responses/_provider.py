"""``openai-responses``: the OpenAI Responses API, streamed, on the official ``openai`` SDK.

The request goes through the SDK (its auth, its retries of 429, 5xx and failed connections
honouring ``Retry-After``, its error types), but the 200 stream is read raw: its bytes are split
into server-sent events and each event is parsed with jiter into a dict, instead of a pydantic
object per event. A stream that drops before its first event reached the caller is tried again
by the shared driver (:func:`~.._wire.drive`), within ``max_retries``. Request mapping (replay of
reasoning items, ``call_id|item_id`` tool-call ids): :mod:`._request`; events: :mod:`._events`.
Every failure, before or inside the stream, ends as an ``error`` event; an abort closes the
connection at once and ends with stop reason ``aborted``. The response is closed before the
final event is yielded, since callers stop iterating there.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from typing import Any

import httpx2
import jiter
import openai

from ..._stream import AssistantMessageEvent, StreamOptions
from ..._types import Context, Model
from .._errors import dropped_stream_text, failure_text
from .._keys import api_key_for
from .._openai_client import describe_openai_failure, missing_key_text, openai_client
from .._wire import AbortGuard, MessageAssembler, SSEDecoder, WireFailure, drive
from ._events import ResponsesEvents
from ._request import request_body

__all__ = ["stream"]


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a Responses model (a :data:`~tether.ai.StreamFn`)."""
    assembler = MessageAssembler(model)
    api_key = api_key_for(model, options)
    problem = missing_key_text(model, api_key)
    if problem is not None:
        for event in assembler.fail("error", problem):
            yield event
        return
    describe = describe_openai_failure(model.provider, api_key)
    try:
        body = request_body(model, context, options)
        client = openai_client(model, options, api_key)
    except Exception as exc:  # the contract: a final error event, never an exception
        for event in assembler.fail("error", describe(exc)):
            yield event
        return

    async def attempt(guard: AbortGuard) -> AsyncGenerator[AssistantMessageEvent, None]:
        reader = ResponsesEvents(assembler, model.provider, api_key)
        try:
            async with _response_bytes(client, body, guard) as chunks:
                async for events in _server_events(chunks, reader, guard):
                    for event in events:
                        yield event
        except (httpx2.TransportError, OSError) as exc:
            message = failure_text(
                model.provider, message=dropped_stream_text(exc), api_key=api_key
            )
            raise WireFailure(message, retryable=True) from exc
        except _Malformed as exc:
            message = failure_text(model.provider, kind="protocol error", message=str(exc))
            raise WireFailure(message, retryable=False) from exc

    async for event in drive(assembler, options, attempt, describe):
        yield event


@asynccontextmanager
async def _response_bytes(
    client: openai.AsyncOpenAI, body: dict[str, Any], guard: AbortGuard
) -> AsyncIterator[AsyncIterator[bytes]]:
    """The raw bytes of one streamed response; the SDK raises what failed before it began."""
    request = client.responses.with_streaming_response.create(**body)
    async with AsyncExitStack() as scope:
        response = await guard.wait(scope.enter_async_context(request))
        yield await scope.enter_async_context(aclosing(response.http_response.aiter_bytes()))


async def _server_events(
    chunks: AsyncIterator[bytes], reader: ResponsesEvents, guard: AbortGuard
) -> AsyncIterator[list[AssistantMessageEvent]]:
    """The tether events of each server event, until ``reader`` has finished."""
    decoder = SSEDecoder()
    while not reader.finished:
        chunk = await guard.wait(anext(chunks, None))
        for name, data in decoder.flush() if chunk is None else decoder.feed(chunk):
            yield reader.handle(name, _parse(data))
            if reader.finished:
                return
        if chunk is None:
            yield reader.stream_ended()


class _Malformed(Exception):
    """An event whose data is not JSON."""


def _parse(data: bytes) -> object:
    if data == b"[DONE]":
        return None
    try:
        return jiter.from_json(data)
    except ValueError as exc:
        raise _Malformed(f"an event is not valid JSON ({exc}): {data[:200]!r}") from None
