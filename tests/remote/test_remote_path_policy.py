"""Under ``--remote`` the path policy resolves paths on the remote host, never here.

The sshd of these tests runs in a mount namespace of its own where ``remote-ws`` is bound over
``ws``: on the "remote" host ``ws/link`` is a symlink out of the workspace, on this machine it is
a plain file inside it. A policy that asked this machine would allow reading the link; asking the
host, it needs approval — and reading or writing through it is never allowed unasked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import MODEL, run_tether, text_reply, tool_reply, write_models_toml

from tether.gate import PathPolicy, Verdict
from tether.remote import SSHOperations

from .sshd import SSHD_BINARY, SSHServer, mount_namespaces_work, start_sshd


@dataclass
class Views:
    server: SSHServer
    workspace: Path
    """The same path on both hosts; what is in it differs."""
    outside: Path


@pytest.fixture(scope="module")
def views(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Views]:
    if not os.path.exists(SSHD_BINARY):
        pytest.skip("OpenSSH server (/usr/sbin/sshd) is not installed")
    if not mount_namespaces_work():
        pytest.skip("no mount namespaces here (unshare --mount needs root)")
    root = tmp_path_factory.mktemp("views")
    workspace, remote, outside = root / "ws", root / "remote-ws", root / "outside"
    for directory in (workspace, remote, outside):
        directory.mkdir()
    (outside / "data.txt").write_text("outside the workspace\n")
    (workspace / "link").write_text("a plain file, on this machine only\n")
    (workspace / "notes.txt").write_text("local notes\n")
    (remote / "link").symlink_to(outside / "data.txt")
    (remote / "planned").symlink_to(outside / "planned.txt")  # dangling: not there yet
    (remote / "notes.txt").write_text("remote notes\n")
    server = start_sshd(root / "sshd", binds={remote: workspace})
    yield Views(server, workspace, outside)
    server.stop()


@pytest.fixture
async def operations(views: Views) -> AsyncIterator[SSHOperations]:
    operations = views.server.operations()
    yield operations
    await operations.close()


async def judged(policy: PathPolicy, path: str, access: str) -> Verdict:
    return await policy.judge(lambda: policy.check(path, access))  # type: ignore[arg-type]


async def test_the_two_hosts_see_different_files(views: Views, operations: SSHOperations) -> None:
    link = str(views.workspace / "link")
    assert await operations.real_path(link) == str(views.outside / "data.txt")
    assert os.path.realpath(link) == link
    assert PathPolicy(str(views.workspace)).check(link, "read").decision == "allow"


async def test_a_remote_symlink_out_of_the_workspace_is_outside(
    views: Views, operations: SSHOperations
) -> None:
    policy = PathPolicy(str(views.workspace), resolver=operations)
    read = await judged(policy, str(views.workspace / "link"), "read")
    assert read.decision == "approve"
    assert read.reasons == (f"read outside the workspace — link → {views.outside}/data.txt",)
    assert (await judged(policy, str(views.workspace / "link"), "write")).decision == "deny"
    planned = await judged(policy, str(views.workspace / "planned"), "write")
    assert planned.decision == "deny"
    assert planned.reasons == (
        f"write outside the workspace — planned → {views.outside}/planned.txt",
    )
    assert (await judged(policy, str(views.workspace / "notes.txt"), "read")).decision == "allow"


async def test_a_lost_host_denies_instead_of_allowing(views: Views) -> None:
    unreachable = SSHOperations(
        "127.0.0.1", user="root", port=1, known_hosts=views.server.known_hosts
    )
    policy = PathPolicy(str(views.workspace), resolver=unreachable)
    verdict = await judged(policy, str(views.workspace / "notes.txt"), "read")
    assert verdict.decision == "deny"
    assert verdict.reasons[0].startswith(f"cannot resolve the workspace {views.workspace}")
    await unreachable.close()


@pytest.fixture
def ssh_home(views: Views, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user-home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(views.server.client_key, home / ".ssh" / "id_ed25519")
    shutil.copy(views.server.known_hosts, home / ".ssh" / "known_hosts")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return home


async def test_tether_remote_asks_the_remote_host_about_a_symlink(
    views: Views, ssh_home: Path, tmp_path: Path
) -> None:
    replies = [
        tool_reply(
            ("c1", "read", {"path": "notes.txt"}),
            ("c2", "read", {"path": "link"}),
            ("c3", "write", {"path": "planned", "content": "planted\n"}),
            ("c4", "bash", {"command": "cat link"}),
        ),
        text_reply("done"),
    ]
    target = f"root@127.0.0.1:{views.server.port}:{views.workspace}"
    async with LoopbackServer(replies) as server:
        write_models_toml(tmp_path / "tether-home", server.url)
        done = await run_tether(
            "-p", "look", "--model", MODEL, "--remote", target,
            home=tmp_path / "tether-home", cwd=tmp_path,
        )  # fmt: skip
    assert done.code == 0, done.stderr
    results = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    notes, link, planned, cat = (m["content"] for m in results)
    assert "remote notes" in notes
    assert "read outside the workspace — link →" in link
    assert "nobody can answer an approval" in link
    assert "outside the workspace\n" not in link
    assert "write outside the workspace — planned →" in planned
    assert not (views.outside / "planned.txt").exists()
    # tether is installed there, so bash ran through the hand, in its sandbox: outside the
    # workspace is not there at all (bare SSH would have the shell policy ask, as for read)
    assert "cat: link: No such file or directory" in cat
    assert "outside the workspace\n" not in cat
