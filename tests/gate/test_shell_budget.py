"""The shell policy's work budget: inputs that cost far more to judge than to write end as
``approve`` — "too complex to prove" — quickly, and what was denied on the way stays denied
(issue 18, point 6). Times are the benchmark's business (``bench/shell_policy.py``); the bounds
here are only far above them, so a loaded machine cannot make the tests flaky."""

from __future__ import annotations

import gc
import time

import pytest

from tether.gate import ShellPolicy
from tether.gate._shell._budget import _CURRENT as current_budget
from tether.gate._shell._budget import bounded_glob

if __package__:
    from .shell_attacks import PATHOLOGICAL
    from .shell_attacks_18 import PADDED_PAYLOADS
else:
    from shell_attacks import PATHOLOGICAL
    from shell_attacks_18 import PADDED_PAYLOADS

POLICY = ShellPolicy()


@pytest.mark.parametrize(("command", "note"), PATHOLOGICAL)
def test_pathological_inputs_are_too_complex_to_prove(command: str, note: str) -> None:
    started = time.monotonic()
    verdict = POLICY.classify(command)
    assert time.monotonic() - started < 5, note
    assert verdict.decision == "approve", (note, verdict)
    assert any("too complex to prove" in reason for reason in verdict.reasons), (note, verdict)
    assert verdict.needs_person, note


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


@pytest.mark.parametrize(("command", "note"), PADDED_PAYLOADS)
def test_a_payload_padded_past_the_budget_is_still_denied(command: str, note: str) -> None:
    """The walk runs out on the padding; the deny scan that follows judges the commands from the
    last one back, each distinct one once, and finds the payload."""
    assert POLICY.classify(command).decision == "deny", note


def test_what_the_budget_leaves_unjudged_needs_a_person() -> None:
    verdict = POLICY.classify("".join(f"echo {i}; " for i in range(3000)))
    assert verdict.decision == "approve" and verdict.needs_person
    assert "too complex to prove" in verdict.reasons[0]
    assert not POLICY.classify("python app.py").needs_person  # an ordinary approve


def test_check_command_says_a_person_decides(capsys: pytest.CaptureFixture[str]) -> None:
    from tether.gate.__main__ import main

    assert main(["check-command", "echo 1; " * 4000]) == 1
    assert "person: asked in every mode, yolo included" in capsys.readouterr().out


def test_a_garbage_collection_while_judging_is_not_the_policys_work() -> None:
    """A collection of the whole process (tens of ms in a worker holding many runs) that starts
    while a simple script is judged must not make it "too complex to prove"."""
    burned: list[float] = []

    def slow_collection(phase: str, info: dict[str, int]) -> None:
        judging = current_budget.get() is not None
        if phase == "start" and judging and not burned:  # one, longer than the whole budget
            burned.append(time.thread_time())
            while time.thread_time() - burned[0] < 0.1:
                pass

    thresholds = gc.get_threshold()
    gc.callbacks.append(slow_collection)
    gc.set_threshold(10)  # a collection within the first few allocations of the judging
    try:
        verdict = POLICY.classify("; ".join(["grep -c tether README.md"] * 40))
    finally:
        gc.callbacks.remove(slow_collection)
        gc.set_threshold(*thresholds)
    assert burned
    assert verdict.decision == "allow", verdict
