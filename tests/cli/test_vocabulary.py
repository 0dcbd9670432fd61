"""The command spells the gate's modes and the thinking levels itself (so ``--help`` imports
neither layer); they must stay the vocabularies the layers define."""

from __future__ import annotations

from typing import get_args

from tether.ai import ReasoningLevel
from tether.cli._parser import GATE_MODES, THINKING_LEVELS, build_parser
from tether.gate import MODE_DESCRIPTIONS, MODES


def test_the_command_offers_exactly_the_gates_modes() -> None:
    assert GATE_MODES == MODES
    assert set(MODE_DESCRIPTIONS) == set(MODES)
    choices = next(a.choices for a in build_parser()._actions if a.dest == "gate")
    assert tuple(choices or ()) == MODES


def test_the_thinking_levels_are_off_and_the_reasoning_levels() -> None:
    assert ("off", *get_args(ReasoningLevel)) == THINKING_LEVELS
