"""``openai-completions``: OpenAI Chat Completions, and every server that speaks it (Ollama,
vLLM, llama.cpp's server, LM Studio, OpenRouter, Groq...), as a :data:`~tether.ai.StreamFn`.

The official ``openai`` SDK sends the request: its auth, its retries of 429, 5xx and refused
connections (honouring ``Retry-After``) and its error types all apply. The 200 stream is read
raw (``with_streaming_response``) and parsed here (:mod:`._chunks`), because
building the SDK's pydantic object per chunk is most of the cost of a long streamed tool call.
The request body: :mod:`._request`. An error inside the stream, or a dropped
connection, before anything reached the caller is tried again with backoff; every failure
ends in an ``error`` event, and an abort closes the connection at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing
from functools import partial
from typing import Any

import httpx2
import openai

from ..._stream import AssistantMessageEvent, StreamDone, StreamError, StreamOptions
from ..._types import Context, Model
from .._compat import learn_rejected_null_content
from .._errors import dropped_stream_text, failure_text, is_retryable_status, retry_delay
from .._keys import api_key_for
from .._openai_client import (
    error_payload_text,
    missing_key_text,
    openai_client,
    openai_failure_text,
    rejects_null_content,
    sent_null_content,
)
from .._wire import Aborted, AbortGuard, MessageAssembler
from ._chunks import CompletionsStreamReader, StreamFault
from ._empty_stream import diagnose_empty_stream
from ._request import compat_for, request_body

__all__ = ["stream"]

_ABORTED = "The request was aborted"
_SDK_ARGUMENTS = frozenset({"model", "messages", "stream"})
"""Body fields passed to the SDK as arguments; the rest go as ``extra_body``."""


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a Chat Completions server; never raises."""
    assembler = MessageAssembler(model)
    api_key = api_key_for(model, options)
    problem = missing_key_text(model, api_key)
    if problem is None:
        try:
            body = request_body(model, context, options, compat_for(model))
        except ValueError as exc:
            problem = failure_text(model.provider, message=str(exc))
    if problem is not None:
        for event in assembler.fail("error", problem):
            yield event
        return
    guard = AbortGuard(options.signal)
    try:
        guard.check()
        client = openai_client(model, options, api_key)
        send = partial(_request, client, guard=guard, assembler=assembler, options=options)
        resent = retries = 0
        while True:
            try:
                async with aclosing(send(body, api_key)) as events:
                    async for event in events:
                        yield event
                return
            except openai.APIStatusError as exc:
                if assembler.started or not sent_null_content(exc):
                    raise
                if not resent and rejects_null_content(exc):
                    learn_rejected_null_content(model.base_url)  # llama-cpp-python: "" from now on
                    body = request_body(model, context, options, compat_for(model))
                    resent = 1
                    continue
                # the SDK left this 5xx to us (it may have been the refusal): its retries here
                if not is_retryable_status(exc.status_code) or retries >= options.max_retries:
                    raise
                retries += 1
                await guard.wait(asyncio.sleep(retry_delay(retries)))
    except Aborted:
        for event in assembler.fail("aborted", _ABORTED):
            yield event
    except openai.OpenAIError as exc:
        for event in assembler.fail("error", openai_failure_text(model.provider, exc, api_key)):
            yield event
    except Exception as exc:  # the contract: a final error event, never an exception
        message = failure_text(
            model.provider,
            kind="unexpected failure",
            message=f"{type(exc).__name__}: {exc}",
            api_key=api_key,
        )
        for event in assembler.fail("error", message):
            yield event
    finally:
        guard.close()


async def _request(
    client: openai.AsyncOpenAI,
    body: dict[str, Any],
    api_key: str | None,
    *,
    guard: AbortGuard,
    assembler: MessageAssembler,
    options: StreamOptions,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """The request, tried again while its stream fails in a way another try may mend; the SDK's
    exceptions (an HTTP status, a refused connection) propagate."""
    provider = assembler.model.provider
    retries = 0
    while True:
        reader = CompletionsStreamReader(assembler)
        async with aclosing(_attempt(client, body, guard, reader)) as events:
            async for event in events:
                yield event
        fault = reader.fault
        if fault is None:
            return
        if fault.retryable and not assembler.started and retries < options.max_retries:
            retries += 1
            await guard.wait(asyncio.sleep(retry_delay(retries)))
            continue
        if fault.empty and not assembler.started:
            message = await diagnose_empty_stream(client, body, guard, provider, api_key)
        else:
            message = _fault_text(provider, fault, api_key)
        for event in assembler.fail("error", message):
            yield event
        return


async def _attempt(
    client: openai.AsyncOpenAI,
    body: dict[str, Any],
    guard: AbortGuard,
    reader: CompletionsStreamReader,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """One request, its stream fed to ``reader``. The SDK raises what failed before the stream;
    a failure while reading it is left in ``reader.fault`` for the caller to retry or report."""
    request = client.chat.completions.with_streaming_response.create(
        model=body["model"],
        messages=body["messages"],
        stream=True,
        extra_body={key: value for key, value in body.items() if key not in _SDK_ARGUMENTS},
    )
    final: list[AssistantMessageEvent] = []
    async with AsyncExitStack() as scope:
        response = await guard.wait(scope.enter_async_context(request))
        chunks = await scope.enter_async_context(aclosing(response.http_response.aiter_bytes()))
        feed = reader.feed
        while not reader.finished:
            try:
                data = await guard.wait(anext(chunks))
            except StopAsyncIteration:
                break
            except httpx2.TransportError as exc:
                reader.fault = _dropped(exc)
                return
            for event in feed(data):
                if isinstance(event, StreamDone | StreamError):
                    final.append(event)
                else:
                    yield event
        final.extend(reader.end())
    # the response is released before the last event: a caller stops reading at ``done``
    for event in final:
        yield event


def _dropped(exc: httpx2.TransportError) -> StreamFault:
    """A read that failed once the response had begun: a timeout or a dropped connection."""
    if isinstance(exc, httpx2.TimeoutException):
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return StreamFault(f"timed out waiting for the stream ({detail})", retryable=True)
    return StreamFault(dropped_stream_text(exc), retryable=True)


def _fault_text(provider: str, fault: StreamFault, api_key: str | None) -> str:
    if fault.payload is not None:
        return error_payload_text(provider, fault.payload, api_key)
    return failure_text(provider, message=fault.message, api_key=api_key)
