"""Commands a git command line names for git to run, shown with the real git and then judged:
``--upload-pack`` / ``-u`` (an abbreviation too), ``--receive-pack``, an ``ext::`` remote, a
config key naming a program set with ``-c`` or ``git config`` (``core.editor``,
``remote.NAME.uploadpack``, ``gpg.program``), and ``--config-env``. Each was ``approve``
(unasked in yolo mode) where ``git -c core.sshCommand='rm -rf ~' fetch`` is denied."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_PACK = "{cmd}; git-upload-pack"  # the command, then what git expects to talk to
_SPELLINGS = [
    "git ls-remote --upload-pack='" + _PACK + "' ../src",
    "git ls-remote --upload-pack '" + _PACK + "' ../src",
    "git ls-remote --upload-p='" + _PACK + "' ../src",
    "git clone -q -u '" + _PACK + "' ../src clone",
    "git clone -q --upload-pack='" + _PACK + "' ../src clone",
    "git fetch -q --upload-pack='" + _PACK + "' ../src",
    "git -c protocol.ext.allow=always ls-remote 'ext::sh -c {ext}'",
    "git config remote.origin.uploadpack '" + _PACK + "' && git fetch -q origin",
    "git -c core.editor='{cmd}; true' commit -q --allow-empty",
    "git -c sequence.editor='{cmd}; true' rebase -q -i HEAD",
    "export X='{cmd}'; git --config-env=core.sshCommand=X ls-remote ssh://example.invalid/x",
]  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    environment = _environment(tmp_path)
    src, work = tmp_path / "src", tmp_path / "work"
    for path in (src, work):
        subprocess.run(["git", "init", "-q", str(path)], check=True, env=environment)
    subprocess.run(["git", "-C", str(src), "commit", "-q", "--allow-empty", "-m", "one"],
                   check=True, env=environment)  # fmt: skip
    subprocess.run(["git", "-C", str(work), "commit", "-q", "--allow-empty", "-m", "one"],
                   check=True, env=environment)  # fmt: skip
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin", "../src"], check=True,
                   env=environment)  # fmt: skip
    return work


def _environment(home: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t", "GIT_TERMINAL_PROMPT": "0"}  # fmt: skip


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_each_command_git_is_told_to_run_runs_and_is_judged(repo: Path, spelling: str):
    ran = repo.parent / "ran"
    command = spelling.format(cmd=f"touch {ran}", ext=f"touch% {ran}")
    subprocess.run(["bash", "-c", command], cwd=repo, env=_environment(repo.parent),
                   capture_output=True, stdin=subprocess.DEVNULL, check=False,
                   timeout=60)  # fmt: skip
    assert ran.exists(), f"{command} runs its command"
    policy = ShellPolicy(PathPolicy(str(repo), home="/root"))
    harmful = spelling.format(cmd="rm -rf /root", ext="rm% -rf% /root")
    verdict = policy.classify(harmful)
    assert verdict.decision == "deny", (harmful, verdict.reasons)


@pytest.mark.parametrize(
    "command",
    ["git -c core.editor=true rebase --continue", "git config core.editor vim",
     "git -c sequence.editor=: rebase -i HEAD~3", "git fetch -u origin", "git clone https://x/y",
     "git push origin main", "git -c user.name=x commit -m y",
     "git config gpg.program gpg2"],
)  # fmt: skip
def test_ordinary_git_is_not_denied(command: str):
    verdict = ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(command)
    assert verdict.decision != "deny", (command, verdict.reasons)


def test_the_ext_remote_is_read_as_git_splits_it():
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert (
        policy.classify(shlex.join(["git", "ls-remote", "ext::sh -c rm% -rf% /root"])).decision
        == "deny"
    )
    assert (
        policy.classify(shlex.join(["git", "ls-remote", "ext::sh -c rm -rf /root"])).decision
        != "deny"
    )
