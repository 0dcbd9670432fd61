"""Governance of the built-in tools: review exposure per parameter and the policy each applies.

File tools are judged by the gate's path policy (reads inside the workspace allowed, outside need
approval, secrets denied; writes outside the workspace or to protected files denied); ``bash`` by
the shell policy, with its session-memory key being the normalised script (an ``allow`` runs in
the read-only jail where bubblewrap exists: :data:`PROVED_READ_ONLY`); a git command that
writes the repository needs a person whatever the sandbox (it then runs with ``.git`` writable).
File contents and edit texts are never shown to the AI reviewer (``redact``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Literal

from tether.agent import CAPS_OWN_RESULT, IDEMPOTENT
from tether.gate import Governance, Policies, Review, Verdict

from ._definition import ToolDefinition
from ._git_commands import git_write_reason
from ._paths import resolve_path

__all__ = ["BUILTIN_TOOL_NAMES", "PROVED_READ_ONLY", "builtin_governance", "govern_builtin"]

PROVED_READ_ONLY = "proved_read_only"
"""The argument an ``allow`` of the shell policy puts into a ``bash`` call (through
``Verdict.prepared``, in every gate mode): run this in the read-only jail. Sent by the model it
can only make a command more confined — and the gate overwrites it for every ``allow``."""

_EXPOSURE: dict[str, dict[str, Review]] = {
    "read": {"path": Review.INCLUDE, "offset": Review.INCLUDE, "limit": Review.INCLUDE},
    "write": {"path": Review.INCLUDE, "content": Review.REDACT},
    "edit": {"path": Review.INCLUDE, "edits": Review.REDACT},
    "bash": {"command": Review.INCLUDE, "timeout": Review.INCLUDE, "background": Review.INCLUDE},
    "grep": {
        "pattern": Review.INCLUDE,
        "path": Review.INCLUDE,
        "glob": Review.INCLUDE,
        "ignore_case": Review.INCLUDE,
        "literal": Review.INCLUDE,
        "context": Review.INCLUDE,
        "limit": Review.INCLUDE,
    },
    "find": {"pattern": Review.INCLUDE, "path": Review.INCLUDE, "limit": Review.INCLUDE},
    "ls": {"path": Review.INCLUDE, "limit": Review.INCLUDE},
}

BUILTIN_TOOL_NAMES = frozenset(_EXPOSURE)
"""The tools :func:`builtin_governance` knows."""

_ACCESS: dict[str, Literal["read", "write"]] = {
    "read": "read",
    "grep": "read",
    "find": "read",
    "ls": "read",
    "write": "write",
    "edit": "write",
}


def govern_builtin(definition: ToolDefinition, cwd: str) -> ToolDefinition:
    """``definition`` with ``x-review`` on every parameter and its :class:`Governance`, marked
    as capping its own results (the pipeline's cap would cut off its notices)."""
    name = definition.name
    exposure = _EXPOSURE[name]
    schema = dict(definition.parameters) if isinstance(definition.parameters, dict) else {}
    properties = {
        key: {**spec, "x-review": exposure[key].value}
        for key, spec in schema.get("properties", {}).items()
    }
    sandboxed = bool(definition.metadata.get("sandboxed", False))
    governance = builtin_governance(name, cwd, sandboxed=sandboxed)
    metadata = {**definition.metadata, CAPS_OWN_RESULT: True}  # each cuts with its own notice
    if _ACCESS.get(name) == "read":
        metadata[IDEMPOTENT] = True  # a durable run may run it again after a crash
    return replace(
        definition,
        parameters={**schema, "properties": properties},
        governance=governance,
        metadata=metadata,
    )


def builtin_governance(name: str, cwd: str, *, sandboxed: bool = False) -> Governance:
    """The governance of the built-in tool ``name`` working in ``cwd`` (a hand's tools are
    governed with it on the caller's side too); ``KeyError`` for a name that is not built in."""
    if name == "bash":
        return Governance(
            policy_check=_classify_command,
            action_key=_normalised_command,
            sandboxed=sandboxed,
            needs_person=_bash_needs_person,
        )
    return Governance(policy_check=_path_check(cwd, _ACCESS[name]))


def _path_check(
    cwd: str, access: Literal["read", "write"]
) -> Callable[[Mapping[str, Any], Policies], Verdict | None]:
    def check(args: Mapping[str, Any], policies: Policies) -> Verdict:
        raw = args.get("path")
        path = resolve_path(raw if isinstance(raw, str) and raw else ".", cwd)
        return policies.paths.check(path, access)

    return check


def _classify_command(args: Mapping[str, Any], policies: Policies) -> Verdict:
    """The shell policy's verdict; an ``allow`` also prepares :data:`PROVED_READ_ONLY`, so the
    gate hands the tool, with the script it proved, the word to run it in the read-only jail."""
    verdict = policies.shell.classify(str(args.get("command", "")))
    if verdict.decision != "allow":
        return verdict
    return replace(verdict, prepared={**(verdict.prepared or {}), PROVED_READ_ONLY: True})


def _bash_needs_person(args: Mapping[str, Any], policies: Policies) -> str | None:
    """A git write, or a background command the shell policy does not prove read-only: such a
    process outlives the turn the person saw, so neither the sandbox nor the reviewer decides."""
    command = str(args.get("command", ""))
    reasons = [git_write_reason(command)]
    if args.get("background") is True:
        verdict = policies.shell.classify(command)
        if verdict.decision != "allow":
            reasons.append(
                "a background task that is not proven read-only needs a person to start it "
                "(it keeps running after this turn)"
            )
    return "; ".join(reason for reason in reasons if reason) or None


def _normalised_command(args: Mapping[str, Any], policies: Policies) -> str:
    """What the command does; a background start is a different action than a foreground run
    (allowing one for the session does not allow the other)."""
    normalised = policies.shell.normalize(str(args.get("command", "")))
    return f"background\x00{normalised}" if args.get("background") is True else normalised
