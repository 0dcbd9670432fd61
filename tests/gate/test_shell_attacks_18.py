"""Issue 18's second red team (points 4 and 7): each exploit's marker twin really runs its payload
in bash, every read-only looking command that prints a secret is not allowed (and its twin
really prints it), ripgrep's ignore files cannot widen an allowed search, and the real commands
once denied are not. That no attack runs unasked and the deny-class ones are denied is checked
with issue 9's in ``test_shell_attacks.py``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

if __package__:
    from .shell_attacks_18 import (
        ATTACKS,
        LEAKS,
        MARKERS,
        PATHOLOGICAL,
        REAL_WORLD,
        STILL_ALLOWED,
    )
else:
    from shell_attacks_18 import ATTACKS, LEAKS, MARKERS, PATHOLOGICAL, REAL_WORLD, STILL_ALLOWED

BASH = shutil.which("bash")
_PROGRAMS = frozenset({"fakeroot", "bwrap", "runuser", "sg", "awk", "sed", "git", "ssh", "vim",
                       "python3", "jq", "du", "egrep", "fgrep", "diff"})  # fmt: skip


def _workspace(root: Path) -> Path:
    """A project holding a secret and a symlink to a directory outside it."""
    workspace, outside = root / "project", root / "outside"
    (workspace / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "PWNEDFILE").write_text("x\n")
    (workspace / "README.md").write_text("hello\n")
    (workspace / "src" / "app.py").write_text("KEY = 1\n")
    (workspace / "package.json").write_text('{"name": "x"}\n')
    (workspace / ".env").write_text("KEY=PWNED\n")
    (workspace / "out").symlink_to(outside)
    return workspace


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _workspace(tmp_path_factory.mktemp("red-team-18"))


@pytest.fixture(scope="module")
def policy(workspace: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(workspace)))


def _bash(script: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
    assert BASH is not None
    return subprocess.run(
        [BASH, "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


def _skip_missing(script: str) -> None:
    needed = set(re.findall(r"[a-z][a-z0-9]+", script)) & _PROGRAMS
    missing = sorted(program for program in needed if shutil.which(program) is None)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


def test_the_corpus_covers_every_class_with_several_cases() -> None:
    classes = Counter(klass for _, _, klass in ATTACKS)
    assert set(classes) == {"parse-error", "blank-like", "wrapper", "tool-code", "bash-feature",
                            "process"}  # fmt: skip
    assert all(count >= 3 for count in classes.values()), classes
    assert len({command for command, _, _ in ATTACKS}) == len(ATTACKS), "duplicate attacks"
    assert {attack for attack, _ in MARKERS} <= {command for command, _, _ in ATTACKS}


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(("attack", "twin"), MARKERS)
def test_each_exploit_runs_its_payload_in_real_bash(tmp_path: Path, attack: str, twin: str) -> None:
    _skip_missing(twin)
    (tmp_path / "secret.txt").write_text("PWNED\n")
    if "cd repo" in twin:
        repo = tmp_path / "repo"
        repo.mkdir()
        setup = (
            "git init -q . && for n in 1 2 3; do echo $n > a; git add a; git commit -qm $n; done"
        )
        assert _bash(setup, repo, tmp_path).returncode == 0
    done = _bash(twin, tmp_path, tmp_path)
    assert (tmp_path / "pwned").exists(), (attack, twin, done.stdout, done.stderr)


@pytest.mark.parametrize(("command", "twin"), LEAKS)
def test_no_command_that_prints_a_secret_is_allowed(
    policy: ShellPolicy, command: str, twin: str
) -> None:
    assert policy.classify(command).decision != "allow", command


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(("command", "twin"), [(c, t) for c, t in LEAKS if t])
def test_each_leak_really_prints_the_secret(tmp_path: Path, command: str, twin: str) -> None:
    _skip_missing(twin)
    workspace = _workspace(tmp_path)
    done = _bash(twin, workspace, tmp_path)
    assert "PWNED" in done.stdout + done.stderr, (command, done.stdout, done.stderr)


@pytest.mark.parametrize("command", STILL_ALLOWED)
def test_searches_that_cannot_reach_the_secret_stay_allowed(
    policy: ShellPolicy, command: str
) -> None:
    verdict = policy.classify(command)
    assert verdict.decision == "allow", verdict


@pytest.mark.parametrize("command", REAL_WORLD)
def test_real_commands_once_denied_are_not(policy: ShellPolicy, command: str) -> None:
    verdict = policy.classify(command)
    assert verdict.decision != "deny", verdict


@pytest.mark.parametrize(
    ("where", "text"),
    [(".ignore", "!.env\n"), (".rgignore", "!.env\n"), ("src/.gitignore", "!.env\n"),
     (".git/info/exclude", "!.env\n")],
)  # fmt: skip
def test_an_ignore_file_that_re_includes_a_secret_stops_the_allow(
    tmp_path: Path, where: str, text: str
) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "src" / ".env").write_text("KEY=PWNED\n")
    (workspace / ".git" / "info").mkdir(parents=True)
    policy = ShellPolicy(PathPolicy(str(workspace)))
    assert policy.classify("rg KEY src").decision == "allow"
    (workspace / where).write_text(text)
    verdict = ShellPolicy(PathPolicy(str(workspace))).classify("rg KEY src")
    assert verdict.decision == "approve", verdict
    assert "src/.env" in verdict.reasons[0], verdict


def test_a_glob_that_may_match_the_secret_is_not_allowed_one_that_cannot_is(
    policy: ShellPolicy,
) -> None:
    assert policy.classify("rg -g '*.py' -g '*.md' KEY").decision == "allow"
    for glob in ("*env", ".e*", "*", "[.]env", "{a,.env}", "**/.env", "src/../.env"):
        assert policy.classify(f"rg -g '{glob}' KEY").decision != "allow", glob


@pytest.mark.parametrize(("command", "why"), PATHOLOGICAL)
def test_costly_inputs_are_judged_and_not_allowed(
    policy: ShellPolicy, command: str, why: str
) -> None:
    harmless = command.startswith(("git log --oneline", "grep -d skip"))
    assert policy.classify(command).decision == ("allow" if harmless else "approve"), why
