"""Holes a red team proved in git's and ripgrep's ``allow``: each situation is built for real,
the command is run to show it really prints the secret, and the policy must not allow it —
while the ordinary commands next to it stay allowed.

1. objects no ref or reflog reaches (a popped stash's commits, ``git commit-tree``);
2. pseudo-refs (``FETCH_HEAD``, ``ORIG_HEAD``, ...);
3. a submodule's content (``grep --recurse-submodules``, ``--submodule=diff``);
4. a tracked file that is a hard link to a secret of the home;
5. ``.gitignore`` lines rg reads otherwise than a stripped line says (`` credentials``,
   ``id_rsa/``);
6. ``git diff A B`` where there is no repository (``--no-index``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._secret_inodes import secrets_have_other_names

if __package__:
    from .git_repos import git, new_repo
else:
    from git_repos import git, new_repo

SECRET = "API_KEY=sk-hole-0123456789abcdef"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- KEYMARK-0123456789"
RG = Path(sys.executable).with_name("rg")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with an ssh key (the real one is never read), and git's identity for commits."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_rsa").write_text(KEY + "\n")
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return path


def decision(command: str, workspace: Path, home: Path) -> str:
    verdict = ShellPolicy(PathPolicy(str(workspace), home=str(home))).classify(command)
    return verdict.decision


def prepared(command: str, workspace: Path, home: Path) -> str | None:
    verdict = ShellPolicy(PathPolicy(str(workspace), home=str(home))).classify(command)
    return verdict.prepared["command"] if verdict.prepared else None


def run(command: str, workspace: Path) -> str:
    done = subprocess.run(
        ["bash", "-c", command], cwd=workspace, capture_output=True, text=True, check=False,
        env={**os.environ, "PATH": f"{RG.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"},
    )  # fmt: skip
    return done.stdout + done.stderr


def assert_prints_and_is_not_allowed(command: str, workspace: Path, home: Path, marker: str):
    assert marker in run(command, workspace), f"the situation is not real: {command}"
    assert decision(command, workspace, home) != "allow", command


def commit_env(repo: Path) -> None:
    (repo / ".env").write_text(SECRET + "\n")
    git(repo, "add", ".env")
    git(repo, "commit", "-qm", "add config")


# --- 1. objects outside every ref and reflog ---------------------------------------------------


@pytest.fixture
def popped(tmp_path: Path, home: Path) -> tuple[Path, str]:
    """A repository whose ``.env`` was stashed with ``stash -a`` and popped: the stash commit
    (its third parent holds ``.env``) is reachable from nothing."""
    repo = new_repo(tmp_path / "repo")
    (repo / ".env").write_text(SECRET + "\n")
    (repo / "README.md").write_text("readme\nchanged\n")
    git(repo, "stash", "-q", "-a")
    stash = git(repo, "rev-parse", "stash@{0}")
    git(repo, "stash", "pop", "-q")
    (repo / ".env").unlink()
    return repo, stash


@pytest.mark.parametrize(
    "spelling",
    ["git grep API_KEY {sha}^3", "git log -p {sha}^3", "git log -p {sha}", "git show HEAD..{sha}",
     "git grep API_KEY {short}^3", "git show {sha}^3", "git diff HEAD {sha}^3"],
)  # fmt: skip
def test_an_unreachable_stash_commit_is_not_allowed(
    popped: tuple[Path, str], home: Path, spelling: str
) -> None:
    repo, stash = popped
    command = spelling.format(sha=stash, short=stash[:10])
    assert_prints_and_is_not_allowed(command, repo, home, SECRET)


@pytest.mark.parametrize(
    "spelling",
    ["git diff {sha}^3..HEAD", "git diff {short}^3..HEAD", "git diff ^{sha}^3 HEAD",
     "git diff {sha}^3..", "git log -p {sha}^3^!"],
)  # fmt: skip
def test_the_left_end_of_a_range_is_checked_as_well(
    popped: tuple[Path, str], home: Path, spelling: str
) -> None:
    """``git diff A..B`` prints A's tree too, which rev-list's ``B minus A`` leaves out (found by
    the second review)."""
    repo, stash = popped
    command = spelling.format(sha=stash, short=stash[:10])
    assert_prints_and_is_not_allowed(command, repo, home, SECRET)


def test_a_commit_made_by_commit_tree_is_not_allowed(tmp_path: Path, home: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / ".env").write_text(SECRET + "\n")
    git(repo, "add", ".env")
    tree = git(repo, "write-tree")
    commit = git(repo, "commit-tree", tree, "-m", "dangling")
    git(repo, "rm", "-q", "--cached", ".env")
    (repo / ".env").unlink()
    for command in (f"git show {commit}", f"git log -p {commit}", f"git grep API_KEY {tree}"):
        assert_prints_and_is_not_allowed(command, repo, home, SECRET)


def test_revisions_inside_the_history_stay_allowed(popped: tuple[Path, str], home: Path) -> None:
    repo, _ = popped
    (repo / "README.md").write_text("readme\nsecond\n")
    git(repo, "commit", "-qam", "second")
    head, first = git(repo, "rev-parse", "HEAD"), git(repo, "rev-parse", "HEAD~1")
    for command in (
        "git log -p", "git show HEAD~1", "git diff", "git diff HEAD~1 HEAD", "git grep readme",
        "git grep readme HEAD~1", f"git log -p {first}", f"git grep readme {head[:8]}",
        f"git log -p {first}..{head}", "git show HEAD~1:README.md", "git show 'HEAD^{tree}'",
        "git log -p --all", "git log -p -- README.md", "git log -p --stat -n 1 HEAD",
    ):  # fmt: skip
        assert decision(command, repo, home) == "allow", command


# --- 2. pseudo-refs -------------------------------------------------------------------------------


@pytest.fixture
def fetched(tmp_path: Path, home: Path) -> Path:
    """A repository that fetched, into FETCH_HEAD only, another's history with a ``.env``."""
    other = new_repo(tmp_path / "other")
    commit_env(other)
    repo = new_repo(tmp_path / "repo")
    git(repo, "fetch", "-q", str(other), "HEAD")
    return repo


