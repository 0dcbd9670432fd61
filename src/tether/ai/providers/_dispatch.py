"""``stream`` and ``complete``: one entry point for every wire protocol, chosen by ``model.api``.

The transcript is repaired for the model first (:func:`transform_messages`), so no protocol
sees a failed turn, an unanswered call or another model's signed thinking. Each protocol lives
in its own module (imported on first use, so importing tether stays fast and
a missing optional SDK only affects the models that need it) and exposes ``stream(model,
context, options)``. Whatever goes wrong, the caller gets an ``error`` event, never an exception.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from dataclasses import replace

from .._stream import AssistantMessageEvent, StreamDone, StreamError, StreamOptions
from .._types import AssistantMessage, Context, Model
from ._transform import transform_messages

__all__ = ["API_MODULES", "complete", "stream"]

API_MODULES: dict[str, str] = {
    "openai-completions": "tether.ai.providers.openai_completions",
    "openai-responses": "tether.ai.providers.openai_responses",
    "anthropic-messages": "tether.ai.providers.anthropic_messages",
    "local": "tether.ai.providers.local",
}


async def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from ``model`` (a :data:`~tether.ai.StreamFn`)."""
    options = options or StreamOptions()
    module_name = API_MODULES.get(model.api)
    if module_name is None:
        known = ", ".join(sorted(API_MODULES))
        yield _failure(model, f"Unknown api {model.api!r} for model {model.id!r}; known: {known}")
        return
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        yield _failure(model, f"The {model.api} provider cannot be loaded: {exc}")
        return
    context = replace(context, messages=transform_messages(context.messages, model))
    async for event in module.stream(model, context, options):
        yield event


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """The final message of :func:`stream`."""
    final: AssistantMessage | None = None
    async for event in stream(model, context, options):
        if isinstance(event, StreamDone | StreamError):
            final = event.message
    if final is None:
        return AssistantMessage(
            content=[],
            stop_reason="error",
            model=model.id,
            provider=model.provider,
            api=model.api,
            error_message="The stream ended without a final message",
        )
    return final


def _failure(model: Model, message: str) -> StreamError:
    partial = AssistantMessage(
        content=[],
        stop_reason="error",
        model=model.id,
        provider=model.provider,
        api=model.api,
        error_message=message,
    )
    return StreamError(partial, partial)
