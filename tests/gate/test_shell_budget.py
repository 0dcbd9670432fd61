"""The shell policy's work budget: inputs that cost far more to judge than to write end as
``approve`` — "too complex to prove" — quickly, and what was denied on the way stays denied
(issue 18, point 6). Times are the benchmark's business (``bench/shell_policy.py``); the bounds
here are only far above them, so a loaded machine cannot make the tests flaky."""

from __future__ import annotations

import time

import pytest

from tether.gate import ShellPolicy
from tether.gate._shell_budget import bounded_glob

if __package__:
    from .shell_attacks import PATHOLOGICAL
else:
    from shell_attacks import PATHOLOGICAL

POLICY = ShellPolicy()


@pytest.mark.parametrize(("command", "note"), PATHOLOGICAL)
def test_pathological_inputs_are_too_complex_to_prove(command: str, note: str) -> None:
    started = time.monotonic()
    verdict = POLICY.classify(command)
    assert time.monotonic() - started < 5, note
    assert verdict.decision == "approve", (note, verdict)
    assert any("too complex to prove" in reason for reason in verdict.reasons), (note, verdict)


def test_a_denial_found_before_the_budget_ran_out_stays() -> None:
    command = "rm -rf ~; ls /*/*/*/*/*/*/*/*/zzzz"
    assert POLICY.classify(command).decision == "deny"


def test_loop_bodies_are_judged_once_per_distinct_binding() -> None:
    nested = "".join(f"for v{i} in a b c d e f g h; do " for i in range(6))
    assert POLICY.classify(nested + "echo $v0" + "; done" * 6).decision == "approve"
    assert POLICY.classify(nested + "rm -rf ~" + "; done" * 6).decision == "deny"
    assert POLICY.classify("for d in a b b ~; do rm -rf $d; done").decision == "deny"


def test_globs_never_read_proc_or_sys() -> None:
    assert bounded_glob("/proc/*/environ", 10) == []
    assert bounded_glob("/sys/*", 10) == []
    assert "/proc" in bounded_glob("/pro?", 10)
    assert bounded_glob("/e?c/hostname", 10) == ["/etc/hostname"]
    assert bounded_glob("relative/*", 10) == []
