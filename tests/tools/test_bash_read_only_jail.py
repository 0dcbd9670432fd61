"""Commands the shell policy allows run in the read-only jail (real ``bwrap``): nothing they do
can write — the workspace, ``/tmp``, ``$HOME``, ``.git/config`` — or reach the network, and the
workspace's secrets read as empty. The gate hands the tool the word in every mode, sandbox on
or off; without bubblewrap the tool says so."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.gate.test_gated_coding_tools import run as run_calls

from tether.ai import ToolResultMessage
from tether.gate import Gate, Mode, ScriptedApprover, ShellPolicy, Verdict
from tether.tools import create_bash_tool, wrap_tool_definition
from tether.tools.operations._local_exec import LocalExecOperations
from tether.tools.operations._sandbox import BubblewrapSandbox

pytestmark = pytest.mark.skipif(
    not BubblewrapSandbox.available(), reason="bubblewrap cannot make a sandbox here"
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$HOME``: after a jailed command it must still be empty."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def workspace(tmp_path: Path, home: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "notes.txt").write_text("hello\n")
    (path / ".env").write_text("TOKEN=jail-secret\n")
    (path / "server.key").write_text("-----BEGIN PRIVATE KEY-----\n")
    return path


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace that the root mount shows (``/tmp`` is private)."""
    path = Path(tempfile.mkdtemp(prefix="tether-jail-test-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def jailed(command: str, workspace: Path, **options: Any) -> str:
    jail = BubblewrapSandbox(str(workspace), **options).read_only_jail()
    chunks: list[bytes] = []
    result = await LocalExecOperations(sandbox=jail).exec(
        command, cwd=str(workspace), on_output=chunks.append, timeout=30
    )
    assert not result.timed_out
    return b"".join(chunks).decode()


@pytest.mark.parametrize(
    "target",
    ["notes.txt", "new.txt", ".git/config", ".git/hooks/pre-commit", "/tmp/x", "/dev/shm/x",
     "/dev/x", "/run/x", "HOME/x", "HOME/.bashrc", "OUTSIDE/x"],
)  # fmt: skip
async def test_nothing_can_be_written_in_the_jail(
    target: str, workspace: Path, home: Path, outside: Path
) -> None:
    path = target.replace("HOME", str(home)).replace("OUTSIDE", str(outside))
    before = (workspace / ".git" / "config").read_text()
    output = await jailed(
        f"echo written >> {path}; touch {path}.t; mkdir {path}.d; echo status $?", workspace
    )
    assert "status 1" in output, output
    assert "Read-only file system" in output or "No such file" in output, output
    assert (workspace / "notes.txt").read_text() == "hello\n"
    assert not (workspace / "new.txt").exists()
    assert (workspace / ".git" / "config").read_text() == before
    assert list(home.iterdir()) == [] and list(outside.iterdir()) == []


async def test_git_cannot_write_the_repository_in_the_jail(workspace: Path) -> None:
    output = await jailed(
        "git config core.pager evil; git commit -q --allow-empty -m x; git status --short",
        workspace,
    )
    assert "Read-only file system" in output or "could not lock" in output, output
    assert "evil" not in (workspace / ".git" / "config").read_text()
    assert not (workspace / ".git" / "refs" / "heads" / "master").exists()
    assert not (workspace / ".git" / "refs" / "heads" / "main").exists()


async def test_the_jail_masks_secrets_and_has_no_network(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "sk-jail-0123456789")
    output = await jailed(
        "cat notes.txt .env server.key; env; exec 3<>/dev/tcp/127.0.0.1/22 && echo connected",
        workspace,
        allow_network=True,  # a jail has no network whatever the sandbox allows
    )
    assert "hello" in output
    assert "jail-secret" not in output and "PRIVATE KEY" not in output
    assert "sk-jail" not in output and "SERVICE_API_KEY" not in output
    assert "connected" not in output


# --- the gate hands the word to the tool -------------------------------------------------------


async def run(gate: Gate, tool: Any, *calls: dict[str, Any]) -> list[ToolResultMessage]:
    return await run_calls(gate, [tool], *[("bash", call) for call in calls])


class _WrongProof(ShellPolicy):
    """A shell policy whose proof is wrong: it allows a command that writes."""

    def classify(self, command: str) -> Verdict:
        return Verdict("allow", ("proved (wrongly)",), {"command": command})


@pytest.mark.parametrize("mode", ["strict", "normal", "review", "yolo"])
@pytest.mark.parametrize("sandbox", [True, False])
async def test_an_allowed_command_runs_in_the_jail_in_every_mode(
    mode: Mode, sandbox: bool, workspace: Path
) -> None:
    """Even when the proof is wrong, the write fails: the jail is the second guard."""
    gate = Gate(mode, ScriptedApprover(itertools.repeat("allow_once")), workspace=str(workspace))
    gate.policies = type(gate.policies)(shell=_WrongProof(), paths=gate.policies.paths)
    tool = wrap_tool_definition(create_bash_tool(str(workspace), sandbox=sandbox))
    assert tool.metadata["read_only_jail"] is True
    (result,) = await run(gate, tool, {"command": "touch made.txt"})
    assert result.is_error and result.details is not None, result.content
    assert result.details["read_only_jail"] is True
    assert "read-only jail" in "".join(getattr(b, "text", "") for b in result.content)
    assert not (workspace / "made.txt").exists()


async def test_the_model_cannot_send_the_word_itself(workspace: Path) -> None:
    gate = Gate("yolo", workspace=str(workspace))
    tool = wrap_tool_definition(create_bash_tool(str(workspace), sandbox=False))
    (result,) = await run(gate, tool, {"command": "ls", "proved_read_only": False})
    assert result.is_error and "unknown argument 'proved_read_only'" in result.content[0].text  # type: ignore[union-attr]


async def test_an_approved_command_is_not_jailed(workspace: Path) -> None:
    gate = Gate("yolo", workspace=str(workspace))
    tool = wrap_tool_definition(create_bash_tool(str(workspace), sandbox=False))
    listed, made = await run(gate, tool, {"command": "ls"}, {"command": "touch made.txt"})
    assert listed.details["read_only_jail"] is True and "notes.txt" in listed.content[0].text  # type: ignore[union-attr]
    assert not made.is_error and made.details["read_only_jail"] is False
    assert (workspace / "made.txt").exists()


async def test_without_bubblewrap_the_proof_alone_decides(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BubblewrapSandbox, "available", staticmethod(lambda: False))
    definition = create_bash_tool(str(workspace), sandbox=False)
    assert definition.metadata["read_only_jail"] is False
    assert "read-only jail" not in definition.description
    gate = Gate("strict", workspace=str(workspace))
    (listed,) = await run(gate, wrap_tool_definition(definition), {"command": "ls"})
    assert not listed.is_error and listed.details["read_only_jail"] is False
