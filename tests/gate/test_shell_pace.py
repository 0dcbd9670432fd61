"""The time budget counts the reference machine's milliseconds: :func:`machine_pace` measures how
much slower this machine runs the policy's kind of work, and a budget's deadline stretches by it.
Without it a machine four times slower stopped the walk of a ``grep`` with 2,000 ``-d skip`` a
quarter of the way through (``approve`` where the reference machine proves ``allow``), and the
deny scan after a spent budget missed a payload in the middle of 3,000 commands."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tether.gate._shell import _pace
from tether.gate._shell._budget import Budget, _clock
from tether.gate._shell._pace import machine_pace


@pytest.fixture(autouse=True)
def measured_again() -> Iterator[None]:
    machine_pace.cache_clear()
    yield
    machine_pace.cache_clear()


def test_the_pace_is_measured_once_and_kept_within_its_bounds() -> None:
    pace = machine_pace()
    assert 1.0 <= pace <= _pace._SLOWEST
    assert machine_pace() is pace


@pytest.mark.parametrize(
    ("reference", "expected"), [(1e6, 1.0), (1e-9, _pace._SLOWEST)]
)  # fmt: skip
def test_a_faster_machine_keeps_the_reference_budget_and_a_crawling_one_is_capped(
    monkeypatch: pytest.MonkeyPatch, reference: float, expected: float
) -> None:
    monkeypatch.setattr(_pace, "_REFERENCE_SECONDS", reference)
    assert machine_pace() == expected


def test_a_budget_lasts_its_seconds_times_the_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pace, "_REFERENCE_SECONDS", 1e-9)  # a machine past the cap
    started = _clock()
    assert Budget(0.04).deadline - started == pytest.approx(0.04 * _pace._SLOWEST, abs=0.01)


def test_a_slower_interpreter_measures_slower() -> None:
    """A profile hook on every call slows the interpreter for real, as a slower core would: the
    pace measured under it is higher (or at the cap)."""
    plain = machine_pace()
    machine_pace.cache_clear()
    sys.setprofile(lambda *_: None)
    try:
        slowed = machine_pace()
    finally:
        sys.setprofile(None)
    assert slowed >= min(plain * 1.5, _pace._SLOWEST), (plain, slowed)
