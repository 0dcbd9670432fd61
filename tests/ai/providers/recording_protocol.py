"""A protocol module for testing the dispatcher: it records the context it is handed and
answers "ok". Registered in ``API_MODULES`` under a test api name by the tests that use it."""

from __future__ import annotations

from collections.abc import AsyncIterator

from tether.ai import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamDone,
    StreamOptions,
    TextContent,
)

contexts: list[Context] = []


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    contexts.append(context)
    message = AssistantMessage(
        [TextContent("ok")], model=model.id, provider=model.provider, api=model.api
    )
    yield StreamDone(message, message)
