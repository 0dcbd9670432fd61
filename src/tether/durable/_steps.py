"""A run's checkpoints: each model call one step; the facts of its tool calls, few writes.

:class:`DurableRun` wraps what the existing loop is given — its ``stream_fn``, its
``before_tool_call`` hook and each tool's ``execute`` — so the loop itself is unchanged. Inside
a DBOS workflow each model call is a step: on recovery DBOS returns the recorded message instead
of asking again, so the model is never asked again for a turn that completed.

A tool call has two facts: *decided* (the gate's verdict, who decided, the reason, the digest)
and *executed* (its result or error); a call that needs a person has a third, *asked* (what the
person is shown), written before the run parks. They are kept in memory and written together,
as one step (:data:`FACTS_STEP`), at the last moment the guarantees allow:

- before a call of a tool that is not :data:`~tether.agent.IDEMPOTENT` runs — its decision must
  be on record first, so that a recovery knows it may have run;
- before each model call (the results the model is shown are on record), before the run parks
  for a person, and when the run ends.

So consecutive calls cost one write each (a call's decision with the previous call's result),
and the read-only calls of one turn one write together. A (re)started run first reads the facts
earlier processes recorded (a read, not a step): a call whose result is on record returns it
without running; a call whose decision is on record without a result was cut off, and is
answered ``interrupted`` (it may have run) unless its tool is idempotent, in which case it runs
again. A call of an idempotent tool cut off before any write is decided and run again.

A decision on record is final: the gate is not asked again, since its verdict may differ in
another process (the shell policy's work budget, a reviewer's answer), and with it the steps
that follow. A call a person was asked about replays the person's wait from the record — the
same steps, in the same order — or, cut off while waiting, waits again without the gate.
"""

from __future__ import annotations

import asyncio
import contextvars
import pickle
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final

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
from tether.gate import (
    ApprovalRequest,
    Decision,
    Gate,
    GateRecord,
    action_digest,
    persons_answer_reason,
)
from tether.session import INTERRUPTED_CALL

__all__ = [
    "COMPACTION_STEP",
    "FACTS_STEP",
    "MODEL_STEP",
    "STEPS_FORMAT",
    "DurableRun",
    "call_digest",
]

STEPS_FORMAT: Final = "facts-2"
"""The shape of a run's steps, kept in its record: a run recorded in another shape (the first
design's ``tether.tool_decided``/``tether.tool_executed``, or ``facts-1``, which had no
*asked* fact and asked the gate again on recovery) cannot be replayed by this code."""

MODEL_STEP: Final = "tether.model_turn"
COMPACTION_STEP: Final = "tether.compaction_summary"
"""A compaction's summary request: recorded, so a recovery never asks for it again."""
FACTS_STEP: Final = "tether.tool_facts"
"""The step that records ``{"decided": {call: decision}, "executed": {call: outcome}}``."""


def call_digest(name: str, args: Any) -> str:
    """The digest an approval binds to: the tool and its validated arguments. (Switch to the
    gate's own record of it once :class:`~tether.gate.ApprovalRequest` carries it.)"""
    if hasattr(args, "model_dump"):
        args = args.model_dump(mode="json")
    return action_digest(name, dict(args) if isinstance(args, dict) else {"value": args})


