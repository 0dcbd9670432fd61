"""Which commands count as git commands that write the repository (a person decides them, and
they then run with ``.git`` writable)."""

from __future__ import annotations

import pytest

from tether.tools._git_commands import git_write_reason


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m x",
        "git add .",
        "git checkout main",
        "git merge topic",
        "git rebase -i HEAD~2",
        "git reset --hard",
        "git stash",
        "git stash pop",
        "git tag v1",
        "git branch -D old",
        "git config core.fsmonitor x",
        "git -C sub commit -m x",
        "/usr/bin/git push",
        "cd sub && git add -A",
        "env GIT_DIR=.git git update-ref HEAD x",
        "bash -c 'git commit -m x'",
        "(git gc)",
        "echo $(git init)",
        'echo "$(git init)"',
        "eval 'git tag x'",
        'echo "$(git init)"',
        "eval 'git tag x'",
        "git remote add o url",
        "git 'commit",
    ],
)
def test_git_commands_that_write_the_repository(command: str) -> None:
    reason = git_write_reason(command) or ""
    assert "only a person may allow" in reason or "git in a script" in reason


@pytest.mark.parametrize(
    "command",
    [
        "git status --short",
        "git log --oneline | head",
        "git diff HEAD~1",
        "git branch",
        "git branch --list 'f*'",
        "git tag -l",
        "git stash list",
        "git remote -v",
        "git config --get user.name",
        "git --version",
        "grep -r 'git commit' .",
        "echo done",
        "legit commit",
    ],
)
def test_reading_and_other_commands_do_not_count(command: str) -> None:
    assert git_write_reason(command) is None
