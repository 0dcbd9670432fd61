"""Project and package runners run a command, or a shell script, that the deny rules judge like
the command itself: ``uv run rm -rf ~``, ``npx -c 'rm -rf ~'`` and ``npm exec -- rm -rf ~`` were
``approve`` (unasked in yolo mode) where ``rm -rf ~`` is denied. Where the programs are
installed, each spelling is run for real (``touch ran`` in place of the command) to show that it
does run its command."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._runners import runner_readings

_UV = str(Path(sys.executable).with_name("uv"))
_REAL = [
    ("uv", "run --no-project --offline {cmd}"), ("uv", "run --offline --no-project -q {cmd}"),
    ("uv", "run --no-project --offline -- {cmd}"),
    ("uv", "run --offline --no-project --with-requirements /dev/null {cmd}"),
    ("npx", "-c '{cmd}'"), ("npx", "--call '{cmd}'"), ("npx", "--call='{cmd}'"),
    ("npm", "exec -c '{cmd}'"), ("npm", "exec --offline -- {cmd}"), ("npm", "exec --call='{cmd}'"),
    ("npm", "x -c '{cmd}'"),
]  # fmt: skip


def _program(name: str) -> str | None:
    if name == "uv":
        return _UV if os.path.exists(_UV) else shutil.which("uv")
    return shutil.which(name)


@pytest.mark.parametrize(("name", "spelling"), _REAL)
def test_each_runner_spelling_runs_its_command_and_the_deny_rules_judge_it(
    tmp_path: Path, name: str, spelling: str
):
    program = _program(name)
    if program is None:
        pytest.skip(f"needs {name}")
    environment = {**os.environ, "HOME": str(tmp_path), "npm_config_cache": str(tmp_path / "c")}
    argv = shlex.split(spelling.format(cmd="touch ran"))
    subprocess.run([program, *argv], cwd=tmp_path, env=environment, capture_output=True,
                   stdin=subprocess.DEVNULL, check=False, timeout=120)  # fmt: skip
    assert (tmp_path / "ran").exists(), f"{name} {spelling} runs its command"
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = f"{name} {spelling.format(cmd='rm -rf ~')}"
    verdict = policy.classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)


_DOCUMENTED = [
    "poetry run rm -rf ~", "pdm run rm -rf ~", "pipenv run rm -rf ~", "hatch run rm -rf ~",
    "uv run --with x rm -rf ~", "uv tool run rm -rf ~", "uvx --from x rm -rf ~",
    "pnpm dlx rm -rf ~", "pnpm exec rm -rf ~", "yarn exec rm -rf ~", "yarn dlx rm -rf ~",
    "bun x rm -rf ~", "bunx --bun rm -rf ~", "pnpx -c 'rm -rf ~'", "bundle exec rm -rf ~",
    "mise exec node@20 -- rm -rf ~", "asdf exec rm -rf ~", "direnv exec . rm -rf ~",
    "conda run -n base rm -rf ~", "pixi run rm -rf ~", "xvfb-run -a rm -rf ~",
    "dbus-run-session -- rm -rf ~", "op run -- rm -rf ~", "doppler run -- rm -rf ~",
    "aws-vault exec prod -- rm -rf ~", "nix-shell --run 'rm -rf ~'", "nodemon --exec 'rm -rf ~'",
    "npx --registry http://127.0.0.1:9 rm -rf ~", "cross-env A=1 rm -rf ~", "dotenv -- rm -rf ~",
]  # fmt: skip


@pytest.mark.parametrize("command", _DOCUMENTED)
def test_runners_whose_documented_commands_run_are_judged(command: str):
    verdict = ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)


@pytest.mark.parametrize(
    "command",
    ["uv run pytest -q", "poetry run python -m build", "npx prettier --write .",
     "npm exec -- eslint src", "uv pip install -e .", "npm install", "poetry add requests",
     "bundle exec rake test", "pnpm dlx create-vite app", "uv run --with rich python x.py"],
)  # fmt: skip
def test_ordinary_runs_stay_a_persons_call(command: str):
    verdict = ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(f"cd /tmp/ws && {command}")
    assert verdict.decision == "approve", (command, verdict.reasons)


def test_a_runner_without_its_running_subcommand_runs_nothing():
    assert runner_readings("uv", ("pip", "install", "rm")) is None
    assert runner_readings("npm", ("install", "rm")) is None
    assert runner_readings("poetry", ("add", "x")) is None
    assert runner_readings("ls", ("-la",)) is None
    assert runner_readings("npm", ("run", "build", "-c", "x")) is not None  # -c is a script