@pytest.mark.parametrize(
    "command",
    ["git log -p FETCH_HEAD", "git show FETCH_HEAD", "git grep API_KEY FETCH_HEAD",
     "git diff HEAD FETCH_HEAD", "git log -p HEAD..FETCH_HEAD", "git diff FETCH_HEAD..HEAD",
     "git grep API_KEY 'FETCH_HEAD^{tree}'"],
)  # fmt: skip
def test_fetch_head_is_not_allowed(fetched: Path, home: Path, command: str) -> None:
    assert_prints_and_is_not_allowed(command, fetched, home, SECRET)


@pytest.mark.parametrize(
    "name",
    ["ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_HEAD", "AUTO_MERGE"],
)
def test_other_pseudo_refs_are_not_allowed(fetched: Path, home: Path, name: str) -> None:
    (fetched / ".git" / name).write_text(git(fetched, "rev-parse", "FETCH_HEAD") + "\n")
    for command in (f"git log -p {name}", f"git grep API_KEY {name}"):
        assert_prints_and_is_not_allowed(command, fetched, home, SECRET)


def test_a_fetch_that_updates_a_ref_stays_allowed(tmp_path: Path, home: Path) -> None:
    other = new_repo(tmp_path / "other")
    (other / "notes.md").write_text("notes\n")
    git(other, "add", "notes.md")
    git(other, "commit", "-qm", "notes")
    repo = new_repo(tmp_path / "repo")
    git(repo, "fetch", "-q", str(other), "HEAD:refs/remotes/other/main")
    for command in ("git log -p FETCH_HEAD", "git show other/main", "git diff HEAD FETCH_HEAD"):
        assert decision(command, repo, home) == "allow", command


# --- 3. submodules --------------------------------------------------------------------------------


