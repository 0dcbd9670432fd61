"""A committed secret is not printed by any allowed git command: real repositories, real git,
every command tried — what the policy allows is run (the regenerated script) and its output
searched for the secret."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

if __package__:
    from .git_repos import git, new_repo
else:
    from git_repos import git, new_repo

SECRET = "API_KEY=sk-committed-0123456789abcdef"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """.env committed, then removed: only history holds it; a stash holds another secret."""
    monkeypatch.setenv("HOME", str(tmp_path))
    path = new_repo(tmp_path / "repo")
    (path / ".env").write_text(SECRET + "\n")
    git(path, "add", ".env")
    git(path, "commit", "-qm", "add config")
    git(path, "rm", "-q", "--cached", ".env")
    git(path, "commit", "-qm", "remove config")
    (path / ".env").unlink()
    (path / "README.md").write_text("readme\nTOKEN in a stash\n")
    (path / "id_rsa").write_text("STASHED-KEY\n")
    git(path, "add", "id_rsa")
    git(path, "stash", "-q")
    return path


def classify(command: str, workspace: Path) -> tuple[str, str, str | None]:
    verdict = ShellPolicy(PathPolicy(str(workspace))).classify(command)
    script = verdict.prepared["command"] if verdict.prepared else None
    return verdict.decision, "; ".join(verdict.reasons), script


def run(script: str, workspace: Path) -> str:
    done = subprocess.run(
        ["bash", "-c", script], cwd=workspace, capture_output=True, text=True, check=False,
        env=dict(os.environ),
    )  # fmt: skip
    return done.stdout + done.stderr


def commands(repo: Path) -> list[str]:
    blob = git(repo, "rev-parse", "HEAD~1:.env")
    return [
        "git show", "git show HEAD~1", "git show HEAD~1 --stat -p", "git log -p",
        "git log -p --all", "git show 'stash@{0}'", "git diff 'stash@{0}'",
        "git grep STASHED 'stash@{0}'", "git grep --no-index API",
        "git grep -e STASHED --untracked",
        "git log --patch -n 5", "git log -p -S API_KEY", "git log -G API -p", "git log -U3",
        "git log -c", "git log --cc", "git log --word-diff", "git log --all --reflog -p",
        f"git cat-file -p {blob}", f"git cat-file blob {blob}", f"git show {blob}",
        f"git show {blob[:7]}", f"git diff {blob} {git(repo, 'rev-parse', 'HEAD:README.md')}",
        "git diff HEAD~2 HEAD~1", "git diff HEAD~2", "git diff stash@{0}", "git show stash@{0}",
        "git stash list -p", "git stash list --patch", "git grep -e API_KEY HEAD~1",
        "git grep API_KEY HEAD~1", "git grep -e KEY --untracked", "git grep STASHED stash@{0}",
        "git show HEAD~1:.env", "git show :0:.env", "git log -L 1,1:.env HEAD~1",
        "git whatchanged -p", "git show --format=%B HEAD~1", "git log --all --binary",
    ]  # fmt: skip


def test_no_allowed_git_command_prints_a_committed_secret(repo: Path) -> None:
    allowed = []
    for command in commands(repo):
        decision, _, script = classify(command, repo)
        if decision == "allow":
            assert script is not None
            output = run(script, repo)
            assert "sk-committed" not in output and "STASHED-KEY" not in output, (command, output)
            allowed.append(command)
    assert not [c for c in allowed if c.startswith(("git log -p", "git show HEAD~1"))], allowed


@pytest.mark.parametrize(
    "command", ["git show", "git log -p", "git log -p --all", "git stash list -p", "git grep KEY"]
)
def test_history_reading_is_approve_with_a_reason(repo: Path, command: str) -> None:
    decision, reasons, _ = classify(command, repo)
    assert decision == "approve"
    assert "has tracked .env" in reasons and "id_rsa" in reasons, reasons


def test_a_blob_by_id_is_approve_in_any_repository(tmp_path: Path) -> None:
    clean = new_repo(tmp_path / "clean")
    blob = git(clean, "hash-object", "-w", "--stdin", stdin="dangling\n")
    decision, reasons, _ = classify(f"git cat-file -p {blob}", clean)
    assert decision == "approve" and "names a blob by its id" in reasons


def test_grep_of_untracked_files_is_approve_in_any_repository(tmp_path: Path) -> None:
    clean = new_repo(tmp_path / "clean")
    (clean / ".env").write_text(SECRET)
    for command in ("git grep --untracked KEY", "git grep --no-index KEY"):
        decision, reasons, _ = classify(command, clean)
        assert decision == "approve", (command, reasons)


@pytest.mark.parametrize(
    "command",
    ["git log --oneline", "git log --stat", "git status", "git show --stat", "git ls-files",
     "git log --format=%H%x09%s -n 3", "git diff --name-only HEAD~1", "git shortlog -s"],
)  # fmt: skip
def test_commands_that_print_no_content_stay_allowed(repo: Path, command: str) -> None:
    decision, reasons, script = classify(command, repo)
    if decision == "allow":
        assert script is not None
        assert "sk-committed" not in run(script, repo)
    else:  # the option table may not allow it (another rule): never for committed secrets
        assert "has tracked" not in reasons, reasons


def test_a_clean_repository_costs_no_approval_and_the_cache_follows_the_refs(
    tmp_path: Path,
) -> None:
    clean = new_repo(tmp_path / "clean")
    assert classify("git log -p", clean)[0] == "allow"
    assert classify("git show", clean)[0] == "allow"
    (clean / "prod.key").write_text("KEY\n")
    git(clean, "add", "prod.key")
    assert classify("git log -p", clean)[0] == "approve"  # in the index: the index changed
    git(clean, "commit", "-qm", "key")
    git(clean, "rm", "-q", "prod.key")
    git(clean, "commit", "-qm", "gone")
    decision, reasons, _ = classify("git log -p", clean)
    assert decision == "approve" and "prod.key" in reasons


def test_a_repository_that_cannot_be_listed_counts_as_holding_a_secret(tmp_path: Path) -> None:
    broken = new_repo(tmp_path / "broken")
    (broken / ".git" / "HEAD").write_text("ref: refs/heads/x\n")
    (broken / ".git" / "packed-refs").write_text("nonsense\n")
    decision, reasons, _ = classify("git log -p", broken)
    assert decision == "approve" and "history not listed" in reasons


def test_a_committed_npmrc_is_a_secret_only_when_it_held_a_token(tmp_path: Path) -> None:
    settings = new_repo(tmp_path / "settings")
    (settings / ".npmrc").write_text("engine-strict=true\n")
    git(settings, "add", ".npmrc")
    git(settings, "commit", "-qm", "npm settings")
    assert classify("git log -p", settings)[0] == "allow"
    token = new_repo(tmp_path / "token")
    (token / "web").mkdir()
    (token / "web" / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_abc\n")
    git(token, "add", "web/.npmrc")
    git(token, "commit", "-qm", "token")
    (token / "web" / ".npmrc").write_text("engine-strict=true\n")
    git(token, "commit", "-qam", "token gone")
    decision, reasons, _ = classify("git log -p", token)
    assert decision == "approve" and "web/.npmrc" in reasons


def test_a_slow_listing_goes_on_in_the_background_and_asks_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tether.gate._shell import _git_secrets

    clean = new_repo(tmp_path / "slow")
    monkeypatch.setattr(_git_secrets, "LISTING_WAIT", 0.0)
    decision, reasons, _ = classify("git log -p", clean)
    job = _git_secrets._JOBS[os.path.realpath(clean / ".git")]
    if not job.done.is_set():  # the listing may beat a zero wait; when it does not:
        assert decision == "approve" and "history still being listed" in reasons, reasons
    assert job.done.wait(60)
    assert classify("git log -p", clean)[0] == "allow"
