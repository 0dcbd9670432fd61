"""``openai-responses``: the OpenAI Responses API, streamed, on the official ``openai`` SDK.

The request goes through the SDK (its auth, retries with ``Retry-After``, and error types), but
the 200 stream is read raw: its bytes are split into server-sent events and each event is
parsed with jiter into a dict, instead of a pydantic object per event. Request mapping (replay
of reasoning items, ``call_id|item_id`` tool-call ids): :mod:`._responses_request`; events:
:mod:`._responses_events`. Every failure, before or inside the stream, ends as an ``error``
event; an abort closes the connection at once and ends with stop reason ``aborted``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing

import httpx2
import jiter
import openai

from .._stream import AssistantMessageEvent, StreamOptions
from .._types import Context, Model
from ._abort_guard import Aborted, AbortGuard
from ._assembler import MessageAssembler
from ._errors import failure_text
from ._keys import api_key_for
from ._openai_client import missing_key_text, openai_client, openai_failure_text
from ._responses_events import ResponsesEvents
from ._responses_request import request_body
from ._sse import SSEDecoder

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
    guard = AbortGuard(options.signal)
    reader = ResponsesEvents(assembler, model.provider, api_key)
    ending: list[AssistantMessageEvent] = []  # yielded once the connection is closed
    try:
        guard.check()
        async with AsyncExitStack() as scope:
            client = openai_client(model, options, api_key)
            scope.push_async_callback(client.close)
            request = client.responses.with_streaming_response.create(
                **request_body(model, context, options)
            )
            response = await guard.wait(scope.enter_async_context(request))
            chunks = await scope.enter_async_context(aclosing(response.http_response.aiter_bytes()))
            decoder = SSEDecoder()
            while not reader.finished:
                try:
                    chunk: bytes | None = await guard.wait(anext(chunks))
                except StopAsyncIteration:
                    chunk = None
                for name, data in decoder.feed(chunk) if chunk is not None else decoder.flush():
                    events = reader.handle(name, _parse(data))
                    if reader.finished:
                        ending = events
                        break
                    for event in events:
                        yield event
                if chunk is None and not reader.finished:
                    ending = reader.stream_ended()
    except Aborted:
        ending = assembler.fail("aborted", "The request was aborted")
    except openai.OpenAIError as exc:
        ending = assembler.fail("error", openai_failure_text(model.provider, exc, api_key))
    except _Malformed as exc:
        message = failure_text(model.provider, kind="protocol error", message=str(exc))
        ending = assembler.fail("error", message)
    except (httpx2.TransportError, OSError) as exc:
        ending = assembler.fail(
            "error", _failure(model, "connection lost mid-stream", exc, api_key)
        )
    except Exception as exc:
        ending = assembler.fail("error", _failure(model, "unexpected failure", exc, api_key))
    finally:
        guard.close()
    for event in ending:
        yield event


def _failure(model: Model, kind: str, exc: Exception, api_key: str | None) -> str:
    return failure_text(
        model.provider, kind=kind, message=f"{type(exc).__name__}: {exc}", api_key=api_key
    )


class _Malformed(Exception):
    """An event whose data is not JSON."""


def _parse(data: bytes) -> object:
    if data == b"[DONE]":
        return None
    try:
        return jiter.from_json(data)
    except ValueError as exc:
        raise _Malformed(f"an event is not valid JSON ({exc}): {data[:200]!r}") from None
