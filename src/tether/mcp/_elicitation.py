"""A person's decision over MCP elicitation (``elicitation/create``, spec 2025-06-18 and later).

When the client that made a call declared the ``elicitation`` capability, a call the gate wants
a person for is put to that client's user as a form: the message names the tool, shows the
arguments as a person should see them (secrets masked, control sequences removed) and the
reason, and the form asks for ``approve`` (a boolean) and ``digest``, pre-filled with the call's
digest. The call runs only when the answer is ``accept`` with ``approve = true`` and that very
digest; ``decline``, ``cancel``, another digest, an error or silence deny it. An approval is for
this one call, never for the session.

Two transports of the same question: on a connection with a back-channel (protocol versions up
to 2025-11-25) the server sends ``elicitation/create`` while the call waits. On 2026-07-28 and
later there is none: the call returns an ``InputRequiredResult`` carrying the elicitation and an
opaque ``request_state``, and the client retries the call with the answer. That state is
one-shot and expires: it is bound to the digest of the call it was issued for, and a retry with
a spent, unknown, expired or other call's state is denied. A client without the capability is
never asked: its call is denied with :data:`NO_APPROVAL_CHANNEL` as the reason.
"""

from __future__ import annotations

import contextvars
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tether.gate import ApprovalRequest, Decision, render_request

if TYPE_CHECKING:
    import mcp_types
    from mcp.server import ServerRequestContext

__all__ = [
    "APPROVAL_INPUT",
    "CURRENT_CALL",
    "ElicitationApprover",
    "ElicitingCall",
    "client_can_elicit",
]

APPROVAL_INPUT = "tether_approval"
"""The key of the elicitation in an ``InputRequiredResult``'s ``input_requests``."""
STATE_SECONDS = 300.0
"""How long an issued ``request_state`` may be answered."""


def client_can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


@dataclass
class ElicitingCall:
    """One ``tools/call`` being decided: its request and, when the approver needs the client to
    retry with an answer, the ``InputRequiredResult`` to return instead of a result."""

    ctx: ServerRequestContext[Any]
    params: mcp_types.CallToolRequestParams
    input_required: mcp_types.InputRequiredResult | None = None


CURRENT_CALL: contextvars.ContextVar[ElicitingCall | None] = contextvars.ContextVar(
    "tether_mcp_call", default=None
)
"""The call being decided (each call runs in a task of its own)."""


@dataclass
class ElicitationApprover:
    """Asks the user of the client whose call is :data:`CURRENT_CALL`."""

    clock: Callable[[], float] = time.time
    issued: dict[str, tuple[str, float]] = field(default_factory=dict)
    """Per open ``request_state``: the digest it was issued for and until when."""

    async def confirm(self, request: ApprovalRequest) -> Decision:
        call = CURRENT_CALL.get()
        if call is None or not client_can_elicit(call.ctx):
            return "deny_once"
        if call.ctx.session.can_send_request:
            result = await call.ctx.session.elicit_form(
                _message(request), _schema(request.digest), related_request_id=call.ctx.request_id
            )
            return _decision(result, request.digest)
        state = call.params.request_state
        if state is not None:
            return self._redeem(state, call.params, request.digest)
        self._issue(call, request)
        return "deny_once"

    def _issue(self, call: ElicitingCall, request: ApprovalRequest) -> None:
        import mcp_types as types

        now = self.clock()
        self.issued = {s: v for s, v in self.issued.items() if v[1] >= now}
        state = secrets.token_urlsafe(24)
        self.issued[state] = (request.digest, now + STATE_SECONDS)
        elicit = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=_message(request), requested_schema=_schema(request.digest)
            )
        )
        call.input_required = types.InputRequiredResult(
            input_requests={APPROVAL_INPUT: elicit}, request_state=state
        )

    def _redeem(self, state: str, params: mcp_types.CallToolRequestParams, digest: str) -> Decision:
        """The answer carried by a retry: only for the state's own call, once, in time."""
        issued = self.issued.pop(state, None)
        if issued is None or issued[0] != digest or self.clock() > issued[1]:
            return "deny_once"
        answer = (params.input_responses or {}).get(APPROVAL_INPUT)
        return _decision(answer, digest)


def _message(request: ApprovalRequest) -> str:
    return (
        "tether asks you to approve one tool call (it runs once if you approve it).\n"
        f"{render_request(request)}"
    )


def _schema(digest: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "approve": {"type": "boolean", "title": "Approve", "description": "Run it once."},
            "digest": {
                "type": "string",
                "title": "Digest",
                "description": "The digest of the call you approve (keep it as it is).",
                "default": digest,
            },
        },
        "required": ["approve", "digest"],
    }


def _decision(answer: Any, digest: str) -> Decision:
    content = getattr(answer, "content", None) or {}
    approved = (
        getattr(answer, "action", None) == "accept"
        and content.get("approve") is True
        and content.get("digest") == digest
    )
    return "allow_once" if approved else "deny_once"
