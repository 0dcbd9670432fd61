"""How the gate governs ``bash``: the shell policy judges the script, a git write or an
unproven background start needs a person, and session memory keys on the normalised script.

An ``allow`` of the shell policy puts :data:`PROVED_READ_ONLY` into the call, so the tool runs
what the policy proved in the read-only jail where bubblewrap exists.

The sandbox stands in for a person (normal mode) only where it keeps what runs later outside it
safe. A workspace that is the home directory, or holds it, leaves the shell's startup files
(``.bashrc``, ``.profile``) writable to the sandboxed command, and they run outside it at the next
login: there bash's commands ask as if unsandboxed (:func:`holds_home`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tether.gate import Governance, Policies, Verdict

from ._git_commands import git_write_reason

__all__ = ["PROVED_READ_ONLY", "bash_governance", "holds_home"]

PROVED_READ_ONLY = "proved_read_only"
"""The argument an ``allow`` of the shell policy puts into a ``bash`` call (through
``Verdict.prepared``, in every gate mode): run this in the read-only jail. Sent by the model it
can only make a command more confined — and the gate overwrites it for every ``allow``."""


def bash_governance(cwd: str, sandboxed: bool) -> Governance:
    """The shell policy's governance of ``bash`` (the same for every workspace: the policies
    the gate hands in know it)."""
    return Governance(
        policy_check=_classify_command,
        action_key=_normalised_command,
        sandboxed=sandboxed and not holds_home(cwd),
        needs_person=_bash_needs_person,
    )


def holds_home(workspace: str, home: str | None = None) -> bool:
    """Whether ``workspace`` is the home directory (``home``, default this user's) or holds
    it, symlinks resolved."""
    root = os.path.realpath(workspace)
    home_directory = os.path.realpath(home if home is not None else os.path.expanduser("~"))
    return home_directory == root or home_directory.startswith(root.rstrip("/") + "/")


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