@DBOS.step(name=MODEL_STEP)
async def _model_turn(ask: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
    return await ask()


@DBOS.step(name=COMPACTION_STEP)
async def _compaction_summary(ask: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
    return await ask()


@DBOS.step(name=FACTS_STEP)
def _record_facts(facts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A synchronous step: its check and its write are one trip to a thread, not two."""
    return facts


FACT_KINDS: Final = ("decided", "executed", "asked")


def _no_facts() -> dict[str, dict[str, Any]]:
    return {kind: {} for kind in FACT_KINDS}


@dataclass
class DurableRun:
    """The per-run state the wrappers share. Only model turns and fact writes are steps, and
    a write happens at points fixed by the calls (not by when a tool finishes), so the order of
    the steps — and with it recovery — is the same in every process, also when the calls of a
    batch run in parallel."""

    gate: Gate
    interrupted: set[str] = field(default_factory=set)
    """Calls answered ``interrupted`` in this run."""
    expired: set[str] = field(default_factory=set)
    """Calls whose approval wait ran out (set by the durable approver)."""
    current_call: str = ""
    current_digest: str = ""
    writes: int = 0
    """Fact steps this process wrote or replayed (what the bench counts)."""
    _recorded: dict[str, dict[str, Any]] | None = None
    _pending: dict[str, dict[str, Any]] = field(default_factory=_no_facts)
    _idempotent: dict[str, bool] = field(default_factory=dict)
    _unwritten: set[str] = field(default_factory=set)
    """Calls whose decision is not on record yet."""
    _writing: asyncio.Future[None] | None = None
    _reading: asyncio.Task[dict[str, dict[str, Any]]] | None = None
    ask_person: Callable[[ApprovalRequest], Awaitable[Decision]] | None = None
    """The run's durable approver (set by the workflow): how a recorded wait is replayed."""

    async def recorded(self) -> dict[str, dict[str, Any]]:
        """What earlier processes recorded of this run's calls, read once (callers that come
        while it is read wait for it). Read outside the workflow's context: a read inside it
        would itself be a step, replayed as it first was."""
        if self._recorded is None:
            if self._reading is None:
                self._reading = asyncio.create_task(
                    _read_facts(DBOS.workflow_id), context=contextvars.Context()
                )
            self._recorded = await self._reading
        return self._recorded

    def note_asking(self, call_id: str, asked: dict[str, Any]) -> None:
        """A person is about to be asked about ``call_id`` (written with the next write)."""
        self._pending["asked"][call_id] = asked

    async def flush(self) -> None:
        """Write every fact kept in memory (one step; none when there are none)."""
        while self._writing is not None or any(self._pending.values()):
            await self._write()

    async def _write(self) -> None:
        """Start one write of what is kept, or wait for the one under way (calls of one batch
        that start together share a write)."""
        if self._writing is None:
            pending, self._pending = self._pending, _no_facts()
            if not any(pending.values()):
                return
            self.writes += 1
            self._writing = asyncio.ensure_future(self._record(pending))
        writing = self._writing
        await asyncio.wait((writing,))
        if not writing.cancelled() and writing.exception() is not None:
            raise writing.exception()  # type: ignore[misc]

    async def _record(self, facts: dict[str, dict[str, Any]]) -> None:
        try:
            await asyncio.to_thread(_record_facts, facts)  # the DBOS context goes with it
        except BaseException:  # kept for the next write: a call runs only once on record
            for kind, kept in facts.items():
                self._pending[kind] = {**kept, **self._pending[kind]}
            raise
        else:
            self._unwritten.difference_update(facts["decided"])
        finally:
            self._writing = None

    def stream(self, inner: StreamFn, *, summary: bool = False) -> StreamFn:
        """``inner`` as one step per model call: the final message is what is checkpointed
        (a :data:`COMPACTION_STEP` when ``summary``: the compactor's requests)."""
        step = _compaction_summary if summary else _model_turn

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

            await self.recorded()
            await self.flush()
            message = await step(ask)
            if message.failed:
                yield StreamError(message, message)
            else:
                yield StreamDone(message, message)

        return durable_stream

    def before_tool_call(self, inner: BeforeToolCallHook) -> BeforeToolCallHook:
        """The gate's decision, kept as the call's *decided* fact (the recorded one on
        recovery); written before the call runs unless its tool is idempotent."""

        async def decided(
            ctx: BeforeToolCallContext, signal: AbortSignal
        ) -> BeforeToolCallResult | None:
            recorded = await self.recorded()
            call = ctx.tool_call
            self.current_call, self.current_digest = call.id, call_digest(call.name, ctx.args)
            decision = recorded["decided"].get(call.id)
            asked = recorded["asked"].get(call.id)
            if asked is not None:  # the person's wait: replayed, or waited for again
                assert self.ask_person is not None
                answer = await self.ask_person(_request_again(call.id, asked))
                decision = decision or _persons_decision(call.id, asked, answer, self.expired)
            if decision is None:
                decision = await self._judge(inner, ctx, signal)
            else:
                self._show_in_the_log(decision)
            self._pending["decided"][call.id] = decision
            self._unwritten.add(call.id)
            if not decision["block"]:
                return None
            return BeforeToolCallResult(True, decision["reason"], decision["terminate"])

        return decided

    async def _judge(
        self, gate: BeforeToolCallHook, ctx: BeforeToolCallContext, signal: AbortSignal
    ) -> dict[str, Any]:
        """The gate's decision on a call that has none on record."""
        call = ctx.tool_call
        result = gate(ctx, signal)
        outcome = await result if isinstance(result, Awaitable) else result
        records = self.gate.records
        record = records[-1] if records and records[-1].tool_call_id == call.id else None
        reason = outcome.reason if outcome is not None else None
        if call.id in self.expired:
            reason = EXPIRED_REASON
        return {
            "tool_call_id": call.id,
            "tool_name": call.name,
            "digest": self.current_digest,
            "block": bool(outcome and outcome.block),
            "terminate": bool(outcome and outcome.terminate),
            "reason": reason,
            "verdict": record.verdict if record else None,
            "decided_by": record.decided_by if record else None,
            "record_reason": record.reason if record else None,
        }

    def _show_in_the_log(self, decision: dict[str, Any]) -> None:
        """A recorded decision by a person or the reviewer, in the gate's audit trail again
        (the session log, written anew on recovery, shows it as the first process did)."""
        if decision.get("decided_by") not in ("approver", "reviewer", "session"):
            return
        self.gate.records.append(
            GateRecord(
                tool_call_id=decision["tool_call_id"],
                tool_name=decision["tool_name"],
                verdict=decision.get("verdict") or "approve",
                outcome="denied" if decision["block"] else "allowed",
                decided_by=decision["decided_by"],
                reason=decision.get("record_reason") or decision.get("reason") or "",
                digest=decision["digest"],
            )
        )

    def tool(self, tool: AgentTool) -> AgentTool:
        """``tool`` whose outcome is the call's *executed* fact."""
        idempotent = bool(tool.metadata.get(IDEMPOTENT))
        self._idempotent[tool.name] = idempotent
        execute = tool.execute

        async def executed(
            call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
        ) -> AgentToolResult | str:
            recorded = await self.recorded()
            while not idempotent and call_id in self._unwritten:
                await self._write()  # on record before it runs: it may have run (also when
                # replayed, so that the writes, and with them the steps, come as they first did)
            outcome = recorded["executed"].get(call_id)
            if outcome is None:
                if call_id in recorded["decided"] and not idempotent:
                    outcome = {"error": INTERRUPTED_CALL, "interrupted": True}
                else:
                    outcome = await _run(execute, call_id, params, signal, on_update)
            self._pending["executed"][call_id] = outcome
            if outcome.get("interrupted"):
                self.interrupted.add(call_id)
            if "error" in outcome:
                raise ToolError(outcome["error"], details=outcome.get("details"))
            result: AgentToolResult = outcome["result"]
            return result

        return replace(tool, execute=executed)


EXPIRED_REASON: Final = "Denied: nobody answered the approval before it expired."


async def _read_facts(run_id: str | None) -> dict[str, dict[str, Any]]:
    facts = _no_facts()
    if run_id:
        for step in await DBOS.list_workflow_steps_async(run_id):
            output = step["output"]
            if step["function_name"] == FACTS_STEP and isinstance(output, dict):
                for kind in FACT_KINDS:
                    facts[kind].update(output.get(kind, {}))
    return facts


def _request_again(call_id: str, asked: dict[str, Any]) -> ApprovalRequest:
    """The request a person was (or is being) asked, as the record keeps it."""
    return ApprovalRequest(
        tool_name=asked["tool_name"],
        args=asked.get("args") or {},
        reason=asked.get("reason") or "",
        digest=asked["digest"],
        tool_call_id=call_id,
    )


def _persons_decision(
    call_id: str, asked: dict[str, Any], answer: Decision, expired: set[str]
) -> dict[str, Any]:
    """The decision a person's answer makes (the gate's wording), for a wait that was cut off
    before its decision was written."""
    allowed = answer in ("allow_once", "allow_session")
    said = persons_answer_reason(answer, asked.get("reason") or "")
    reason = None if allowed else said
    if call_id in expired:
        reason = EXPIRED_REASON
    return {
        "tool_call_id": call_id,
        "tool_name": asked["tool_name"],
        "digest": asked["digest"],
        "block": not allowed,
        "terminate": False,
        "reason": reason,
        "verdict": "approve",
        "decided_by": "approver",
        "record_reason": said if allowed else reason,
    }


async def _run(
    execute: Callable[..., Awaitable[AgentToolResult | str]],
    call_id: str,
    params: Any,
    signal: AbortSignal,
    on_update: UpdateCallback | None,
) -> dict[str, Any]:
    try:
        output = await execute(call_id, params, signal, on_update)
    except ToolError as exc:
        return {"error": str(exc), "details": _picklable(exc.details)}
    except Exception as exc:  # recorded too: a recovery shows the model the same failure
        return {"error": f"{type(exc).__name__}: {exc}", "details": None}
    if isinstance(output, str):
        output = AgentToolResult([TextContent(output)])
    return {"result": replace(output, details=_picklable(output.details))}


def _picklable(details: Any) -> Any:
    """What a result's details can be checkpointed as: themselves, or nothing."""
    try:
        pickle.dumps(details)
    except Exception:
        return None
    return details
