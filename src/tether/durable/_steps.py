"""A run's checkpoints: each model call one step, each tool call two (decided, executed).

:class:`DurableRun` wraps what the existing loop is given — its ``stream_fn``, its
``before_tool_call``/``after_tool_call`` hooks and each tool's ``execute`` — so the loop itself
is unchanged. Inside a DBOS workflow each wrapper is a step: on recovery DBOS returns the
recorded output instead of running it again, so the model is never asked again for a turn
that completed and a decision is never made twice. A call that was decided by an earlier
process but has no recorded result is answered ``interrupted`` (it may have run), unless its
tool declares itself :data:`~tether.agent.IDEMPOTENT`, in which case it runs again.
"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from dbos import DBOS

from tether.agent import (
    IDEMPOTENT,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallHook,
    BeforeToolCallResult,
    ToolError,
    UpdateCallback,
)
from tether.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamDone,
    StreamError,
    StreamFn,
    StreamOptions,
    TextContent,
)
from tether.gate import Gate, action_digest
from tether.session import INTERRUPTED_CALL

__all__ = ["ATTEMPT", "DurableRun", "call_digest"]

ATTEMPT = uuid.uuid4().hex
"""This process's mark on the decisions it records: a decision with another mark was made by a
process that stopped before the call's result was recorded."""


def call_digest(name: str, args: Any) -> str:
    """The digest an approval binds to: the tool and its validated arguments. (Switch to the
    gate's own record of it once :class:`~tether.gate.ApprovalRequest` carries it.)"""
    if hasattr(args, "model_dump"):
        args = args.model_dump(mode="json")
    return action_digest(name, dict(args) if isinstance(args, dict) else {"value": args})


@DBOS.step(name="tether.model_turn")
async def _model_turn(ask: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
    return await ask()


@DBOS.step(name="tether.tool_decided")
async def _tool_decided(decide: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return decide()


@DBOS.step(name="tether.tool_executed")
async def _tool_executed(run: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    return await run()


@dataclass
class DurableRun:
    """The per-run state the wrappers share. Tool calls run one at a time in a durable run, so
    the step order — and with it recovery — is the same in every process."""

    gate: Gate
    decided_by: dict[str, str] = field(default_factory=dict)
    """Tool-call id → the attempt that recorded its decision."""
    interrupted: set[str] = field(default_factory=set)
    """Calls answered ``interrupted`` in this run."""
    expired: set[str] = field(default_factory=set)
    """Calls whose approval wait ran out (set by the durable approver)."""
    current_call: str = ""
    current_digest: str = ""

    def stream(self, inner: StreamFn) -> StreamFn:
        """``inner`` as one step per model call: the final message is what is checkpointed."""

        async def durable_stream(
            model: Model, context: Context, options: StreamOptions
        ) -> AsyncIterator[AssistantMessageEvent]:
            async def ask() -> AssistantMessage:
                final: AssistantMessage | None = None
                async for event in inner(model, context, options):
                    if event.type in ("done", "error"):
                        final = event.message
                if final is None:
                    raise RuntimeError("the stream ended without a done or error event")
                return final

            message = await _model_turn(ask)
            if message.failed:
                yield StreamError(message, message)
            else:
                yield StreamDone(message, message)

        return durable_stream

    def before_tool_call(self, inner: BeforeToolCallHook) -> BeforeToolCallHook:
        """The gate's decision, recorded as the *decided* step (replayed on recovery)."""

        async def decided(
            ctx: BeforeToolCallContext, signal: AbortSignal
        ) -> BeforeToolCallResult | None:
            call = ctx.tool_call
            self.current_call, self.current_digest = call.id, call_digest(call.name, ctx.args)
            result = inner(ctx, signal)
            outcome = await result if isinstance(result, Awaitable) else result
            records = self.gate.records
            record = records[-1] if records and records[-1].tool_call_id == call.id else None
            reason = outcome.reason if outcome is not None else None
            if call.id in self.expired:
                reason = "Denied: nobody answered the approval before it expired."

            def decision() -> dict[str, Any]:
                return {
                    "tool_call_id": call.id,
                    "tool_name": call.name,
                    "digest": self.current_digest,
                    "block": bool(outcome and outcome.block),
                    "terminate": bool(outcome and outcome.terminate),
                    "reason": reason,
                    "verdict": record.verdict if record else None,
                    "decided_by": record.decided_by if record else None,
                    "attempt": ATTEMPT,
                }

            recorded = await _tool_decided(decision)
            self.decided_by[call.id] = recorded["attempt"]
            if not recorded["block"]:
                return None
            return BeforeToolCallResult(True, recorded["reason"], recorded["terminate"])

        return decided

    def tool(self, tool: AgentTool) -> AgentTool:
        """``tool`` whose execution is the *executed* step."""
        idempotent = bool(tool.metadata.get(IDEMPOTENT))
        execute = tool.execute

        async def executed(
            call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
        ) -> AgentToolResult | str:
            resumed = self.decided_by.get(call_id, ATTEMPT) != ATTEMPT

            async def run() -> dict[str, Any]:
                if resumed and not idempotent:
                    return {"error": INTERRUPTED_CALL, "interrupted": True}
                try:
                    output = await execute(call_id, params, signal, on_update)
                except ToolError as exc:
                    return {"error": str(exc), "details": _picklable(exc.details)}
                if isinstance(output, str):
                    output = AgentToolResult([TextContent(output)])
                return {"result": replace(output, details=_picklable(output.details))}

            recorded = await _tool_executed(run)
            if recorded.get("interrupted"):
                self.interrupted.add(call_id)
            if "error" in recorded:
                raise ToolError(recorded["error"], details=recorded.get("details"))
            result: AgentToolResult = recorded["result"]
            return result

        return replace(tool, execute=executed)


def _picklable(details: Any) -> Any:
    """What a result's details can be checkpointed as: themselves, or nothing."""
    try:
        pickle.dumps(details)
    except Exception:
        return None
    return details
