"""Verdicts: what a deterministic check says about one action, and why."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["ALLOW", "PolicyDecision", "Verdict", "strictest"]

PolicyDecision: TypeAlias = Literal["allow", "approve", "deny"]
"""``allow`` runs; ``approve`` needs a person (or the reviewer); ``deny`` never runs."""

_SEVERITY: dict[str, int] = {"allow": 0, "approve": 1, "deny": 2}


@dataclass(frozen=True, slots=True)
class Verdict:
    decision: PolicyDecision
    reasons: tuple[str, ...] = field(default_factory=tuple)
    """Human-readable, each naming the command or path and the rule that applied."""
    prepared: Mapping[str, Any] | None = field(default=None, compare=False)
    """Of an ``allow`` that holds only for a rewritten form of the arguments: the argument values
    to run in place of those judged (the shell policy's script regenerated from the commands it
    proved, under ``"command"``). The gate substitutes them before the tool runs."""
    needs_person: bool = field(default=False, compare=False)
    """Of an ``approve``: the check could not finish judging the action (a shell script too
    complex to prove), so what it hides may be a ``deny``. Such a call is asked of a person in
    every mode, ``yolo`` included, like a forced confirmation: neither the sandbox nor the
    reviewer decides it, and ``strict`` denies it."""

    @staticmethod
    def allow(*reasons: str) -> Verdict:
        return Verdict("allow", tuple(reasons))

    @staticmethod
    def approve(*reasons: str) -> Verdict:
        return Verdict("approve", tuple(reasons))

    @staticmethod
    def unjudged(*reasons: str) -> Verdict:
        """An ``approve`` that a person must decide in every mode (see ``needs_person``)."""
        return Verdict("approve", tuple(reasons), needs_person=True)

    @staticmethod
    def deny(*reasons: str) -> Verdict:
        return Verdict("deny", tuple(reasons))


ALLOW = Verdict("allow")


def strictest(verdicts: Iterable[Verdict | None]) -> Verdict:
    """The most severe decision of ``verdicts`` with the reasons that led to it.

    ``None`` entries (no opinion) are skipped; nothing at all means ``allow``. An ``allow`` keeps
    the ``prepared`` arguments of every verdict (the rewritten form is what was judged allowed);
    an ``approve`` needs a person if any ``approve`` among them does.
    """
    decision: PolicyDecision = "allow"
    reasons: list[str] = []
    prepared: dict[str, Any] = {}
    person = False
    for verdict in verdicts:
        if verdict is None:
            continue
        person = person or verdict.needs_person
        if verdict.prepared:
            prepared.update(verdict.prepared)
        if _SEVERITY[verdict.decision] > _SEVERITY[decision]:
            decision, reasons = verdict.decision, list(verdict.reasons)
        elif verdict.decision == decision:
            reasons.extend(r for r in verdict.reasons if r not in reasons)
    kept = prepared if decision == "allow" and prepared else None
    return Verdict(decision, tuple(reasons), kept, needs_person=person and decision == "approve")
