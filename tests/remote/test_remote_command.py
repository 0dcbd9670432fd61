"""``tether -p --remote`` for real: the installed command, the scripted loopback model server,
and the loopback sshd as the remote host. Tools run in the remote directory; the gate, running
here, takes that directory as its workspace; the summary says where the tools ran."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import MODEL, run_tether, text_reply, tool_reply, write_models_toml

from tether.remote import RemoteTarget, RemoteTargetError, parse_remote_target

from .sshd import SSHServer, start_sshd


async def test_print_mode_runs_the_tools_on_the_remote_host(
    sshd: SSHServer, ssh_home: Path, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local", tmp_path / "remote-ws"
    local.mkdir()
    remote.mkdir()
    (remote / "notes.txt").write_text("remote notes\n")
    (tmp_path / "outside.txt").write_text("outside the remote workspace\n")
    replies = [
        tool_reply(
            ("c1", "bash", {"command": "pwd"}),
            ("c2", "read", {"path": "notes.txt"}),
            ("c3", "write", {"path": "made.txt", "content": "from the model\n"}),
            ("c4", "read", {"path": str(tmp_path / "outside.txt")}),
        ),
        text_reply("done remotely"),
    ]
    target = f"root@127.0.0.1:{sshd.port}:{remote}"
    async with LoopbackServer(replies) as server:
        write_models_toml(tmp_path / "tether-home", server.url)
        done = await run_tether(
            "-p",
            "work there",
            "--model",
            MODEL,
            "--remote",
            target,
            home=tmp_path / "tether-home",
            cwd=local,
        )
    assert done.code == 0, done.stderr
    assert done.stdout == "done remotely\n"
    results = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    pwd, notes, written, outside = (m["content"] for m in results)
    assert pwd == str(remote)
    assert "remote notes" in notes
    assert "made.txt" in written and (remote / "made.txt").read_text() == "from the model\n"
    assert not (local / "made.txt").exists()
    assert "nobody can answer an approval" in outside  # outside the gate's root: approval
    assert "outside the remote workspace" not in outside
    assert f"tether: tools ran on root@127.0.0.1:{sshd.port}:{remote}" in done.stderr
    system = server.requests[0].json()["messages"][0]["content"]
    assert str(remote) in system


async def test_an_untrusted_host_key_stops_the_command_before_the_run(
    sshd: SSHServer, ssh_home: Path, tmp_path: Path
) -> None:
    (ssh_home / ".ssh" / "known_hosts").write_text("")
    async with LoopbackServer([text_reply("never")]) as server:
        write_models_toml(tmp_path / "tether-home", server.url)
        done = await run_tether(
            "-p",
            "hi",
            "--model",
            MODEL,
            "--remote",
            f"root@127.0.0.1:{sshd.port}",
            home=tmp_path / "tether-home",
            cwd=tmp_path,
        )
    assert done.code != 0
    assert f"--remote: Refusing to connect to root@127.0.0.1:{sshd.port}" in done.stderr
    assert server.requests == []


def test_remote_targets_parse_user_host_port_and_path() -> None:
    assert parse_remote_target("box") == RemoteTarget("box")
    assert parse_remote_target("me@box:2222") == RemoteTarget("box", "me", 2222)
    assert parse_remote_target("me@box:/srv/app/") == RemoteTarget("box", "me", 22, "/srv/app")
    assert parse_remote_target("box:2222:/srv") == RemoteTarget("box", None, 2222, "/srv")
    assert parse_remote_target("[::1]:2200:/w") == RemoteTarget("::1", None, 2200, "/w")
    for bad in ("@box", "box:port", "box:22:relative", ":22", "box:70000"):
        with pytest.raises(RemoteTargetError):
            parse_remote_target(bad)


async def test_without_tether_on_the_host_remote_falls_back_to_bare_ssh_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = start_sshd(tmp_path / "bare-sshd", ripgrep_on_path=False)  # no tether on its PATH
    try:
        home = tmp_path / "user-home"
        (home / ".ssh").mkdir(parents=True)
        shutil.copy(bare.client_key, home / ".ssh" / "id_ed25519")
        shutil.copy(bare.known_hosts, home / ".ssh" / "known_hosts")
        monkeypatch.setenv("HOME", str(home))
        remote = tmp_path / "remote-ws"
        remote.mkdir()
        (remote / "notes.txt").write_text("bare notes\n")
        replies = [tool_reply(("c1", "read", {"path": "notes.txt"})), text_reply("read barely")]
        async with LoopbackServer(replies) as server:
            write_models_toml(tmp_path / "tether-home", server.url)
            done = await run_tether(
                "-p", "read", "--model", MODEL, "--remote", f"root@127.0.0.1:{bare.port}:{remote}",
                home=tmp_path / "tether-home", cwd=tmp_path,
            )  # fmt: skip
    finally:
        bare.stop()
    assert done.code == 0, done.stderr
    notice = f"--remote: no tether hand answered on root@127.0.0.1:{bare.port}"
    assert notice in done.stderr and "over bare SSH" in done.stderr
    (result,) = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert "bare notes" in result["content"]
