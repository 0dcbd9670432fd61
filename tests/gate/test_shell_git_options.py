"""git's option specs: one option, a meaning per subcommand; values with a grammar; anything
unknown refused."""

from __future__ import annotations

import pytest

from tether.gate._shell._git_options import read_git


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("log -p -S API_KEY", ()),
        ("log -SAPI_KEY --oneline", ()),
        ("log -L1,5:src/app.py", ("src/app.py",)),
        ("log -n 5 --format=%h%x09%s", ()),
        ("log --format %%G", ()),
        ("log -20 --stat", ()),
        ("blame -L 1,5 README.md", ("README.md",)),
        ("blame --contents draft.txt README.md", ("draft.txt", "README.md")),
        ("blame -w -C -C -C README.md", ("README.md",)),
        ("status -sb", ()),
        ("grep -ie TODO", ()),
        ("grep -f patterns.txt", ("patterns.txt",)),
        ("grep -n5 TODO src", ("src",)),
        ("show HEAD:README.md", ("README.md",)),
        ("branch -a --contains main", ()),
        ("stash list", ()),
        ("diff --stat=100 HEAD~1", ("HEAD~1",)),
    ],
)
def test_allowed_with_the_files_read(command: str, files: tuple[str, ...]) -> None:
    assert read_git(command.split()) == files


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("blame -S/etc/shadow README.md", "not an option"),
        ("blame -S .env README.md", "not an option"),
        ("log --show-signature", "not an option"),
        ("log --format=%GG", "runs gpg"),
        ("log --pretty=format:%h%G?", "runs gpg"),
        ("log --format %GK", "runs gpg"),
        ("branch --format=%(signature)", "runs gpg"),
        ("log -n five", "not a number"),
        ("log --outp=x", "not an option"),
        ("log --output=x", "not an option"),
        ("diff --ext-diff", "not an option"),
        ("diff --no-index a b", "not an option"),
        ("grep -O x", "not an option"),
        ("grep -iO x", "not an option"),
        ("grep --open-files-in-pager=sh x", "not an option"),
        ("grep --untracked KEY", "not an option"),
        ("tag -v v1", "not an option"),
        ("tag v2", "only listing"),
        ("branch -D main", "not an option"),
        ("cat-file --textconv HEAD:x", "not an option"),
        ("stash", "bare `git stash` writes"),
        ("stash push", "bare `git stash` writes"),
        ("remote add x y", "only `git remote -v`"),
        ("rebase -x id HEAD~1", "not a read-only subcommand"),
        ("-c core.pager=sh log", "global options"),
        ("log -pw", "not an option"),
    ],
)
def test_refused(command: str, why: str) -> None:
    refusal = read_git(command.split())
    assert isinstance(refusal, str), refusal
    assert why in refusal
