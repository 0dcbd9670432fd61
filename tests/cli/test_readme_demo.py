"""The README's ``tether demo`` transcript is what the real command prints: every tool call,
approval, denial and result line of it appears in a real run (paths and the order of one
parallel batch aside)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tether.tools.operations._sandbox import BubblewrapSandbox

from .support import run_tether

README = Path(__file__).resolve().parents[2] / "README.md"
_EVENT = re.compile(r"^(?:-> |   \? |   x |   <- |   \| |user: |assistant: |\d+ turns, )")


def readme_demo_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = text.split("```text\ntether demo — ", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if _EVENT.match(line)]


def normalised(line: str) -> str:
    line = re.sub(r"\S*/python3(?=[ :])", "/path/to/python3", line)
    return re.sub(r"\d+\.\ds$", "N.Ns", line)  # the run's duration


@pytest.mark.skipif(not BubblewrapSandbox.available(), reason="the README shows a sandboxed run")
async def test_every_line_of_the_readme_demo_is_printed_by_the_real_demo(tmp_path):
    done = await run_tether("demo", home=tmp_path / "home", cwd=tmp_path)
    assert done.code == 0, done.stderr
    printed = {normalised(line) for line in done.stdout.splitlines()}
    expected = [normalised(line) for line in readme_demo_lines()]
    assert len(expected) > 20
    missing = [line for line in expected if line not in printed]
    assert missing == []
