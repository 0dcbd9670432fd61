"""Hands for real: the installed ``tether`` command, the scripted loopback model, and one
loopback sshd serving two hands (two workspaces; one of them offers only ``read`` and ``ls``)
plus a configured hand nobody answers for. The model lists the hands, selects one, works there,
uses the other without switching, and the session says where each call ran."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import MODEL, run_tether, text_reply, tool_reply, write_models_toml

from tether.remote import DEFAULT_HAND_COMMAND, HandConfigError, load_hand_configs

from .sshd import SSHServer


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def write_hands(home: Path, sshd: SSHServer, alpha: Path, beta: Path) -> None:
    """``alpha`` with the default tools, ``beta`` with read and ls only, ``gone`` unreachable."""
    home.mkdir(parents=True, exist_ok=True)
    keys = f'known_hosts = "{sshd.known_hosts}"\nidentity = "{sshd.client_key}"\n'
    ssh = f'ssh = "{sshd.user}@127.0.0.1:{sshd.port}"\n'
    (home / "config.toml").write_text(
        f'[hands.alpha]\n{ssh}cwd = "{alpha}"\n{keys}\n'
        f'[hands.beta]\n{ssh}cwd = "{beta}"\n'
        f'command = "{DEFAULT_HAND_COMMAND} --tools read,ls"\n{keys}\n'
        f'[hands.gone]\nssh = "{sshd.user}@127.0.0.1:{_closed_port()}"\n{keys}'
    )


@pytest.fixture
def two_hands(sshd: SSHServer, tmp_path: Path) -> tuple[Path, Path, Path]:
    home, alpha, beta = tmp_path / "tether-home", tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    (alpha / "notes.txt").write_text("alpha notes\n")
    (beta / "b.txt").write_text("beta file\n")
    write_hands(home, sshd, alpha, beta)
    return home, alpha, beta


def tool_names(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.json().get("tools", [])]


def tool_results(request: Any) -> dict[str, str]:
    return {
        m["tool_call_id"]: m["content"] for m in request.json()["messages"] if m["role"] == "tool"
    }


async def test_hands_list_and_check_connect_and_show_tools_gate_and_place(
    sshd: SSHServer, two_hands: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    home, alpha, _ = two_hands
    listing = await run_tether("hands", "list", home=home, cwd=tmp_path)
    assert listing.code == 0, listing.stderr
    rows = {line.split()[0]: line for line in listing.stdout.splitlines()}
    address = f"{sshd.user}@127.0.0.1:{sshd.port}"
    assert f"{address}:{alpha}" in rows["alpha"] and "gate normal" in rows["alpha"]
    assert rows["alpha"].endswith("tools: read, bash, edit, write")
    assert rows["beta"].endswith("tools: read, ls")
    assert "unreachable: Cannot connect to" in rows["gone"]
    check = await run_tether("hands", "check", "beta", home=home, cwd=tmp_path)
    assert check.code == 0, check.stderr
    assert "  read: built-in governance" in check.stdout
    assert f"command: {DEFAULT_HAND_COMMAND} --tools read,ls" in check.stdout
    gone = await run_tether("hands", "check", "gone", home=home, cwd=tmp_path)
    assert gone.code == 1 and "gone" in gone.stdout and "unreachable" in gone.stdout
    missing = await run_tether("hands", "check", "nope", home=home, cwd=tmp_path)
    assert missing.code == 2 and "no hand named 'nope' (hands: alpha, beta, gone)" in missing.stderr


async def test_the_model_lists_selects_and_uses_hands_and_the_session_says_where_calls_ran(
    sshd: SSHServer, two_hands: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    home, alpha, beta = two_hands
    local = tmp_path / "local"
    local.mkdir()
    (local / "notes.txt").write_text("local notes\n")
    replies = [
        tool_reply(("c1", "list_hands", {})),
        tool_reply(("c2", "select_hand", {"name": "alpha"})),
        tool_reply(("c3", "read", {"path": "notes.txt"}), ("c4", "bash", {"command": "pwd"})),
        tool_reply(
            ("c5", "use_hand", {"name": "beta", "tool": "read", "arguments": {"path": "b.txt"}})
        ),
        # the model still holds alpha's catalog, with write, when it switches to beta
        tool_reply(
            ("c6", "select_hand", {"name": "beta"}),
            ("c7", "write", {"path": "x.txt", "content": "never\n"}),
        ),
        text_reply("done with hands"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "work on the hands", "--model", MODEL, "--mode", "json", home=home, cwd=local
        )
        assert done.code == 0, done.stderr
        requests = server.requests
        assert len(requests) == 6
        assert set(tool_names(requests[0])) == {
            "read",
            "bash",
            "edit",
            "write",
            "task_output",  # background tasks stay the Mind's, on this machine
            "task_list",
            "task_cancel",
            "list_hands",
            "select_hand",
            "use_hand",
        }
        listed = tool_results(requests[1])["c1"]
        assert "alpha: root@127.0.0.1" in listed and "tools: read, bash, edit, write" in listed
        assert "beta: " in listed and "tools: read, ls" in listed
        assert "gone: " in listed and "unreachable" in listed
        # alpha's tools are alike; this machine's background tasks are not offered for a hand
        tasks = {"task_output", "task_list", "task_cancel"}
        assert set(tool_names(requests[2])) == set(tool_names(requests[0])) - tasks
        results = tool_results(requests[3])
        assert results["c3"] == "alpha notes"
        assert results["c4"] == str(alpha)
        assert tool_results(requests[4])["c5"] == "beta file"
        # after select_hand("beta") the model is offered beta's tools, and never write
        assert set(tool_names(requests[5])) == {
            "read",
            "ls",
            "list_hands",
            "select_hand",
            "use_hand",
        }
        stale = tool_results(requests[5])["c7"]
        assert "\"write\" was offered from the catalog of hand 'alpha'" in stale
        assert "the current hand is now 'beta', which does not offer 'write'" in stale
        assert not (alpha / "x.txt").exists() and not (beta / "x.txt").exists()
        header = done.json_lines()[0]
        assert "hand" not in header  # nothing was current when the run started

        server.add(tool_reply(("c8", "read", {"path": "b.txt"})), text_reply("again"))
        resumed = await run_tether(
            "-c", "-p", "more", "--model", MODEL, "--mode", "json", home=home, cwd=local
        )
        assert resumed.code == 0, resumed.stderr
        assert resumed.json_lines()[0]["hand"] == "beta"  # the session's hand, restored
        assert set(tool_names(server.requests[6])) == set(tool_names(requests[5]))
        assert tool_results(server.requests[7])["c8"] == "beta file"
    shown = await run_tether("sessions", "show", header["id"], home=home, cwd=local)
    assert shown.code == 0, shown.stderr
    address = f"root@127.0.0.1:{sshd.port}"
    assert f"tool_result read on hand alpha ({address}): alpha notes" in shown.stdout
    assert f"tool_result bash on hand alpha ({address}): {alpha}" in shown.stdout
    assert f"tool_result use_hand on hand beta ({address}): beta file" in shown.stdout
    assert "[hand] alpha is the current hand" in shown.stdout
    assert "[hand] beta is the current hand" in shown.stdout
    assert "tool_result list_hands: alpha" in shown.stdout  # a Mind tool ran here


async def test_hand_configuration_errors_name_the_file_and_the_hand(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert load_hand_configs(tmp_path / "missing.toml") == {}
    cases = {
        '[hands.a]\ncwd = "/x"\n': 'needs ssh = "user@host[:port]"',
        '[hands.a]\nssh = "me@box:/srv"\n': "ssh names no directory; put it in cwd = '/srv'",
        '[hands.a]\nssh = "box"\ncwd = "rel"\n': "cwd must be an absolute path",
        '[hands.a]\nssh = "box"\nport = 2\n': "unknown key(s) port",
        '[hands."a b"]\nssh = "box"\n': "may hold only letters, digits, _ and -",
        '[hands.a]\nssh = "box:99999"\n': "port 99999 is out of range",
        '[hands.a]\nssh = "box"\ncommand = ""\n': "command must be a non-empty string",
        "hands = 3\n": "[hands] must be a table of hands",
    }
    for text, expected in cases.items():
        path.write_text(text)
        with pytest.raises(HandConfigError) as caught:
            load_hand_configs(path)
        assert str(path) in str(caught.value) and expected in str(caught.value), text
    path.write_text('[hands.b]\nssh = "me@box:2200"\nidentity = "~/.ssh/k"\n')
    (config,) = load_hand_configs(path).values()
    assert (config.name, config.user, config.host, config.port) == ("b", "me", "box", 2200)
    assert config.command == DEFAULT_HAND_COMMAND and config.identity == str(Path.home() / ".ssh/k")
