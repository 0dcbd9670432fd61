"""The tool pipeline: every tool call of one assistant message ends in exactly one result.

Per call: look up the tool among those the model was shown → ``prepare_arguments`` → validate →
``before_tool_call`` → ``execute`` → ``after_tool_call``. Each of the six ways this can fail
(unknown tool, prepare, validate, before-hook, execute, after-hook) becomes an ``is_error`` result
whose text tells the model what to do next; nothing escapes into the loop.

A batch runs in parallel (three phases: prepare all in source order; execute concurrently, each
``tool_execution_end`` in completion order; results in source order) unless the config or any
called tool asks for sequential execution.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tether.ai import (
    AbortError,
    AbortSignal,
    AssistantMessage,
    TextContent,
    ToolArgumentsError,
    ToolCall,
    ToolResultMessage,
    copy_json,
    validate_arguments,
)

from ._eager import start_eagerly
from ._errors import ToolError
from ._result_cap import CAPS_OWN_RESULT, cap_result
from ._types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    MessageEnd,
    MessageStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)

__all__ = ["BatchOutcome", "execute_tool_calls", "refuse_tool_calls"]

Emit = Callable[[AgentEvent], None]

_EVENTS_BETWEEN_YIELDS = 128
"""A big batch lets its consumer run this often, so events reach a UI while the batch goes on
(and die young instead of piling up for the garbage collector)."""


@dataclass(slots=True)
class BatchOutcome:
    results: list[ToolResultMessage]
    """In source order."""
    terminate: bool
    """True when every result of the batch asked to terminate."""


class _Call:
    """One tool call on its way through the pipeline."""

    __slots__ = (
        "args",
        "closed",
        "is_error",
        "result",
        "settled",
        "terminate",
        "tool",
        "tool_call",
    )

    def __init__(self, tool_call: ToolCall) -> None:
        self.tool_call = tool_call
        self.tool: AgentTool | None = None
        self.args: Any = None
        self.result: AgentToolResult | None = None
        self.is_error = False
        self.terminate = False
        self.settled = False
        self.closed = False


async def execute_tool_calls(
    assistant_message: AssistantMessage,
    tool_calls: Sequence[ToolCall],
    tools: Sequence[AgentTool],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal,
    emit: Emit,
) -> BatchOutcome:
    """Run ``tool_calls`` against ``tools`` (those the model was shown) and report every result."""
    batch = _Batch(assistant_message, tools, context, config, signal, emit)
    if config.tool_execution == "sequential" or batch.has_sequential_tool(tool_calls):
        calls = await batch.run_sequentially(tool_calls)
    else:
        calls = await batch.run_in_parallel(tool_calls)
    if batch.reports_at_end:
        results = []
        for index, call in enumerate(calls, 1):
            results.append(batch.report(call))
            if index % _EVENTS_BETWEEN_YIELDS == 0:
                await asyncio.sleep(0)
    else:
        results = batch.reported
    return BatchOutcome(results, all(call.terminate for call in calls))


def refuse_tool_calls(tool_calls: Sequence[ToolCall], reason: str, emit: Emit) -> BatchOutcome:
    """Give every call an error result without executing anything (e.g. a truncated response)."""
    results = []
    for tool_call in tool_calls:
        emit(ToolExecutionStart(tool_call.id, tool_call.name, tool_call.arguments))
        result = _error_result(reason)
        emit(ToolExecutionEnd(tool_call.id, tool_call.name, result, True))
        message = ToolResultMessage(tool_call.id, tool_call.name, result.content, None, True)
        emit(MessageStart(message))
        emit(MessageEnd(message))
        results.append(message)
    return BatchOutcome(results, False)


class _Batch:
    __slots__ = (
        "assistant_message",
        "config",
        "context",
        "emit",
        "loop",
        "loop_thread",
        "reported",
        "reports_at_end",
        "signal",
        "tools",
    )

    def __init__(
        self,
        assistant_message: AssistantMessage,
        tools: Sequence[AgentTool],
        context: AgentContext,
        config: AgentLoopConfig,
        signal: AbortSignal,
        emit: Emit,
    ) -> None:
        self.assistant_message = assistant_message
        self.tools = {tool.name: tool for tool in tools}
        # the hooks judge a call by the tools the model was shown (the same transcript)
        self.context = AgentContext(context.system_prompt, context.messages, list(tools))
        self.config = config
        self.signal = signal
        self.emit = emit
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()
        self.reported: list[ToolResultMessage] = []
        self.reports_at_end = True

    def has_sequential_tool(self, tool_calls: Sequence[ToolCall]) -> bool:
        tools = self.tools
        for tool_call in tool_calls:
            tool = tools.get(tool_call.name)
            if tool is not None and tool.execution_mode == "sequential":
                return True
        return False

    async def run_in_parallel(self, tool_calls: Sequence[ToolCall]) -> list[_Call]:
        calls = []
        for index, tool_call in enumerate(tool_calls, 1):
            calls.append(await self.prepare(tool_call))
            if index % _EVENTS_BETWEEN_YIELDS == 0:
                await asyncio.sleep(0)
        running: list[tuple[_Call, asyncio.Task[None]]] = []
        for index, call in enumerate(calls, 1):
            if index % _EVENTS_BETWEEN_YIELDS == 0:
                await asyncio.sleep(0)
            if not call.closed:
                task = start_eagerly(self.execute_and_finalize(call))
                if task is not None:
                    running.append((call, task))
        if running:
            await self.wait_for(running)
        return calls

    async def run_sequentially(self, tool_calls: Sequence[ToolCall]) -> list[_Call]:
        self.reports_at_end = False
        calls = []
        for index, tool_call in enumerate(tool_calls, 1):
            if index % _EVENTS_BETWEEN_YIELDS == 0:
                await asyncio.sleep(0)
            call = await self.prepare(tool_call)
            if not call.closed:
                task = start_eagerly(self.execute_and_finalize(call))
                if task is not None:
                    await self.wait_for([(call, task)])
            self.reported.append(self.report(call))
            calls.append(call)
        return calls

    async def prepare(self, tool_call: ToolCall) -> _Call:
        """Steps 1-4; a call that fails here is closed with its error result at once."""
        call = _Call(tool_call)
        name = tool_call.name
        self.emit(ToolExecutionStart(tool_call.id, name, tool_call.arguments))
        tool = self.tools.get(name)
        if tool is None:
            available = ", ".join(sorted(self.tools)) or "(none)"
            return self.close_with_error(
                call, f'Tool "{name}" not found. Available tools: {available}.'
            )
        if self.signal.aborted:
            return self.close_with_error(call, f'Tool "{name}" was not run: the run was aborted.')
        if tool_call.arguments_error is not None:
            return self.close_with_error(
                call, f'Tool "{name}" was not run: {tool_call.arguments_error}'
            )
        call.tool = tool
        raw = tool_call.arguments
        if tool.prepare_arguments is not None:
            try:
                raw = tool.prepare_arguments(copy_json(raw))
            except Exception as exc:
                return self.close_with_error(
                    call, f'Preparing arguments for tool "{name}" failed: {describe_error(exc)}'
                )
        try:
            call.args = validate_arguments(name, tool.parameters, raw)
        except ToolArgumentsError as exc:
            return self.close_with_error(call, str(exc))
        except Exception as exc:
            return self.close_with_error(
                call, f'Validating arguments for tool "{name}" failed: {describe_error(exc)}'
            )
        hook = self.config.before_tool_call
        if hook is not None:
            try:
                decision = hook(
                    BeforeToolCallContext(
                        self.assistant_message, tool_call, call.args, self.context
                    ),
                    self.signal,
                )
                if inspect.isawaitable(decision):
                    decision = await decision
            except Exception as exc:
                return self.close_with_error(
                    call, f'before_tool_call hook failed for tool "{name}": {describe_error(exc)}'
                )
            if decision is not None:
                return self._decided(call, decision)
        return call

    def _decided(self, call: _Call, decision: object) -> _Call:
        """The call as the ``before_tool_call`` hook's answer leaves it: open to run, or closed
        with why not (blocked, or an answer that is not a :class:`BeforeToolCallResult`)."""
        name = call.tool_call.name
        if not isinstance(decision, BeforeToolCallResult):
            return self.close_with_error(
                call,
                f"before_tool_call hook returned {type(decision).__name__} for tool "
                f'"{name}"; expected BeforeToolCallResult or None.',
            )
        call.terminate = decision.terminate
        if decision.block:
            reason = decision.reason or f'Tool call "{name}" was blocked before it ran.'
            return self.close_with_error(call, reason, terminate=decision.terminate)
        return call

    async def execute_and_finalize(self, call: _Call) -> None:
        """Steps 5-6, then ``tool_execution_end``."""
        tool = call.tool
        assert tool is not None
        tool_call = call.tool_call
        try:
            if self.config.before_execute is not None:  # listeners record the start first
                await self.config.before_execute()
            output = await tool.execute(tool_call.id, call.args, self.signal, self.updater(call))
            if isinstance(output, AgentToolResult):
                result, is_error = output, False
            elif isinstance(output, str):
                result, is_error = AgentToolResult([TextContent(output)]), False
            else:
                result = _error_result(
                    f'Tool "{tool.name}" returned {type(output).__name__}; '
                    "expected AgentToolResult or str."
                )
                is_error = True
        except ToolError as exc:
            result, is_error = AgentToolResult([TextContent(str(exc))], exc.details), True
        except Exception as exc:
            result, is_error = _error_result(describe_error(exc)), True
        except asyncio.CancelledError:
            if _being_cancelled():
                raise
            result = _error_result(f'Tool "{tool.name}" was cancelled before it finished.')
            is_error = True
        finally:
            call.settled = True
        if is_error or not tool.metadata.get(CAPS_OWN_RESULT):  # a tool caps its output, not
            # its errors, which may quote what the model sent (a 10 MB path)
            result = cap_result(result, self.config.max_result_lines, self.config.max_result_bytes)
        hook = self.config.after_tool_call
        if hook is not None:
            try:
                override = hook(
                    AfterToolCallContext(
                        self.assistant_message, tool_call, call.args, result, is_error, self.context
                    ),
                    self.signal,
                )
                if inspect.isawaitable(override):
                    override = await override
            except Exception as exc:
                result = _error_result(
                    f'after_tool_call hook failed for tool "{tool.name}": {describe_error(exc)}'
                )
                is_error, override = True, None
            if override is not None:
                result, is_error = _apply_override(result, is_error, override)
        if call.closed:
            return
        self.close(call, result, is_error, terminate=call.terminate or result.terminate)

    def updater(self, call: _Call) -> Callable[[AgentToolResult], None]:
        """The ``on_update`` given to a tool: dropped once the tool has settled; thread-safe."""
        tool_call = call.tool_call

        def deliver(partial: AgentToolResult) -> None:
            if not call.settled:
                self.emit(ToolExecutionUpdate(tool_call.id, tool_call.name, call.args, partial))

        def on_update(partial: AgentToolResult) -> None:
            if threading.get_ident() == self.loop_thread:
                deliver(partial)
            elif not call.settled:
                self.loop.call_soon_threadsafe(deliver, partial)

        return on_update

    async def wait_for(self, running: list[tuple[_Call, asyncio.Task[None]]]) -> None:
        """Wait for running calls; after an abort, give them the grace period, then cancel."""
        tasks = [task for _, task in running]
        everything = asyncio.gather(*tasks, return_exceptions=True)
        aborted = asyncio.ensure_future(self.signal.wait())
        try:
            await asyncio.wait((everything, aborted), return_when=asyncio.FIRST_COMPLETED)
            if not everything.done():
                await asyncio.wait((everything,), timeout=self.config.abort_grace)
            if not everything.done():
                for task in tasks:
                    task.cancel()
                await asyncio.wait((everything,), timeout=self.config.abort_grace)
        finally:
            aborted.cancel()
        for call, task in running:
            if call.closed:
                continue
            if self.signal.aborted:
                message = (
                    f'Tool "{call.tool_call.name}" was aborted before it finished '
                    f"(it was cancelled after the {self.config.abort_grace:g}s grace period)."
                )
            elif task.done() and not task.cancelled() and task.exception() is not None:
                message = f"Tool execution failed: {describe_error(task.exception())}"
            else:
                message = f'Tool "{call.tool_call.name}" was cancelled before it finished.'
            call.settled = True
            self.close_with_error(call, message)

    def close_with_error(self, call: _Call, message: str, *, terminate: bool = False) -> _Call:
        """Close ``call`` with an error of the pipeline's own; capped like a tool's result, as
        it may quote what the model sent (invalid arguments)."""
        config = self.config
        result = cap_result(
            _error_result(message), config.max_result_lines, config.max_result_bytes
        )
        self.close(call, result, True, terminate=terminate)
        return call

    def close(
        self, call: _Call, result: AgentToolResult, is_error: bool, *, terminate: bool
    ) -> None:
        call.closed = True
        call.result = result
        call.is_error = is_error
        call.terminate = terminate
        self.emit(ToolExecutionEnd(call.tool_call.id, call.tool_call.name, result, is_error))

    def report(self, call: _Call) -> ToolResultMessage:
        result = call.result
        assert result is not None
        message = ToolResultMessage(
            call.tool_call.id,
            call.tool_call.name,
            result.content,
            result.details,
            call.is_error,
            result.added_tool_names or None,
            time.time(),
        )
        self.emit(MessageStart(message))
        self.emit(MessageEnd(message))
        return message


def _being_cancelled() -> bool:
    """Whether the running task itself is being cancelled (not just a tool's own future)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _error_result(message: str) -> AgentToolResult:
    return AgentToolResult([TextContent(message)])


def _apply_override(
    result: AgentToolResult, is_error: bool, override: AfterToolCallResult
) -> tuple[AgentToolResult, bool]:
    if not isinstance(override, AfterToolCallResult):
        message = (
            f"after_tool_call hook returned {type(override).__name__}; "
            "expected AfterToolCallResult or None."
        )
        return _error_result(message), True
    updated = AgentToolResult(
        result.content if override.content is None else override.content,
        result.details if override.details is None else override.details,
        result.terminate if override.terminate is None else override.terminate,
        result.added_tool_names,
    )
    return updated, is_error if override.is_error is None else override.is_error


_PLAIN_ERRORS: tuple[type[BaseException], ...] = (Exception, RuntimeError, ToolError, AbortError)


def describe_error(error: BaseException | None) -> str:
    """An exception as one line for the model: the message, prefixed by the type when it helps."""
    if error is None:
        return "unknown error"
    text = str(error).strip()
    if type(error) in _PLAIN_ERRORS or isinstance(error, ToolError):
        return text or type(error).__name__
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
