"""The ``anthropic-messages`` protocol: Anthropic's Messages API, streamed.

The request goes through the official SDK (``anthropic.AsyncAnthropic``), which keeps its
authentication headers, ``anthropic-version``, its retries of 429 / 5xx / 529 / dropped
connections with backoff that honours ``Retry-After``, and its error types. The reply is read as
the SDK's raw streamed response, split into events by :class:`~.._wire.SSEDecoder` and parsed
with jiter — no pydantic object per event — then turned into tether's events by :mod:`._events`. A
failure inside the 200 stream (an ``error`` event such as ``overloaded_error``, a connection
cut) before any content reached the caller is retried too by the shared driver
(:func:`~.._wire.drive`), at most ``max_retries`` times; after that it ends the message with stop
reason ``error``, the partial content kept. An abort closes the response at once.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import anthropic
import httpx2
import jiter

from ..._stream import AssistantMessageEvent, StreamOptions
from ..._types import Context, Model
from .._errors import (
    dropped_stream_text,
    failure_text,
    provider_label,
    scrub_secrets,
)
from .._keys import api_key_env, api_key_for
from .._wire import AbortGuard, MessageAssembler, SSEDecoder, WireFailure, cached_client, drive
from ._events import EventTranslator, error_detail
from ._request import request_body

__all__ = ["stream"]


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from an Anthropic Messages endpoint; never raises."""
    assembler = MessageAssembler(model)
    api_key = _api_key(model, options)
    name = provider_label(model.provider)
    if api_key is None:
        variable = api_key_env(model.provider) or "ANTHROPIC_API_KEY"
        for event in assembler.fail(
            "error", f"{name}: no API key; set {variable} or pass StreamOptions.api_key"
        ):
            yield event
        return

    def describe(exc: Exception) -> str:
        return _failure_message(name, exc, api_key)

    try:
        body = request_body(model, context, options)
        client = cached_client(
            "anthropic",
            model,
            options,
            api_key,
            lambda headers: anthropic.AsyncAnthropic(
                api_key=api_key or "no-key",  # never None: the SDK would look for credentials
                base_url=model.base_url,
                max_retries=options.max_retries,
                default_headers=headers,
            ),
        )
    except Exception as exc:  # the contract: a final error event, never an exception
        for event in assembler.fail("error", describe(exc)):
            yield event
        return

    def attempt(guard: AbortGuard) -> AsyncGenerator[AssistantMessageEvent, None]:
        translator = EventTranslator(assembler, api_key, name)
        return _attempt(client, body, guard, translator, name, keyless=not api_key)

    async for event in drive(assembler, options, attempt, describe):
        yield event


async def _attempt(
    client: anthropic.AsyncAnthropic,
    body: dict[str, Any],
    guard: AbortGuard,
    translator: EventTranslator,
    name: str,
    *,
    keyless: bool,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """One request: the SDK sends it (and retries its HTTP failures); the bytes are ours."""
    required = ("model", "max_tokens", "messages")
    request = client.messages.with_streaming_response.create(
        model=body["model"],
        max_tokens=body["max_tokens"],
        messages=body["messages"],
        stream=True,
        extra_body={key: value for key, value in body.items() if key not in required},
        extra_headers={"Authorization": anthropic.omit} if keyless else None,
    )
    async with AsyncExitStack() as stack:
        response = await guard.wait(stack.enter_async_context(request))
        chunks = response.iter_bytes().__aiter__()
        decoder = SSEDecoder()
        handle = translator.handle
        while True:
            try:
                chunk = await guard.wait(chunks.__anext__())
            except StopAsyncIteration:
                break
            except httpx2.TransportError as exc:
                raise WireFailure(f"{name}: {dropped_stream_text(exc)}", retryable=True) from exc
            for _name, data in decoder.feed(chunk):
                guard.check()  # the caller may have aborted while it handled the last event
                for event in handle(_parse(name, data)):
                    yield event
                if translator.finished:
                    return
        for _name, data in decoder.flush():
            for event in handle(_parse(name, data)):
                yield event
        guard.check()
        for event in translator.end_of_stream():
            yield event


def _parse(name: str, data: bytes) -> dict[str, object]:
    try:
        event = jiter.from_json(data)
    except ValueError as exc:
        raise WireFailure(
            f"{name}: the stream sent an event that is not JSON ({exc}): {data[:200]!r}",
            retryable=False,
        ) from exc
    if not isinstance(event, dict):
        raise WireFailure(
            f"{name}: the stream sent an event that is not an object: {data[:200]!r}",
            retryable=False,
        )
    return event


def _api_key(model: Model, options: StreamOptions) -> str | None:
    """The key; a configured provider whose servers need none gets an empty one."""
    key = api_key_for(model, options)
    if key is None and model.provider != "anthropic" and api_key_env(model.provider) is None:
        return ""
    return key


def _failure_message(name: str, exc: Exception, api_key: str) -> str:
    if isinstance(exc, anthropic.APIStatusError):
        kind, message = error_detail(exc.body)
        if message is None:
            message = exc.body if isinstance(exc.body, str) and exc.body else exc.message
        return failure_text(
            name, status=exc.status_code, kind=kind, message=message, api_key=api_key
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = f" ({_describe(exc.__cause__)})" if exc.__cause__ is not None else ""
        return failure_text(
            name, kind="connection failed", message=f"{exc.message}{cause}", api_key=api_key
        )
    return scrub_secrets(f"{name}: {_describe(exc)}", api_key)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
