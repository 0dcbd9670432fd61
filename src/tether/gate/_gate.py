"""``Gate``: decides, for every tool call, whether it runs — before it runs.

Plugged into the loop as ``before_tool_call`` (and ``after_tool_call`` for what leaves the system).
Decision order (``docs/governance.md``, "The gate"): deterministic checks (the tool's
``check``/``policy_check``: shell and path policies) → ``deny`` is final in every mode → the mode
decides who may approve the rest. A policy's ``allow`` that holds for a rewritten form of the
arguments (``Verdict.prepared``: the shell policy's script regenerated from what it proved) puts
that form in place of the model's before the tool runs:

- ``strict``: only ``allow`` runs;
- ``normal``: ``approve``, ``default_confirm`` and ``confirm=true`` ask the approver (a sandboxed
  tool's ``approve``-class calls run unasked: the sandbox is the guard — but not a call its
  ``Governance.needs_person`` names, such as a git command that writes the repository: that one
  asks a person in every mode but ``yolo``, and the reviewer never decides it);
- ``review``: ``approve``-class calls go to the AI reviewer, which may only allow or escalate to
  the approver; forced confirmations skip it;
- ``yolo``: only forced confirmations ask.

An ``approve`` the policy could not finish judging (``Verdict.needs_person``: a script too complex
to prove, where a ``deny`` may hide) counts as a forced confirmation: a person is asked in every
mode, ``yolo`` included, and ``strict`` denies it.

Session memory (``allow_session``/``deny_session``) is keyed by the tool and what the call does,
never by the tool name alone. No approver, closed input, timeout or an approver error = deny.
A denial is an ordinary ``is_error`` tool result carrying the reason, so the model can adapt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import posixpath
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, TypeAlias, get_args

import pydantic

from tether.agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentTool,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from tether.ai import AbortSignal, TextContent

from ._approval import ApprovalRequest, Approver, Decision, persons_answer_reason
from ._governance import (
    CONFIRM_PROPERTY,
    Governance,
    Policies,
    action_digest,
    is_confirm_forced,
    project_for_review,
    review_exposure,
)
from ._path_policy import PathPolicy, PathResolver
from ._redaction import UntrustedBoundary, project_error, redact_secrets, sanitize_for_display
from ._reviewer import ReviewAction, Reviewer
from ._shell import ShellPolicy
from ._verdict import PolicyDecision, Verdict, strictest

__all__ = ["MODES", "MODE_DESCRIPTIONS", "Gate", "GateRecord", "Mode"]

_log = logging.getLogger("tether.gate")

Mode: TypeAlias = Literal["strict", "normal", "review", "yolo"]
MODES: tuple[Mode, ...] = get_args(Mode)
"""The gate modes, strictest first."""
MODE_DESCRIPTIONS: Mapping[Mode, str] = {
    "strict": "only calls the policies allow run; anything needing approval is denied",
    "normal": "calls that need approval ask you (in the sandbox, bash runs unasked)",
    "review": "an AI reviewer may allow calls that need approval; otherwise you are asked",
    "yolo": "everything the policies do not deny runs unasked, except forced confirmations",
}
"""What each mode does, in one line (the terminal's ``/gate``)."""

_DIGEST_SHOWN_TO = frozenset({"approver", "session", "reviewer", "no_approver"})
"""Deciders whose records always carry the digest: the ones an audit trail shows."""


@dataclass(frozen=True, slots=True)
class GateRecord:
    """One decision, for the audit trail in :attr:`Gate.records`."""

    tool_call_id: str
    tool_name: str
    verdict: PolicyDecision
    outcome: Literal["allowed", "denied"]
    decided_by: str
    """``policy``, ``mode``, ``sandbox``, ``session``, ``reviewer``, ``approver``, or
    ``no_approver`` (a person was needed but none is configured)."""
    reason: str
    digest: str | None = None
    """The digest the decision binds to (:func:`action_digest` of ``args``), the one a person or
    the reviewer was shown; set whenever one of them was involved (``None`` only for calls the
    policy, the mode or the sandbox decided alone, whose digest was never needed)."""
    args: Mapping[str, Any] | None = None
    """The validated arguments the gate judged, as the tool receives them."""


class Gate:
    """The governance gate. ``gate.before_tool_call`` is a ``before_tool_call`` hook."""

    def __init__(
        self,
        mode: Mode = "normal",
        approver: Approver | None = None,
        reviewer: Reviewer | None = None,
        workspace: str | None = None,
        *,
        shell_policy: ShellPolicy | None = None,
        path_policy: PathPolicy | None = None,
        path_resolver: PathResolver | None = None,
        ungoverned: PolicyDecision = "approve",
        approval_timeout: float | None = 300.0,
        redact_results: bool = True,
        untrusted_boundary: UntrustedBoundary | None = None,
        no_approver_hint: str | None = None,
        forced_hint: str | None = None,
    ) -> None:
        if mode not in get_args(Mode):
            raise ValueError(f"Unknown gate mode {mode!r}; use one of {', '.join(get_args(Mode))}.")
        self.mode: Mode = mode
        self.approver = approver
        self.reviewer = reviewer
        if path_resolver is None:
            self.workspace = os.path.realpath(workspace or os.getcwd())
        elif workspace is None or not posixpath.isabs(workspace):
            raise ValueError("With a path_resolver, the workspace is an absolute path on its host.")
        else:
            self.workspace = posixpath.normpath(workspace)
        """Where the tools work; with a ``path_resolver`` a path on its host, as given (the path
        policy resolves it there)."""
        paths = path_policy or PathPolicy(self.workspace, resolver=path_resolver)
        self.policies = Policies(shell=shell_policy or ShellPolicy(path_policy=paths), paths=paths)
        self.ungoverned = ungoverned
        self.approval_timeout = approval_timeout
        self.redact_results = redact_results
        self.untrusted_boundary = untrusted_boundary
        self.no_approver_hint = no_approver_hint
        """What a denial for want of an approver tells (e.g. a command's flags); ``None``: how
        to configure one in code."""
        self.forced_hint = forced_hint
        """The same for a call that asks in every mode, yolo included (``default_confirm``,
        ``confirm=true``), where advice to change the mode would be wrong; ``None``:
        ``no_approver_hint``."""
        self.records: list[GateRecord] = []
        self._session: dict[str, Literal["allow", "deny"]] = {}

    def retarget(self, workspace: str, path_resolver: PathResolver) -> None:
        """Judge paths for ``workspace`` (absolute, on the resolver's host) from the next call
        on: the tools now work there (the model selected another hand). Session memory stays;
        the tools that need it apart per host key it so."""
        if not posixpath.isabs(workspace):
            raise ValueError("With a path_resolver, the workspace is an absolute path on its host.")
        self.workspace = posixpath.normpath(workspace)
        paths = PathPolicy(self.workspace, resolver=path_resolver)
        self.policies = Policies(shell=ShellPolicy(path_policy=paths), paths=paths)

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | None:
        call = _Call(ctx)
        tool = _find_tool(ctx.context.tools, call.name)
        governance, verdict = await self._verdict(call, tool)
        default_confirm = governance is not None and governance.default_confirm
        explicit_confirm = is_confirm_forced(ctx.tool_call.arguments, call.args)
        unjudged = verdict.decision == "approve" and verdict.needs_person
        forced = default_confirm or explicit_confirm or unjudged
        reason = "; ".join(verdict.reasons)

        if verdict.decision == "deny":
            return self._deny(call, verdict, "policy", f"Denied by policy: {reason}")
        person = self._needs_person(call, governance)
        needs_approval = verdict.decision == "approve"
        if not needs_approval and not forced and person is None:
            self._allow(call, verdict, "policy", reason)
            return None
        policy_reason = "; ".join(r for r in (reason if needs_approval else "", person) if r)
        why = _why_asking(policy_reason, default_confirm, explicit_confirm, unjudged)
        if self.mode == "strict":
            return self._deny(
                call, verdict, "mode", f"Denied: strict mode never asks for approval ({why})."
            )
        if not forced:
            if self.mode == "yolo":
                self._allow(call, verdict, "mode", "yolo mode")
                return None
            sandboxed = governance is not None and governance.sandboxed
            if self.mode == "normal" and sandboxed and person is None:
                self._allow(call, verdict, "sandbox", "runs inside the sandbox")
                return None
        key = self._memory_key(call, governance)
        remembered = None if explicit_confirm else self._session.get(key)
        if remembered == "allow":
            self._allow(call, verdict, "session", "allowed for this session")
            return None
        if remembered == "deny":
            return self._deny(
                call, verdict, "session", "Denied: a person denied this for the session."
            )
        reviewable = self.mode == "review" and not forced and person is None
        asking = _Asking(call, verdict, governance, why, key, forced=forced)
        return await self._ask_reviewer_then_person(ctx, tool, asking, reviewable=reviewable)

    async def _verdict(
        self, call: _Call, tool: AgentTool | None
    ) -> tuple[Governance | None, Verdict]:
        """The tool's governance and its deterministic verdict on the call (an ungoverned tool
        gets :attr:`ungoverned`)."""
        governance = tool.metadata.get("governance") if tool is not None else None
        if not isinstance(governance, Governance):
            return None, Verdict(self.ungoverned, (f'Tool "{call.name}" declares no governance',))
        verdict = await self.policies.paths.judge(
            partial(self._deterministic_verdict, call, governance)
        )
        return governance, call.substitute(verdict)

    async def _ask_reviewer_then_person(
        self,
        ctx: BeforeToolCallContext,
        tool: AgentTool | None,
        asking: _Asking,
        *,
        reviewable: bool,
    ) -> BeforeToolCallResult | None:
        """The reviewer first where it may decide (it can only allow or escalate), then the
        approver; no approver denies with advice."""
        call, verdict, why = asking.call, asking.verdict, asking.why
        if reviewable and self.reviewer is not None:
            outcome = await self.reviewer.review(self._review_action(ctx, call, tool))
            if outcome.decision == "allow":
                self._allow(call, verdict, "reviewer", outcome.reason_code)
                return None
            cause = outcome.escalated_because or outcome.reason_code
            why = f"{why}; the reviewer escalated ({cause})"
        if self.approver is None:
            hint = self.forced_hint if asking.forced and self.forced_hint else None
            reason = _no_approver_reason(why, hint or self.no_approver_hint)
            return self._deny(call, verdict, "no_approver", reason)
        governance = asking.governance
        shown = self._shown(call.args, owns_confirm=governance is None or governance.owns_confirm)
        decision = await self._ask(
            self.approver, ApprovalRequest(call.name, shown, why, call.digest, call.id)
        )
        if decision in ("allow_session", "deny_session"):
            self._session[asking.key] = "allow" if decision == "allow_session" else "deny"
        if decision in ("allow_once", "allow_session"):
            self._allow(call, verdict, "approver", persons_answer_reason(decision, why))
            return None
        return self._deny(call, verdict, "approver", persons_answer_reason(decision, why))

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | None:
        """What leaves the system: secrets masked, error paths projected, optional boundary."""
        changed = False
        content: list[Any] = []
        for block in ctx.result.content:
            if isinstance(block, TextContent):
                text = block.text
                if self.redact_results:
                    text = redact_secrets(text)
                if ctx.is_error:
                    text = project_error(text, workspace=self.workspace)
                if self.untrusted_boundary is not None:
                    text = self.untrusted_boundary.wrap(text)
                changed = changed or text != block.text
                content.append(TextContent(text))
            else:
                content.append(block)
        return AfterToolCallResult(content=content) if changed else None

    def _deterministic_verdict(self, call: _Call, governance: Governance) -> Verdict:
        return strictest(
            [self._run_check(call, governance), self._run_policy_check(call, governance)]
        )

    def _needs_person(self, call: _Call, governance: Governance | None) -> str | None:
        """Why this call needs a person whatever the sandbox or the reviewer would say."""
        if governance is None or governance.needs_person is None:
            return None
        try:
            return governance.needs_person(call.args, self.policies)
        except Exception as exc:
            return f'the check of tool "{call.name}" for a person failed ({type(exc).__name__})'

    def _run_check(self, call: _Call, governance: Governance) -> Verdict | None:
        if governance.check is None:
            return None
        try:
            return governance.check(call.args)
        except Exception as exc:
            return Verdict.deny(f'The check of tool "{call.name}" failed ({type(exc).__name__}).')

    def _run_policy_check(self, call: _Call, governance: Governance) -> Verdict | None:
        if governance.policy_check is None:
            return None
        try:
            return governance.policy_check(call.args, self.policies)
        except Exception as exc:
            return Verdict.deny(
                f'The policy check of tool "{call.name}" failed ({type(exc).__name__}).'
            )

    def _memory_key(self, call: _Call, governance: Governance | None) -> str:
        if governance is not None and governance.action_key is not None:
            try:
                return f"{call.name}\x00{governance.action_key(call.args, self.policies)}"
            except Exception:
                _log.exception("action_key of %s failed; using the exact arguments", call.name)
        return f"{call.name}\x00{call.digest}"

    def _review_action(
        self, ctx: BeforeToolCallContext, call: _Call, tool: AgentTool | None
    ) -> ReviewAction:
        schema = tool.metadata.get("review_schema") if tool is not None else None
        try:
            exposure = review_exposure(schema) if isinstance(schema, Mapping) else {}
        except ValueError:
            exposure = {}
        projection = project_for_review(call.args, exposure)
        purpose = ctx.assistant_message.text().strip() or None
        shown = {key: _for_display(value) for key, value in projection.arguments.items()}
        return ReviewAction(call.name, shown, call.digest, purpose, projection.complete)

    def _shown(self, args: Mapping[str, Any], *, owns_confirm: bool) -> dict[str, Any]:
        """Arguments as a person sees them: secrets masked, control sequences removed, and the
        ``confirm`` the runtime injected left out (the reason says the model asked)."""
        return {
            sanitize_for_display(str(k)): _for_display(v)
            for k, v in args.items()
            if owns_confirm or k != CONFIRM_PROPERTY
        }

    async def _ask(self, approver: Approver, request: ApprovalRequest) -> Decision:
        try:
            async with asyncio.timeout(self.approval_timeout):
                decision = await approver.confirm(request)
        except TimeoutError:
            _log.warning("approval for %s timed out; denying", request.tool_name)
            return "deny_once"
        except Exception:
            _log.exception("approver failed for %s; denying", request.tool_name)
            return "deny_once"
        if decision not in ("allow_once", "allow_session", "deny_once", "deny_session"):
            return "deny_once"
        return decision

    def _allow(self, call: _Call, verdict: Verdict, by: str, reason: str) -> None:
        """Record an allowed call; the hook then returns ``None`` (let it run)."""
        self.records.append(call.record(verdict, "allowed", by, reason))

    def _deny(self, call: _Call, verdict: Verdict, by: str, reason: str) -> BeforeToolCallResult:
        self.records.append(call.record(verdict, "denied", by, reason))
        return BeforeToolCallResult(block=True, reason=reason)


class _Call:
    __slots__ = ("_digest", "_prepared", "args", "id", "name")

    def __init__(self, ctx: BeforeToolCallContext) -> None:
        self.id = ctx.tool_call.id
        self.name = ctx.tool_call.name
        self._prepared = ctx.args
        """The arguments the tool will be called with (the pipeline hands on this object)."""
        args = ctx.args
        if isinstance(args, pydantic.BaseModel):
            args = args.model_dump(mode="json")
        self.args: dict[str, Any] = dict(args) if isinstance(args, Mapping) else {"value": args}
        self._digest: str | None = None

    def substitute(self, verdict: Verdict) -> Verdict:
        """For an ``allow`` with ``prepared`` arguments: put them in place of those the tool runs
        with, so what runs is what was proved (``approve`` when the arguments cannot be changed)."""
        prepared = verdict.prepared
        if verdict.decision != "allow" or not prepared:
            return verdict
        if not isinstance(self._prepared, MutableMapping):
            reason = f'the arguments of "{self.name}" cannot be replaced by the form proved safe'
            return Verdict.approve(*verdict.reasons, reason)
        self._prepared.update(prepared)
        self.args.update(prepared)
        return verdict

    @property
    def digest(self) -> str:
        """Of the frozen arguments; computed only when a person or the reviewer is involved."""
        if self._digest is None:
            self._digest = action_digest(self.name, self.args)
        return self._digest

    def record(
        self, verdict: Verdict, outcome: Literal["allowed", "denied"], by: str, reason: str
    ) -> GateRecord:
        """The audit record of this decision, with the digest a person or the reviewer saw."""
        digest = self.digest if by in _DIGEST_SHOWN_TO else self._digest
        return GateRecord(
            self.id, self.name, verdict.decision, outcome, by, reason, digest, dict(self.args)
        )


@dataclass(frozen=True, slots=True)
class _Asking:
    """A call that needs the reviewer or a person: what was judged, and why it is asked."""

    call: _Call
    verdict: Verdict
    governance: Governance | None
    why: str
    key: str
    """What a person's ``*_session`` answer is remembered under."""
    forced: bool
    """It asks in every mode (confirmation, a tool's default, a script too complex to prove)."""


def _find_tool(tools: Sequence[AgentTool], name: str) -> AgentTool | None:
    for tool in tools:
        if tool.name == name:
            return tool
    return None


def _why_asking(
    policy_reason: str, default_confirm: bool, explicit_confirm: bool, unjudged: bool = False
) -> str:
    parts = [policy_reason] if policy_reason else []
    if unjudged:
        parts.append("the policy could not finish judging it, so a person decides in every mode")
    if default_confirm:
        parts.append("this tool always needs a person's approval")
    if explicit_confirm:
        parts.append("the model asked for confirmation (confirm=true)")
    return "; ".join(parts) or "approval required"


def _no_approver_reason(why: str, hint: str | None) -> str:
    how = hint or (
        "Pass one to the gate, e.g. Gate(mode, TerminalApprover()) or "
        "Gate(mode, ScriptedApprover([...])) for headless runs."
    )
    return (
        f"Denied: this call needs a person's approval ({why}), but no approver is configured, "
        f"so nobody was asked. {how}"
    )


def _for_display(value: Any) -> Any:
    if isinstance(value, str):
        return sanitize_for_display(redact_secrets(value))
    if isinstance(value, Mapping):
        return {sanitize_for_display(str(k)): _for_display(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_for_display(item) for item in value]
    if isinstance(value, int | float | bool) or value is None:
        return value
    return sanitize_for_display(redact_secrets(json.dumps(value, default=repr)))
