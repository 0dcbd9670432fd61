"""The agent loop: stream an assistant message, run its tool calls, repeat.

Outer loop: follow-up messages. Inner loop: turns, while the last assistant message asked for tools
or steering messages are queued. Everything a model, a tool or a hook does ends as a message in
the transcript; the loop itself never raises for them.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from tether.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    Message,
    StreamOptions,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    parameters_schema,
    repair_transcript,
)

from ._dynamic_tools import activate_added_tools, refuse_duplicate_names, start_tool_set
from ._event_stream import AgentEventStream, Emit
from ._pipeline import describe_error, execute_tool_calls, refuse_tool_calls
from ._types import (
    AgentContext,
    AgentEnd,
    AgentLoopConfig,
    AgentMessage,
    AgentStart,
    AgentTool,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TurnEnd,
    TurnStart,
)

__all__ = ["agent_loop", "agent_loop_continue", "default_convert_to_llm"]

_log = logging.getLogger("tether.agent")


TRUNCATED_CALL = (
    "Tool call not executed: the response was cut off at the output token limit "
    '(stop reason "length"), so its arguments may be truncated. '
    "Re-issue the complete call, splitting large content across several calls if needed."
)


def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
) -> AgentEventStream:
    """Start a run with ``prompts`` appended to ``context`` (which is not modified).

    Raises ``ValueError`` at once when two tools of ``context.tools`` or of
    ``config.available_tools`` share a name.
    """
    _refuse_duplicate_tools(context, config)
    prompts = list(prompts)

    async def run(emit: Emit) -> list[AgentMessage]:
        current = AgentContext(
            context.system_prompt, [*context.messages, *prompts], list(context.tools)
        )
        new_messages: list[AgentMessage] = list(prompts)
        emit(AgentStart())
        emit(TurnStart())
        for prompt in prompts:
            emit(MessageStart(prompt))
            emit(MessageEnd(prompt))
        await _run(current, new_messages, config, signal or AbortSignal(), emit)
        return new_messages

    return AgentEventStream(run)


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
) -> AgentEventStream:
    """Resume from ``context`` as it is: after a user message or tool result, or after a turn
    that failed (stop reason ``error`` or ``aborted``), which is then retried — the failed
    message stays in the transcript but is not sent.

    Raises ``ValueError`` at once when there is nothing to continue from: no messages, or a
    transcript that ends with an assistant message that completed; or tools that share a name
    (as :func:`agent_loop`).
    """
    _refuse_duplicate_tools(context, config)
    if not context.messages:
        raise ValueError("Cannot continue: the context has no messages.")
    last = context.messages[-1]
    if isinstance(last, AssistantMessage) and not last.failed:
        raise ValueError(
            f'Cannot continue from an assistant message that ended with "{last.stop_reason}": '
            "add a user message or tool result first (only a failed turn is retried)."
        )

    async def run(emit: Emit) -> list[AgentMessage]:
        current = AgentContext(context.system_prompt, list(context.messages), list(context.tools))
        new_messages: list[AgentMessage] = []
        emit(AgentStart())
        emit(TurnStart())
        await _run(current, new_messages, config, signal or AbortSignal(), emit)
        return new_messages

    return AgentEventStream(run)


def _refuse_duplicate_tools(context: AgentContext, config: AgentLoopConfig) -> None:
    refuse_duplicate_names(context.tools, "the context's tools")
    refuse_duplicate_names(config.available_tools, "available_tools")


async def _run(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal,
    emit: Emit,
) -> None:
    first_turn = True
    start_tool_set(context, config)
    pending = await _poll(config.get_steering_messages)
    while True:
        wants_tools = True
        while wants_tools or pending:
            if first_turn:
                first_turn = False
            else:
                emit(TurnStart())
            for message in pending:
                emit(MessageStart(message))
                emit(MessageEnd(message))
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            tools_shown = await _tools_for_request(context, config)
            message = await _stream_assistant_message(context, tools_shown, config, signal, emit)
            new_messages.append(message)
            if message.failed:
                emit(TurnEnd(message, []))
                emit(AgentEnd(new_messages))
                return

            tool_calls = message.tool_calls()
            wants_tools = bool(tool_calls)
            results: list[ToolResultMessage] = []
            if tool_calls:
                if message.stop_reason == "length":
                    outcome = refuse_tool_calls(tool_calls, TRUNCATED_CALL, emit)
                else:
                    outcome = await execute_tool_calls(
                        message, tool_calls, tools_shown, context, config, signal, emit
                    )
                results = outcome.results
                context.messages.extend(results)
                new_messages.extend(results)
                activate_added_tools(context, results, config)
                wants_tools = not outcome.terminate
            emit(TurnEnd(message, results))
            if signal.aborted:
                emit(AgentEnd(new_messages))
                return
            pending = await _poll(config.get_steering_messages)

        pending = await _poll(config.get_follow_up_messages)
        if not pending:
            break
    emit(AgentEnd(new_messages))


async def _tools_for_request(context: AgentContext, config: AgentLoopConfig) -> list[AgentTool]:
    active = list(context.tools)
    if config.tools_for_request is None:
        return active
    try:
        return list(await config.tools_for_request(active))
    except Exception:
        _log.exception("tools_for_request failed; showing the active tools")
        return active


async def _poll(
    source: Callable[[], Awaitable[list[AgentMessage]]] | None,
) -> list[AgentMessage]:
    """Messages from a steering/follow-up source; a failing source is logged, never fatal."""
    if source is None:
        return []
    try:
        messages = await source()
    except Exception:
        _log.exception("message queue source %r failed; treating it as empty", source)
        return []
    return list(messages or [])


_LLM_MESSAGE_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)
"""A tuple, not a ``|`` union: that would be built again for every message of every request."""


def default_convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """Keep the messages a model understands; drop application-only entries."""
    return [m for m in messages if isinstance(m, _LLM_MESSAGE_TYPES)]


def model_facing_tool(tool: AgentTool) -> Tool:
    return Tool(tool.name, tool.description, parameters_schema(tool.parameters))


async def _stream_assistant_message(
    context: AgentContext,
    tools_shown: list[AgentTool],
    config: AgentLoopConfig,
    signal: AbortSignal,
    emit: Emit,
) -> AssistantMessage:
    """Stream one response into ``context.messages``; any failure becomes an error message."""
    partial: AssistantMessage | None = None
    try:
        request = await _model_request(context, tools_shown, config, signal)
        options = (
            replace(config.stream_options, signal=signal)
            if config.stream_options is not None
            else StreamOptions(signal=signal)
        )
        if config.api_key is not None:
            options.api_key = config.api_key
        async for event in config.stream_fn(config.model, request, options):
            kind = event.type
            if kind in ("done", "error"):
                return _settle(context, partial, event.message, emit)  # type: ignore[union-attr]
            if partial is None:
                partial = event.partial
                context.messages.append(partial)
                emit(MessageStart(partial))
                if kind == "start":
                    continue
            emit(MessageUpdate(event.partial, event))
        raise RuntimeError("the stream ended without a done or error event")
    except Exception as exc:
        final = AssistantMessage(
            content=[b for b in partial.content if not isinstance(b, ToolCall)] if partial else [],
            stop_reason="aborted" if signal.aborted else "error",
            model=config.model.id,
            provider=config.model.provider,
            api=config.model.api,
            error_message=f"Model request failed: {describe_error(exc)}",
        )
        return _settle(context, partial, final, emit)


async def _model_request(
    context: AgentContext,
    tools_shown: list[AgentTool],
    config: AgentLoopConfig,
    signal: AbortSignal,
) -> Context:
    """What the model is sent: the messages through ``transform_context`` and
    ``convert_to_llm``, repaired, with the tools it may call."""
    messages = context.messages
    if config.transform_context is not None:
        transformed = config.transform_context(messages, signal)
        messages = await transformed if inspect.isawaitable(transformed) else transformed
    convert = config.convert_to_llm or default_convert_to_llm
    llm_messages = convert(messages)
    if inspect.isawaitable(llm_messages):
        llm_messages = await llm_messages
    return Context(
        context.system_prompt,
        repair_transcript(llm_messages),
        [model_facing_tool(t) for t in tools_shown],
    )


def _settle(
    context: AgentContext, partial: AssistantMessage | None, final: AssistantMessage, emit: Emit
) -> AssistantMessage:
    """Put ``final`` where the streamed ``partial`` stood (or append it, started, when the
    stream never got as far as a partial) and end the message."""
    if partial is None:
        context.messages.append(final)
        emit(MessageStart(final))
    else:
        context.messages[-1] = final
    emit(MessageEnd(final))
    return final
