"""``openai-completions``: OpenAI Chat Completions, and every server that speaks it (Ollama,
vLLM, llama.cpp's server, LM Studio, OpenRouter, Groq...), as a :data:`~tether.ai.StreamFn`.

The official ``openai`` SDK sends the request: its auth, its retries of 429, 5xx and refused
connections (honouring ``Retry-After``) and its error types all apply. The 200 stream is read
raw (``with_streaming_response``) and parsed here (:mod:`._chunks`), because building the SDK's
pydantic object per chunk is most of the cost of a long streamed tool call. The request body:
:mod:`._request`. An error inside the stream, or a dropped connection, is tried again by the
shared driver (:func:`~.._wire.drive`: only before the first event reached the caller); every
failure ends in an ``error`` event, and an abort closes the connection at once. A server that
refuses a ``"content": null`` (llama-cpp-python) is sent ``""`` once more, and from then on.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing
from typing import Any

import httpx2
import openai

from ..._stream import AssistantMessageEvent, StreamOptions
from ..._types import Context, Model
from .._compat import learn_rejected_null_content
from .._errors import dropped_stream_text, failure_text, is_retryable_status
from .._keys import api_key_for
from .._openai_client import (
    describe_openai_failure,
    error_payload_text,
    missing_key_text,
    openai_client,
    rejects_null_content,
    sent_null_content,
)
from .._wire import AbortGuard, MessageAssembler, WireFailure, drive
from ._chunks import CompletionsStreamReader, StreamFault
from ._empty_stream import diagnose_empty_stream
from ._request import compat_for, request_body

__all__ = ["stream"]

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
    request = _Request(assembler, context, options, api_key, body)
    async for event in drive(assembler, options, request.attempt, request.describe):
        yield event


class _Request:
    """The attempts of one request; the body changes once if the server refuses a null."""

    def __init__(
        self,
        assembler: MessageAssembler,
        context: Context,
        options: StreamOptions,
        api_key: str | None,
        body: dict[str, Any],
    ) -> None:
        self.assembler = assembler
        self.context = context
        self.options = options
        self.api_key = api_key
        self.body = body
        self.resent = False
        self.describe = describe_openai_failure(assembler.model.provider, api_key)

    async def attempt(self, guard: AbortGuard) -> AsyncGenerator[AssistantMessageEvent, None]:
        """One request and its stream. The SDK raises what failed before the stream; a fault
        while reading it becomes a :class:`WireFailure` for the driver to retry or report."""
        model = self.assembler.model
        client = openai_client(model, self.options, self.api_key)
        while True:
            reader = CompletionsStreamReader(self.assembler)
            try:
                async for event in _events(client, self.body, guard, reader):
                    yield event
                break
            except openai.APIStatusError as exc:
                if self.assembler.started or not sent_null_content(exc):
                    raise
                if not self.resent and rejects_null_content(exc):
                    learn_rejected_null_content(model.base_url)  # llama-cpp-python: "" from now on
                    self.body = request_body(model, self.context, self.options, compat_for(model))
                    self.resent = True
                    continue
                # the SDK left this 5xx to us (it may have been the refusal): the driver retries
                if not is_retryable_status(exc.status_code):
                    raise
                raise WireFailure(self.describe(exc), retryable=True) from exc
        fault = reader.fault
        if fault is None:
            return
        if fault.empty and not self.assembler.started:
            message = await diagnose_empty_stream(
                client, self.body, guard, model.provider, self.api_key
            )
        else:
            message = _fault_text(model.provider, fault, self.api_key)
        raise WireFailure(message, retryable=fault.retryable)


async def _events(
    client: openai.AsyncOpenAI,
    body: dict[str, Any],
    guard: AbortGuard,
    reader: CompletionsStreamReader,
) -> AsyncIterator[AssistantMessageEvent]:
    """One request, its stream fed to ``reader``; a failed read is left in ``reader.fault``."""
    request = client.chat.completions.with_streaming_response.create(
        model=body["model"],
        messages=body["messages"],
        stream=True,
        extra_body={key: value for key, value in body.items() if key not in _SDK_ARGUMENTS},
    )
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
                yield event
        for event in reader.end():
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