@pytest.fixture
def with_submodule(tmp_path: Path, home: Path) -> Path:
    """A repository whose submodule ``sub`` has a committed ``.env``; the repository has none."""
    sub = new_repo(tmp_path / "sub")
    commit_env(sub)
    repo = new_repo(tmp_path / "repo")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(repo, "commit", "-qm", "add the submodule")
    return repo


@pytest.mark.parametrize(
    "command",
    ["git grep --recurse-submodules API_KEY", "git grep --cached --recurse-submodules API_KEY",
     "git diff --submodule=diff HEAD~1 HEAD", "git show --submodule=diff HEAD",
     "git log -p --submodule=diff -n 1"],
)  # fmt: skip
def test_a_submodules_content_is_not_allowed(
    with_submodule: Path, home: Path, command: str
) -> None:
    assert_prints_and_is_not_allowed(command, with_submodule, home, SECRET)


def test_configured_submodule_recursion_is_off_in_what_runs(
    with_submodule: Path, home: Path
) -> None:
    git(with_submodule, "config", "submodule.recurse", "true")
    git(with_submodule, "config", "diff.submodule", "diff")
    for command in ("git grep API_KEY", "git show HEAD", "git diff HEAD~1 HEAD"):
        assert SECRET in run(command, with_submodule), command  # the configuration is real
        script = prepared(command, with_submodule, home)
        assert script is None or SECRET not in run(script, with_submodule), command


def test_submodule_names_stay_allowed(with_submodule: Path, home: Path) -> None:
    for command in (
        "git diff --submodule=log HEAD~1 HEAD", "git show --submodule HEAD",
        "git ls-files --recurse-submodules", "git grep readme", "git status",
    ):  # fmt: skip
        assert decision(command, with_submodule, home) == "allow", command


# --- 4. a tracked file that is a hard link to a secret of the home ------------------------------


@pytest.fixture
def linked(tmp_path: Path, home: Path) -> Path:
    """A repository whose tracked ``a.txt`` became another name of the home's ssh key."""
    repo = new_repo(tmp_path / "repo")
    (repo / "a.txt").write_text("notes\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "notes")
    (repo / "a.txt").unlink()
    os.link(home / ".ssh" / "id_rsa", repo / "a.txt")
    return repo


@pytest.mark.parametrize(
    "command",
    ["git diff", "git grep -h KEYMARK", "git grep KEYMARK", "git diff HEAD", "git status -vv",
     "git diff -- a.txt", "git grep -h KEYMARK -- '*.txt'"],
)  # fmt: skip
def test_a_hard_link_to_a_secret_in_the_work_tree_is_not_allowed(
    linked: Path, home: Path, command: str
) -> None:
    assert_prints_and_is_not_allowed(command, linked, home, "KEYMARK")


def test_reads_of_the_history_beside_the_link_stay_allowed(linked: Path, home: Path) -> None:
    assert decision("cat a.txt", linked, home) == "deny"
    for command in ("git log -p", "git show HEAD", "git diff --cached", "git grep --cached notes"):
        assert decision(command, linked, home) == "allow", command


def test_work_tree_reads_stay_allowed_without_a_link(tmp_path: Path, home: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "README.md").write_text("readme\nchanged\n")
    os.link(repo / "README.md", tmp_path / "elsewhere.md")  # a link, but not to a secret
    os.link(home / ".ssh" / "id_rsa", tmp_path / "backup_key")  # the key has another name
    for command in ("git diff", "git grep readme", "git status -vv", "git diff HEAD"):
        assert decision(command, repo, home) == "allow", command


# --- 5. .gitignore as ripgrep reads it -----------------------------------------------------------


def ignoring(tmp_path: Path, gitignore: bytes, secret_file: str) -> Path:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)  # rg reads .gitignore only in a repository
    (workspace / ".gitignore").write_bytes(gitignore)
    secret = workspace / secret_file
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(KEY + "\n")
    (workspace / "README.md").write_text("readme\n")
    return workspace


