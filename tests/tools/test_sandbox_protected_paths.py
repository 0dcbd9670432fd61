"""The sandbox as the guard of the workspace, against the real ``bwrap`` and the real ``git``:
a command the policy only marks ``approve`` runs unasked in the sandbox, so it must not be able
to plant code that runs outside later (``.git`` config and hooks, a bare-repository layout,
editor and toolchain files), nor read the workspace's secrets. Each attack is made through the
gated bash tool as a model would, then the person's own ``git`` runs outside the sandbox and
must run nothing planted."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, agent_loop
from tether.ai import AbortController, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate, Mode, ScriptedApprover
from tether.tools import create_bash_tool, wrap_tool_definition
from tether.tools.operations import _sandbox_workspace
from tether.tools.operations._local_exec import LocalExecOperations
from tether.tools.operations._sandbox import BubblewrapSandbox

pytestmark = pytest.mark.skipif(
    not BubblewrapSandbox.available() or shutil.which("git") is None,
    reason="needs bubblewrap able to make a sandbox here and git",
)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


@pytest.fixture
def marker() -> Iterator[Path]:
    """Where a planted command would leave its mark: outside the workspace and outside the
    sandbox's private /tmp, so a planted command that ran anywhere would be seen."""
    directory = Path(tempfile.mkdtemp(prefix="tether-planted-", dir="/var/tmp"))
    try:
        yield directory / "RAN"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "README").write_text("hello\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "init")
    return path


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """A workspace that is no git repository (and lies in none: git stops at tmp_path)."""
    path = tmp_path / "plain"
    path.mkdir()
    (path / "app.py").write_text("print('hi')\n")
    return path


def git(cwd: Path, *args: str, ceiling: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The person's git, outside the sandbox."""
    env = {**os.environ, **GIT_ENV}
    if ceiling is not None:
        env["GIT_CEILING_DIRECTORIES"] = str(ceiling)
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=30, check=False
    )


async def gated_bash(
    workspace: Path, *commands: str, mode: Mode = "normal", approver: Any = None
) -> tuple[list[ToolResultMessage], Gate]:
    """Run each command as a model's bash call through the gate; the results the model sees."""
    gate = Gate(mode, approver, workspace=str(workspace))
    tool = wrap_tool_definition(create_bash_tool(str(workspace), sandbox=True))
    calls = [faux_tool_call("bash", {"command": command}) for command in commands]
    fm = FauxModel([faux_message(*calls), faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [tool]),
        AgentLoopConfig(
            model=fm.model,
            stream_fn=fm.stream,
            before_tool_call=gate.before_tool_call,
            after_tool_call=gate.after_tool_call,
            tool_execution="sequential",
        ),
    )
    results = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    return results, gate


def text(result: ToolResultMessage) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def python(code: str) -> str:
    return "python3 -c " + _quote(code)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


FSMONITOR = "[core]\n\tfsmonitor = echo RAN > {marker}; false\n"


def listing(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")}


# --- item 1: code planted in .git runs later, outside ---------------------------------------------


async def test_fsmonitor_appended_to_git_config_cannot_be_planted(repo: Path, marker: Path) -> None:
    config_before = (repo / ".git" / "config").read_text()
    attack = python(
        f"open('.git/config','a').write({FSMONITOR.format(marker=marker)!r})",
    )
    [result], gate = await gated_bash(repo, attack)

    assert result.is_error
    assert gate.records[0].decided_by == "sandbox"  # it ran unasked, as approve does
    assert "Read-only file system" in text(result)
    assert ".git/ is the git repository" in text(result)
    assert "person" in text(result)
    assert (repo / ".git" / "config").read_text() == config_before
    status = git(repo, "status", "--short")
    assert status.returncode == 0
    assert not marker.exists()


async def test_a_pre_commit_hook_cannot_be_planted(repo: Path, marker: Path) -> None:
    hook = f"#!/bin/sh\necho RAN > {marker}\n"
    attack = python(
        "import os; os.makedirs('.git/hooks', exist_ok=True); "
        f"open('.git/hooks/pre-commit','w').write({hook!r}); "
        "os.chmod('.git/hooks/pre-commit', 0o755)"
    )
    [result], _ = await gated_bash(repo, attack)

    assert result.is_error and ".git/" in text(result)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    commit = git(repo, "commit", "-q", "--allow-empty", "-m", "by the person")
    assert commit.returncode == 0, commit.stderr
    assert not marker.exists()


async def test_commondir_cannot_point_git_at_a_planted_config(repo: Path, marker: Path) -> None:
    attack = (
        "mkdir -p .git/x && printf 'x\\n' > .git/commondir && "
        f"printf '{FSMONITOR.format(marker=marker)}' > .git/x/config"
    )
    [result], _ = await gated_bash(repo, attack)

    assert result.is_error and "Read-only file system" in text(result)
    assert not (repo / ".git" / "commondir").exists()
    assert git(repo, "status").returncode == 0
    assert not marker.exists()


async def test_a_non_git_workspace_cannot_become_a_bare_repository(
    plain: Path, marker: Path
) -> None:
    before = listing(plain)
    layout = (
        "mkdir -p objects refs/heads && printf 'ref: refs/heads/main\\n' > HEAD && "
        f"printf '[core]\\n\\tbare = true\\n\\tfsmonitor = echo RAN > {marker}; false\\n'"
        " > config"
    )
    results, _ = await gated_bash(plain, layout, "mkdir .git/x", "printf 'gitdir: x' > .git")

    for result in results:
        assert result.is_error, text(result)
    assert "HEAD is a HEAD at the workspace root" in text(results[0])
    assert ".git/ is the git repository" in text(results[1])
    status = git(plain, "status", ceiling=plain.parent)
    assert status.returncode != 0  # still no repository here
    assert not marker.exists()
    assert not (plain / "HEAD").exists() and not (plain / ".git").exists()
    assert listing(plain) - before <= {"objects", "refs", "refs/heads", "config"}


async def test_a_person_approved_git_commit_runs_with_git_writable(repo: Path) -> None:
    approver = ScriptedApprover(["allow_once"])
    [result], gate = await gated_bash(
        repo, "git add README && git commit -q --allow-empty -m 'by the agent'", approver=approver
    )

    assert not result.is_error, text(result)
    assert [r.decided_by for r in gate.records] == ["approver"]
    assert "git add may write the repository" in approver.requests[0].reason
    assert "by the agent" in git(repo, "log", "--oneline").stdout


@pytest.mark.parametrize(
    ("mode", "asked", "outcome"),
    [("strict", 0, "denied"), ("review", 1, "denied"), ("normal", 1, "denied"), ("yolo", 0, "ok")],
)
async def test_git_commands_that_write_need_a_person_in_every_mode_but_yolo(
    repo: Path, mode: Mode, asked: int, outcome: str
) -> None:
    approver = ScriptedApprover(["deny_once"])
    [result], _ = await gated_bash(
        repo, "git commit -q --allow-empty -m x", mode=mode, approver=approver
    )

    assert len(approver.requests) == asked
    assert result.is_error == (outcome == "denied"), text(result)
    commits = git(repo, "rev-list", "--count", "HEAD").stdout.strip()
    assert commits == ("2" if outcome == "ok" else "1")


async def test_read_only_git_commands_still_run_unasked(repo: Path) -> None:
    results, gate = await gated_bash(repo, "git status --short", "git log --oneline | cat")

    assert [r.is_error for r in results] == [False, False]
    assert {r.decided_by for r in gate.records} <= {"policy", "sandbox"}


# --- item 1: files that make other programs run code ----------------------------------------------

CONTROL_FILES = (
    ".envrc",
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".idea/workspace.xml",
    "rust-toolchain.toml",
    "rust-toolchain",
    ".pre-commit-config.yaml",
    ".rgignore",
    ".ignore",
)


@pytest.mark.parametrize("name", CONTROL_FILES)
async def test_control_files_cannot_be_created(repo: Path, name: str) -> None:
    before = listing(repo)
    attack = python(
        "import os; "
        f"os.makedirs(os.path.dirname({name!r}) or '.', exist_ok=True); "
        f"open({name!r}, 'w').write('planted')"
    )
    [result], _ = await gated_bash(repo, attack)

    assert result.is_error
    assert "The sandbox keeps protected paths read-only" in text(result)
    assert not (repo / name).exists()
    assert listing(repo) == before  # no placeholder left behind


@pytest.mark.parametrize("name", CONTROL_FILES)
async def test_existing_control_files_cannot_be_changed(repo: Path, name: str) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text("original\n")
    [result], _ = await gated_bash(
        repo, f"echo planted >> {name} || rm -f {name} || mv {name} moved"
    )

    assert result.is_error and "Read-only file system" in text(result)
    assert (repo / name).read_text() == "original\n"


async def test_control_files_below_the_root_are_read_only_too(repo: Path) -> None:
    (repo / "sub" / ".vscode").mkdir(parents=True)
    (repo / "sub" / ".envrc").write_text("export A=1\n")
    [result], _ = await gated_bash(repo, "echo x > sub/.envrc; touch sub/.vscode/tasks.json")

    assert result.is_error
    assert (repo / "sub" / ".envrc").read_text() == "export A=1\n"
    assert not (repo / "sub" / ".vscode" / "tasks.json").exists()


async def test_a_git_repository_planted_below_the_root_is_moved_aside(
    repo: Path, marker: Path
) -> None:
    attack = python(
        "import os; [os.makedirs('sub/.git/' + d) for d in ('objects', 'refs')]; "
        "open('sub/.git/HEAD', 'w').write('ref: refs/heads/main\\n'); "
        f"open('sub/.git/config', 'w').write({FSMONITOR.format(marker=marker)!r}); "
        "print('planted')"
    )
    assert git(repo, "init", "-q", str(repo / "probe")).returncode == 0  # the layout is git's
    shutil.rmtree(repo / "probe")
    [result], gate = await gated_bash(repo, attack)

    assert gate.records[0].decided_by == "sandbox"
    assert "planted" in text(result)  # the command itself succeeded inside
    assert "sub/.git → sub/.git.tether-quarantined" in text(result)
    assert "ask them to do it outside the sandbox" in text(result)
    assert not (repo / "sub" / ".git").exists()
    assert (repo / "sub" / ".git.tether-quarantined" / "config").is_file()  # nothing lost
    assert git(repo / "sub", "status").returncode == 0  # the person's git, in sub
    assert not marker.exists()


async def test_a_bare_repository_layout_below_the_root_is_defused(repo: Path, marker: Path) -> None:
    config = f"[core]\n\tbare = true\n\tfsmonitor = echo RAN > {marker}; false\n"
    layout = python(
        "import os; os.makedirs('sub/objects'); os.makedirs('sub/refs/heads'); "
        "open('sub/HEAD', 'w').write('ref: refs/heads/main\\n'); "
        f"open('sub/config', 'w').write({config!r})"
    )
    [result], _ = await gated_bash(repo, layout)

    assert "sub/HEAD → sub/HEAD.tether-quarantined" in text(result)
    assert not (repo / "sub" / "HEAD").exists()
    git(repo / "sub", "status")
    assert not marker.exists()


async def test_control_files_created_below_the_root_are_moved_aside(repo: Path) -> None:
    [result], _ = await gated_bash(
        repo,
        python(
            "import os; os.makedirs('a/b'); os.mkdir('a/.vscode'); "
            "open('a/b/.envrc', 'w').write('echo hi'); print('ok')"
        ),
    )

    assert "ok" in text(result)
    for planted in ("a/b/.envrc", "a/.vscode"):
        assert not (repo / planted).exists()
        assert (repo / (planted + ".tether-quarantined")).exists()
        assert planted in text(result)


async def test_what_existed_before_the_command_is_left_where_it_is(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / ".envrc").write_text("export A=1\n")
    [result], _ = await gated_bash(repo, "cat sub/.envrc; touch notes.txt")

    assert not result.is_error, text(result)
    assert "moved aside" not in text(result)
    assert (repo / "sub" / ".envrc").read_text() == "export A=1\n"


async def test_an_approved_git_init_below_the_root_keeps_its_repository(repo: Path) -> None:
    approver = ScriptedApprover(["allow_once"])
    [result], _ = await gated_bash(repo, "git init -q sub", approver=approver)

    assert not result.is_error, text(result)
    assert (repo / "sub" / ".git").is_dir()


async def test_dangling_symlinks_named_like_protected_files_do_not_stop_the_sandbox(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / ".ignore").symlink_to(tmp_path / "nowhere")
    (repo / ".env.local").symlink_to(tmp_path / "nowhere-either")
    (tmp_path / "real.env").write_text("LINKED_CRED=plainvalue-link\n")
    (repo / "config.env").write_text("x\n")
    (repo / ".env").symlink_to(tmp_path / "real.env")
    # An indirection the policy cannot resolve, so the sandbox is what stands in the way.
    [result], _ = await gated_bash(repo, "echo alive; cat $(ls -a | grep -x .env)")

    assert not result.is_error, text(result)
    assert "alive" in text(result) and "plainvalue" not in text(result)


async def test_the_rest_of_the_workspace_stays_writable(repo: Path) -> None:
    [result], _ = await gated_bash(
        repo, "mkdir -p build && echo ok > build/out.txt && echo new > notes.md && cat notes.md"
    )

    assert not result.is_error, text(result)
    assert (repo / "build" / "out.txt").read_text() == "ok\n"


async def test_placeholders_outlive_no_command_and_serve_parallel_ones(repo: Path) -> None:
    sandbox = BubblewrapSandbox(str(repo))
    ops = LocalExecOperations(sandbox=sandbox)

    async def run(command: str) -> str:
        chunks: list[bytes] = []
        await ops.exec(command, cwd=str(repo), on_output=chunks.append, timeout=20)
        return b"".join(chunks).decode()

    slow = asyncio.ensure_future(run("sleep 1; touch .envrc 2>&1; echo done"))
    await asyncio.sleep(0.3)
    assert (repo / ".envrc").is_dir()  # the slow command's placeholder
    await run("true")  # a second command ends meanwhile
    assert "done" in await slow
    assert "Is a directory" in (await slow) or not (repo / ".envrc").exists()
    assert not (repo / ".envrc").exists()


# --- item 2: the workspace's secrets ------------------------------------------------------------


async def test_workspace_secrets_read_as_empty(repo: Path) -> None:
    (repo / ".env").write_text("MY_SERVICE_CRED=plainvalue-1234\n")
    (repo / ".env.example").write_text("MY_SERVICE_CRED=change-me\n")
    (repo / ".env.sample").write_text("SAMPLE=1\n")
    (repo / "config").mkdir()
    (repo / "config" / ".env.production").write_text("PROD_CRED=plainvalue-5678\n")
    (repo / "deploy.key").write_text("plainvalue-key\n")
    (repo / "tls.pem").write_text("-----BEGIN PRIVATE KEY-----\nplainvalue\n")
    (repo / "id_ed25519").write_text("plainvalue-ssh\n")
    commands = (
        "cat $(echo .env)",
        python("import glob; [print(open(p).read()) for p in glob.glob('.e*')]"),
        "cat config/.env.production deploy.key tls.pem id_ed25519",
        "cat .env.example .env.sample",
    )
    results, gate = await gated_bash(repo, *commands)

    assert all(r.decided_by in ("sandbox", "policy") for r in gate.records), gate.records
    for result in results[:3]:
        assert "plainvalue" not in text(result), text(result)
    assert "change-me" in text(results[3]) and "SAMPLE=1" in text(results[3])
    assert (repo / ".env").read_text() == "MY_SERVICE_CRED=plainvalue-1234\n"  # untouched


async def test_an_npmrc_with_a_token_reads_as_empty_and_one_without_stays(repo: Path) -> None:
    (repo / ".npmrc").write_text("//registry.npmjs.org/:_authToken=plainvalue-npm\n")
    (repo / "pkg").mkdir()
    (repo / "pkg" / ".npmrc").write_text("save-exact=true\n")
    [result], _ = await gated_bash(repo, "cat .npmrc pkg/.npmrc")

    assert "plainvalue" not in text(result)
    assert "save-exact=true" in text(result)


async def test_a_secret_directory_in_the_workspace_is_hidden(repo: Path) -> None:
    (repo / ".gnupg").mkdir()
    (repo / ".gnupg" / "secring.gpg").write_text("plainvalue\n")
    [result], _ = await gated_bash(repo, "ls -A .gnupg; cat .gnupg/secring.gpg")

    assert "plainvalue" not in text(result)


async def test_a_scan_past_its_limit_says_so(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(30):
        (repo / f"f{index}.txt").write_text("x")
    monkeypatch.setattr(_sandbox_workspace, "SCAN_ENTRY_LIMIT", 10)
    tool = create_bash_tool(str(repo), sandbox=True)
    result = await tool.execute("1", {"command": "true"}, AbortController().signal, None, None)  # type: ignore[arg-type]

    shown = "".join(getattr(block, "text", "") for block in result.content)  # type: ignore[union-attr]
    assert "The sandbox checked only part of the workspace" in shown


async def test_a_scan_stops_before_too_many_mounts(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(5):
        (repo / f"d{index}").mkdir()
        (repo / f"d{index}" / ".env").write_text("plainvalue\n")
    monkeypatch.setattr(_sandbox_workspace, "MOUNT_LIMIT", 3)
    scan = _sandbox_workspace.scan_workspace(str(repo))

    assert not scan.complete and len(scan.read_only) + len(scan.secrets) == 3


# --- item 6: /tmp is capped ---------------------------------------------------------------------


async def test_tmp_is_capped(repo: Path) -> None:
    sandbox = BubblewrapSandbox(str(repo), tmp_size=1024 * 1024)
    chunks: list[bytes] = []
    result = await LocalExecOperations(sandbox=sandbox).exec(
        "head -c 3000000 /dev/zero > /tmp/big",
        cwd=str(repo),
        on_output=chunks.append,
        timeout=20,
    )

    assert result.exit_code != 0
    assert "No space left on device" in b"".join(chunks).decode()


def test_tmp_has_a_default_cap(repo: Path) -> None:
    argv = BubblewrapSandbox(str(repo)).wrap(["true"])

    size = argv.index("--size")
    assert argv[size + 1] == str(512 * 1024 * 1024) and argv[size + 2 : size + 4] == [
        "--tmpfs",
        "/tmp",
    ]


def test_the_list_is_shared_with_the_file_tools(repo: Path) -> None:
    """The file tools refuse to change, unasked, what the sandbox keeps read-only."""
    from tether.gate import PathPolicy

    policy = PathPolicy(str(repo))
    for name in (*CONTROL_FILES, ".git/commondir", ".git/x/config", "HEAD"):
        assert policy.check(str(repo / name), "write").decision != "allow", name
