"""``check-command``: the shell policy's verdict on one script, printed for a person or a hook.

Shared by ``python -m tether.gate check-command`` and ``tether check-command``: the decision on
the first line, one reason per line (control characters escaped), a ``person:`` line when the
call would ask a person in every mode, and an exit status scripts can branch on alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TextIO

from ._path_policy import PathPolicy
from ._shell import ShellPolicy
from ._verdict import PolicyDecision

__all__ = ["CHECK_COMMAND_EXIT", "check_command"]

CHECK_COMMAND_EXIT: dict[PolicyDecision, int] = {"allow": 0, "approve": 1, "deny": 2}
"""The exit status of each decision: 0 allow, 1 approve (a person or the reviewer must agree
first), 2 deny."""


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _discard_further_output(out: TextIO) -> None:
    """Point ``out``'s descriptor at /dev/null, so the flush at exit does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)


def check_command(script: str, workspace: str | None = None, *, out: TextIO | None = None) -> int:
    """Print the verdict on ``script`` to ``out`` (standard output); its exit status. With
    ``workspace``, the files the command visibly reads or writes are also judged by that
    workspace's path policy."""
    out = out or sys.stdout
    path_policy = PathPolicy(workspace) if workspace else None
    verdict = ShellPolicy(path_policy).classify(script)
    lines = [verdict.decision, *(_printable(reason) for reason in verdict.reasons)]
    if verdict.needs_person:
        lines.append("person: asked in every mode, yolo included (strict denies it)")
    try:
        out.write("".join(line + "\n" for line in lines))
        out.flush()
    except BrokenPipeError:  # the reader has gone (``| head -1``): the exit status still tells
        _discard_further_output(out)
    return CHECK_COMMAND_EXIT[verdict.decision]
