"""Governance of the built-in tools: review exposure per parameter and the policy each applies.

File tools are judged by the gate's path policy (reads inside the workspace allowed, outside need
approval, secrets denied; writes outside the workspace or to protected files denied); ``bash`` by
the shell policy, with its session-memory key being the normalised script; a git command that
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

__all__ = ["govern_builtin"]

_EXPOSURE: dict[str, dict[str, Review]] = {
    "read": {"path": Review.INCLUDE, "offset": Review.INCLUDE, "limit": Review.INCLUDE},
    "write": {"path": Review.INCLUDE, "content": Review.REDACT},
    "edit": {"path": Review.INCLUDE, "edits": Review.REDACT},
    "bash": {"command": Review.INCLUDE, "timeout": Review.INCLUDE},
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
    if name == "bash":
        governance = Governance(
            policy_check=_classify_command,
            action_key=_normalised_command,
            sandboxed=bool(definition.metadata.get("sandboxed", False)),
            needs_person=_git_write,
        )
    else:
        governance = Governance(policy_check=_path_check(cwd, _ACCESS[name]))
    metadata = {**definition.metadata, CAPS_OWN_RESULT: True}  # each cuts with its own notice
    if _ACCESS.get(name) == "read":
        metadata[IDEMPOTENT] = True  # a durable run may run it again after a crash
    return replace(
        definition,
        parameters={**schema, "properties": properties},
        governance=governance,
        metadata=metadata,
    )


def _path_check(
    cwd: str, access: Literal["read", "write"]
) -> Callable[[Mapping[str, Any], Policies], Verdict | None]:
    def check(args: Mapping[str, Any], policies: Policies) -> Verdict:
        raw = args.get("path")
        path = resolve_path(raw if isinstance(raw, str) and raw else ".", cwd)
        return policies.paths.check(path, access)

    return check


def _classify_command(args: Mapping[str, Any], policies: Policies) -> Verdict:
    return policies.shell.classify(str(args.get("command", "")))


def _git_write(args: Mapping[str, Any], policies: Policies) -> str | None:
    return git_write_reason(str(args.get("command", "")))


def _normalised_command(args: Mapping[str, Any], policies: Policies) -> str:
    return policies.shell.normalize(str(args.get("command", "")))
