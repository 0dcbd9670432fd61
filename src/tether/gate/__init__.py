"""Governance — what the model may do. Deterministic, and fail-closed.

The model's output is untrusted input; the constraints live here, on the system side:

- :class:`Governance` and :class:`Review`: system-only facts of a tool (forced confirmation,
  deterministic checks, sandboxing) and what an AI reviewer may see of each parameter;
- :class:`Catalog`: tools by name, isolated derived views, snapshots with a digest;
- :class:`ShellPolicy` (tree-sitter-bash, never substring matching) and :class:`PathPolicy`
  (realpath, component containment, secrets, protected files) give :class:`Verdict` s; a
  :class:`PathResolver` makes the path policy resolve paths on the host where the tools run;
- :class:`Gate`: the decision order of one call, plugged in as the loop's ``before_tool_call``
  (and ``after_tool_call`` for redaction), with modes strict / normal / review / yolo;
- :class:`Reviewer`, an AI that may only allow or escalate, and the :class:`Approver` protocol
  through which a person decides (:class:`TerminalApprover`, :class:`ScriptedApprover`);
- redaction: secret masking, control-sequence stripping, error projection, untrusted boundaries.

``python -m tether.gate check-command "<cmd>"`` prints the shell policy's verdict.
"""

from ._approval import (
    ApprovalRequest,
    Approver,
    Decision,
    DenyAllApprover,
    ScriptedApprover,
    TerminalApprover,
    persons_answer_reason,
    render_request,
)
from ._catalog import Catalog, CatalogSnapshot
from ._check_command import CHECK_COMMAND_EXIT, check_command
from ._gate import MODE_DESCRIPTIONS, MODES, Gate, GateRecord, Mode
from ._governance import (
    CONFIRM_PROPERTY,
    Governance,
    Policies,
    Review,
    ReviewProjection,
    action_digest,
    govern,
    model_facing_schema,
    project_for_review,
)
from ._path_policy import PathPolicy, PathResolver
from ._protected_paths import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_ROOT_NAMES,
    protected_workspace_rule,
)
from ._redaction import (
    UntrustedBoundary,
    project_error,
    redact_secrets,
    sanitize_for_display,
    unwrap_untrusted,
)
from ._reviewer import ReviewAction, Reviewer, ReviewOutcome
from ._secret_paths import (
    CONDITIONAL_SECRET_NAMES,
    SECRET_SEARCH_GLOBS,
    holds_credentials,
    secret_path_rule,
)
from ._shell import ShellPolicy
from ._verdict import PolicyDecision, Verdict, strictest

__all__ = [
    "CHECK_COMMAND_EXIT",
    "CONDITIONAL_SECRET_NAMES",
    "CONFIRM_PROPERTY",
    "MODES",
    "MODE_DESCRIPTIONS",
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "PROTECTED_ROOT_NAMES",
    "SECRET_SEARCH_GLOBS",
    "ApprovalRequest",
    "Approver",
    "Catalog",
    "CatalogSnapshot",
    "Decision",
    "DenyAllApprover",
    "Gate",
    "GateRecord",
    "Governance",
    "Mode",
    "PathPolicy",
    "PathResolver",
    "Policies",
    "PolicyDecision",
    "Review",
    "ReviewAction",
    "ReviewOutcome",
    "ReviewProjection",
    "Reviewer",
    "ScriptedApprover",
    "ShellPolicy",
    "TerminalApprover",
    "UntrustedBoundary",
    "Verdict",
    "action_digest",
    "check_command",
    "govern",
    "holds_credentials",
    "model_facing_schema",
    "persons_answer_reason",
    "project_error",
    "project_for_review",
    "protected_workspace_rule",
    "redact_secrets",
    "render_request",
    "sanitize_for_display",
    "secret_path_rule",
    "strictest",
    "unwrap_untrusted",
]
