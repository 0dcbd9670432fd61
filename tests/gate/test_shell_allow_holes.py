"""Commands that were ``allow`` (run unasked, even in normal mode) yet read a secret or changed
the machine, found by the third red team. Each is shown with the real program, then judged:

- ``diff -N --unified DIR empty``: GNU diff takes ``--unified``'s and ``--context``'s number only
  after ``=``, so DIR is an operand and every file in it is printed; the policy read DIR as the
  number and never looked inside;
- ``git log -G REGEX`` / ``-S TEXT``: the pickaxe prints no content but searches it, so a yes or
  no per guess reads a committed ``.env``;
- ``date MMDDhhmm``: an operand that is not a ``+FORMAT`` sets the clock;
- a hard link to ``~/.ssh/id_rsa`` inside the workspace reads as the key under a name no secret
  rule knows.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy


def _policy(workspace: Path, home: Path | None = None) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(workspace), home=str(home or workspace.parent / "home")))


@pytest.mark.parametrize(
    "spelling",
    ["-N --unified sub empty", "-N --context sub empty", "-rN --unified sub empty",
     "-rN --context sub empty", "--new-file --unified sub empty"],
)  # fmt: skip
def test_diff_optional_numbers_leave_the_directory_an_operand(tmp_path: Path, spelling: str):
    (tmp_path / "sub").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "sub" / ".env").write_text("API_KEY=hunter2\n")
    shown = subprocess.run(["diff", *spelling.split()], cwd=tmp_path, capture_output=True,
                           text=True, check=False)  # fmt: skip
    assert "hunter2" in shown.stdout, f"diff {spelling} prints the secret"
    verdict = _policy(tmp_path).classify(f"diff {spelling}")
    assert verdict.decision != "allow", verdict.reasons


def test_diff_with_a_number_after_the_equals_sign_stays_allowed(tmp_path: Path):
    (tmp_path / "a").write_text("1\n")
    (tmp_path / "b").write_text("2\n")
    policy = _policy(tmp_path)
    assert policy.classify("diff --unified=3 a b").decision == "allow"
    assert policy.classify("diff -U 3 a b").decision == "allow"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=repo, env=environment, capture_output=True,
                          text=True, check=True)  # fmt: skip


@pytest.mark.parametrize("pickaxe", ["-G '^API_KEY=h'", "-S hunter2", "-Ghunter", "-Shunter2"])
def test_the_pickaxe_reads_a_committed_secret_and_is_not_allowed(tmp_path: Path, pickaxe: str):
    repo = tmp_path / "ws"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".env").write_text("API_KEY=hunter2\n")
    _git(repo, "add", ".env")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "oops")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "remove")
    guess = pickaxe.replace("'", "")
    right = _git(repo, "log", "--all", "--oneline", guess.split()[0], *guess.split()[1:])
    wrong = _git(repo, "log", "--all", "--oneline", "-G", "^API_KEY=x")
    assert right.stdout.strip() and not wrong.stdout.strip()  # an oracle, one guess at a time
    verdict = _policy(repo).classify(f"git log --all --oneline {pickaxe}")
    assert verdict.decision != "allow", verdict.reasons


@pytest.mark.parametrize("operand", ["010100002030", "123123592030", "0101", "2030-01-01"])
def test_a_date_operand_that_is_not_a_format_is_not_allowed(tmp_path: Path, operand: str):
    verdict = _policy(tmp_path).classify(f"date {operand}")
    assert verdict.decision != "allow", verdict.reasons
    assert _policy(tmp_path).classify("date -u +%Y-%m-%d").decision == "allow"
    assert _policy(tmp_path).classify("date -Id").decision != "allow"  # -I takes 'd' attached


def test_date_with_an_operand_asks_the_kernel_to_set_the_clock(tmp_path: Path):
    """Shown with the clock change refused by strace's fault injection, so nothing changes."""
    traced = subprocess.run(
        ["strace", "-f", "-e", "trace=clock_settime,settimeofday", "-e",
         "inject=clock_settime,settimeofday:error=EPERM", "date", "010100002030"],
        capture_output=True, text=True, check=False, timeout=30,
    )  # fmt: skip
    if "ptrace" in traced.stderr.lower() and "settime" not in traced.stderr:
        pytest.skip("strace cannot trace here")
    assert "settime" in traced.stderr, traced.stderr[-400:]


def test_a_hard_link_to_a_key_reads_as_the_key_and_is_not_allowed(tmp_path: Path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True)
    workspace.mkdir()
    key = home / ".ssh" / "id_rsa"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    os.link(key, workspace / "notes.txt")
    shown = subprocess.run(["cat", "notes.txt"], cwd=workspace, capture_output=True, text=True,
                           check=True)  # fmt: skip
    assert "PRIVATE KEY" in shown.stdout
    policy = _policy(workspace, home)
    for command in ("cat notes.txt", "head notes.txt", "wc -c notes.txt"):
        verdict = policy.classify(command)
        assert verdict.decision == "deny", (command, verdict.reasons)
    assert policy.classify("grep -r KEY .").decision == "approve"  # the tree holds a secret
    (workspace / "plain.txt").write_text("x\n")
    assert policy.classify("cat plain.txt").decision == "allow"


def test_hard_links_that_are_not_secrets_stay_allowed(tmp_path: Path):
    """uv and pnpm hard-link package trees from their caches: those files have other names too,
    none of them a secret, and reading them stays allowed."""
    home, workspace, cache = tmp_path / "home", tmp_path / "ws", tmp_path / "cache"
    for directory in (home / ".ssh", workspace / "node_modules" / "x", cache):
        directory.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (cache / "index.js").write_text("module.exports = 1\n")
    os.link(cache / "index.js", workspace / "node_modules" / "x" / "index.js")
    policy = _policy(workspace, home)
    for command in ("cat node_modules/x/index.js", "grep -r exports node_modules"):
        assert policy.classify(command).decision == "allow", command