@pytest.mark.skipif(not RG.exists(), reason="no rg beside the interpreter")
@pytest.mark.parametrize(
    ("gitignore", "secret_file"),
    [(b"id_rsa/\n", "keys/id_rsa"), (b" credentials\n", "credentials"),
     (b"id_rsa\x1f\n", "keys/id_rsa"), (b"notes\rid_rsa\n", "keys/id_rsa"),
     (b"id_rsa\\ \n", "keys/id_rsa"), (b" #id_rsa\nid_rsa/\n", "id_rsa")],
)  # fmt: skip
def test_what_rg_does_not_ignore_is_searched(
    tmp_path: Path, home: Path, gitignore: bytes, secret_file: str
) -> None:
    workspace = ignoring(tmp_path, gitignore, secret_file)
    assert_prints_and_is_not_allowed("rg KEYMARK", workspace, home, "KEYMARK")


@pytest.mark.skipif(not RG.exists(), reason="no rg beside the interpreter")
@pytest.mark.parametrize(
    ("gitignore", "secret_file"),
    [(b"id_rsa\n", "keys/id_rsa"), (b"keys/\n", "keys/id_rsa"), (b"id_rsa   \n", "id_rsa"),
     (b"# keys\r\ncredentials\r\n", "conf/credentials"), (b"vault/\n", "vault/id_rsa")],
)  # fmt: skip
def test_what_rg_ignores_is_still_skipped(
    tmp_path: Path, home: Path, gitignore: bytes, secret_file: str
) -> None:
    workspace = ignoring(tmp_path, gitignore, secret_file)
    assert "KEYMARK" not in run("rg KEYMARK", workspace)  # rg really skips it
    assert decision("rg KEYMARK", workspace, home) == "allow"
    assert decision("rg readme", workspace, home) == "allow"


# --- 6. git diff where there is no repository ---------------------------------------------------


@pytest.fixture
def no_repository(tmp_path: Path, home: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "e").mkdir(parents=True)
    (workspace / "d").mkdir()
    (workspace / "e" / "a.txt").write_text("a\n")
    (workspace / "d" / ".env.local").write_text(SECRET + "\n")
    return workspace


@pytest.mark.parametrize(
    "command", ["git diff e d", "git diff -- e d", "git diff --stat -p e d", "git diff -U3 e d"]
)
def test_git_diff_outside_a_repository_is_not_allowed(
    no_repository: Path, home: Path, command: str
) -> None:
    assert_prints_and_is_not_allowed(command, no_repository, home, SECRET)


def test_git_diff_of_a_secret_directory_outside_a_repository_is_denied(
    no_repository: Path, home: Path
) -> None:
    assert decision("git diff ~/.ssh e", no_repository, home) == "deny"


def test_git_diff_in_a_repository_and_without_two_paths_stays_allowed(
    no_repository: Path, tmp_path: Path, home: Path
) -> None:
    for command in ("git diff --stat", "git diff", "git diff HEAD~1 -- src/"):
        assert decision(command, no_repository, home) == "allow", command
    repo = new_repo(tmp_path / "repo")
    (repo / "e").mkdir()
    (repo / "d").mkdir()
    for command in ("git diff e d", "git diff -- README.md e", "git diff HEAD -- e d"):
        assert decision(command, repo, home) == "allow", command


# --- the cost of the link check ------------------------------------------------------------------


def test_a_cache_of_thousands_of_files_below_a_secret_directory_is_not_listed(tmp_path: Path):
    """``~/.kube/cache`` and gcloud's logs hold thousands of files and no credential: they do
    not make the listing too long, which would make every git diff check the work tree (the
    second review measured 290 ms a call in a repository of 100,000 files)."""
    home = tmp_path / "home"
    cache = home / ".kube" / "cache" / "discovery"
    cache.mkdir(parents=True)
    for number in range(2_100):
        (cache / f"{number}.json").write_text("{}")
    (home / ".kube" / "config").write_text("apiVersion: v1\n")
    assert not secrets_have_other_names(str(home))
    other = tmp_path / "other-home"
    shutil.copytree(home, other)
    os.link(other / ".kube" / "config", tmp_path / "other-copy")
    assert secrets_have_other_names(str(other))
