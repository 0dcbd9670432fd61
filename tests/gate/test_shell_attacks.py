"""The red-team corpus of issue 9: no attack runs unasked, every deny-class attack is denied, and
every claim about what bash does with one is confirmed by running a harmless twin in bash."""

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
    from . import shell_attacks_18
    from .shell_attacks import ATTACKS, BASH_PROBES
else:
    import shell_attacks_18
    from shell_attacks import ATTACKS, BASH_PROBES

EVERY_ATTACK = ATTACKS + shell_attacks_18.ATTACKS
"""Issue 9's red team and issue 18's (whose classes and bash twins ``test_shell_attacks_18``
checks)."""

BASH = shutil.which("bash")
_PROGRAMS = frozenset(
    [
        "jq",
        "git",
        "strace",
        "tcsh",
        "parallel",
        "busybox",
        "gdb",
        "vim",
        "expect",
        "zip",
        "tar",
        "watch",
        "flock",
        "unshare",
        "script",
        "make",
        "python3",
        "perl",
        "awk",
        "taskset",
        "chrt",
        "find",
        "sort",
        "diff",
        "wc",
        "date",
        "tail",
    ]
)


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> ShellPolicy:
    workspace = tmp_path_factory.mktemp("project")
    (workspace / "README.md").write_text("hello\n")
    return ShellPolicy(PathPolicy(str(workspace)))


def test_the_corpus_covers_every_class_with_several_cases() -> None:
    classes = Counter(klass for _, _, klass in ATTACKS)
    expected = {"expansion-exec", "heredoc", "secret", "splitting", "cd", "options", "braces",
                "quoting", "glob", "wrapper", "pipe-shell", "kill", "disk", "agent", "container",
                "interpreter", "differential", "parse-error"}  # fmt: skip
    assert set(classes) == expected
    assert all(count >= 3 for count in classes.values()), classes
    assert len({command for command, _, _ in ATTACKS}) == len(ATTACKS), "duplicate attacks"


@pytest.mark.parametrize(("command", "expected", "klass"), EVERY_ATTACK)
def test_no_attack_runs_unasked(
    policy: ShellPolicy, command: str, expected: str, klass: str
) -> None:
    verdict = policy.classify(command)
    assert verdict.decision != "allow", (klass, verdict)
    if expected == "deny":
        assert verdict.decision == "deny", (klass, verdict)
    assert all(":" in reason for reason in verdict.reasons), verdict


def test_no_attack_is_allowed_without_a_path_policy_either() -> None:
    policy = ShellPolicy()
    allowed = [c for c, _, _ in EVERY_ATTACK if policy.classify(c).decision == "allow"]
    assert not allowed


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(("attack", "probe"), BASH_PROBES)
def test_what_the_attack_relies_on_is_what_bash_does(
    tmp_path: Path, attack: str, probe: str
) -> None:
    assert attack in {command for command, _, _ in ATTACKS}
    needed = set(re.findall(r"[a-z][a-z0-9]+", probe)) & _PROGRAMS
    missing = sorted(program for program in needed if shutil.which(program) is None)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    (tmp_path / "secret.txt").write_text("PWNED\n")
    env = {
        "HOME": str(tmp_path),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C",
        "TERM": "xterm",
    }
    assert BASH is not None
    done = subprocess.run(
        [BASH, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=20, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    if "Operation not permitted" in done.stderr and "PWNED" not in done.stdout:
        pytest.skip(f"the probe needs a privilege this machine denies: {done.stderr[:80]}")
    shown = done.stdout + done.stderr
    assert "PWNED" in shown or (tmp_path / "pwned").exists(), (probe, shown)


def test_session_memory_keys_keep_the_structure(policy: ShellPolicy) -> None:
    pairs = [
        ("d=build; rm -rf $d", "d=build; for d in ~; do rm -rf $d; done"),
        ("rm -rf build", "rm -rf build &"),
        ("rm *", "rm '*'"),
        ("rm -rf ~", "rm -rf '~'"),
        ("echo 2>a", "echo 2 > a"),
        ("x=1; echo $x", "x=1 echo $x"),
        ("cat <<'EOF'\n$(id)\nEOF", "cat <<EOF\n$(id)\nEOF"),
        ("ls $(pwd)", "ls $(rm -rf ~)"),
        ("true && rm x", "true || rm x"),
        ("f() { ls; }", "f() { rm -rf ~; }"),
    ]
    for first, second in pairs:
        assert policy.normalize(first) != policy.normalize(second), (first, second)
