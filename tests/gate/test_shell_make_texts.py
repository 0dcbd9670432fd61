"""Makefile text make reads beyond ``--eval``'s recipes: a ``NAME=VALUE`` operand is a
makefile line (``make 'X!=CMD'`` and ``make 'Y=$(shell CMD)'`` run CMD), ``.SHELLFLAGS``
hands the shell a command before each recipe, and ``$(file >FILE,TEXT)`` writes FILE, even
under ``-n``. Each was ``approve`` where ``make --eval='X!=rm -rf ~'`` and ``echo x >
~/.bashrc`` are denied. Every spelling runs the real GNU make first (``touch ran`` as the
command, ``written.txt`` as the file: it appears), then the harmful spelling must be denied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision, run_in
else:
    from real_runs import decision, run_in

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")

_RUNS = [
    "make -s 'X!={cmd}' x", "make -s x 'Y=$(shell {cmd})'", "make -s x Y='${{shell {cmd}}}'",
    "make -s -E '.SHELLFLAGS=-c {quoted};' x", "make -s '.SHELLFLAGS=-ec {quoted};' x",
    "make -s --eval='.SHELLFLAGS := -c {quoted};' x",
    "make -s --eval='override .SHELLFLAGS += -c {quoted};' x",
]  # fmt: skip
_WRITES = [
    "make -s --eval='$(file >{f},x)' x", "make -s -n --eval='$(file >>{f},x)' x",
    "make -s 'Y=$(file >{f},x)' x", "make -s -f /dev/stdin <<< '$(file >{f},x)'",
    "make -s --eval='$(file > {f},x)' x",
]  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "Makefile").write_text("x:\n\t@true\n")
    return tmp_path


# GNU make 4.3 runs a command-line ``X!=CMD`` with the environment's $SHELL, before its own
# default applies: with no SHELL exported (as under CI) it runs nothing, with one (every login
# shell exports it) it runs CMD. The real run is made as a user's shell would make it.
_LOGIN_SHELL = {"SHELL": "/bin/sh"}


@pytest.mark.parametrize("spelling", _RUNS)
def test_a_command_make_runs_from_its_text_is_judged(workspace: Path, spelling: str):
    run_in(workspace, spelling.format(cmd="touch ran", quoted="touch\\ ran"), env=_LOGIN_SHELL)
    assert (workspace / "ran").exists(), spelling
    command = spelling.format(cmd="rm -rf ~", quoted="rm\\ -rf\\ ~")
    assert decision(command, workspace) == "deny", command


@pytest.mark.parametrize("spelling", _WRITES)
def test_a_file_make_writes_from_its_text_is_judged(workspace: Path, spelling: str):
    run_in(workspace, spelling.format(f="written.txt"))
    assert (workspace / "written.txt").exists(), spelling
    command = spelling.format(f="/root/.bashrc")
    assert decision(command, workspace) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["make CC=clang all", "make -j4 PREFIX=/usr/local install", "make X=1 x",
     "make -C sub --eval='$(file >out.txt,x)'", "make --eval='$(info hello)' x"],
)  # fmt: skip
def test_ordinary_make_lines_stay_a_persons_call(workspace: Path, command: str):
    assert decision(command, workspace) == "approve", command
