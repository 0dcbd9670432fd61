"""A hand's approval request reaches this side's person — the interactive terminal (tmux), the
rpc client, or a denial in print mode — and the answer goes back bound to the digest, once.

This side runs in ``yolo`` so that every request seen here is the hand's own (its gate runs in
``normal``): a read outside the hand's workspace, or a git command that writes a repository.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.cli.support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)
from tests.cli.test_rpc_mode import of_type, start_rpc
from tests.cli.tmux import TmuxPane

from tether.agent import ToolError
from tether.ai import AbortController
from tether.gate import ScriptedApprover
from tether.remote import HandClient, SSHOperations

from .sshd import SSHServer
from .test_hands import write_hands

HAND = str(Path(sys.executable).with_name("tether"))


@pytest.fixture
def hands(sshd: SSHServer, tmp_path: Path) -> tuple[Path, Path, Path]:
    """The tether home with hands alpha and beta, alpha's workspace, and a file outside it."""
    home, alpha, beta = tmp_path / "tether-home", tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside text\n")
    write_hands(home, sshd, alpha, beta)
    return home, alpha, outside


async def test_rpc_answers_the_hands_request_and_allow_session_stays_one_call(
    hands: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    home, alpha, outside = hands
    read = ("read", {"path": str(outside)})
    replies = [
        tool_reply(("c1", *read)),
        tool_reply(("c2", *read)),
        text_reply("done"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        rpc = await start_rpc(home, alpha, "--gate", "yolo", "--hand", "alpha")
        header = await rpc.next_matching(of_type("session"))
        assert header["hand"] == "alpha"
        await rpc.send({"type": "prompt", "text": "read it twice"})
        request = await rpc.next_matching(of_type("approval_request"))
        assert request["tool_name"] == "read on alpha"
        assert request["args"] == {"path": str(outside)}
        assert (
            "the hand on alpha" in request["reason"]
            and "outside the workspace" in request["reason"]
        )
        await rpc.send(
            {"type": "approval", "request_id": request["request_id"], "decision": "allow_session"}
        )
        first = await rpc.next_matching(of_type("tool_execution_end"))
        # allow_session here is not a standing permission there: the same read asks again
        again = await rpc.next_matching(of_type("approval_request"))
        assert again["tool_name"] == "read on alpha" and again["args"] == request["args"]
        await rpc.send(
            {"type": "approval", "request_id": again["request_id"], "decision": "deny_once"}
        )
        second = await rpc.next_matching(of_type("tool_execution_end"))
        await rpc.next_matching(of_type("agent_end"))
        assert await rpc.close() == 0
    assert first["is_error"] is False
    assert "outside text" in first["result"]["content"][0]["text"]
    assert "approved the call once on alpha" in first["result"]["content"][-1]["text"]
    assert second["is_error"] is True
    text = json.dumps(second["result"]["content"])
    assert "outside text" not in text and "did not approve the hand's request (deny_once)" in text


async def test_the_terminal_answers_the_hands_request(
    hands: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    home, alpha, outside = hands
    replies = [tool_reply(("c1", "read", {"path": str(outside)})), text_reply("Read it there.")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        pane = TmuxPane(width=120, height=40)
        argv = [TETHER, "--model", MODEL, "--gate", "yolo", "--hand", "alpha"]
        pane.start(argv, cwd=str(alpha), env=environment(home))
        try:
            await pane.wait_for("hand alpha", whole=False)  # on the status line
            pane.type("read the outside file")
            pane.send("Enter")
            await pane.wait_for("y allow once", whole=False)
            screen = pane.screen()
            assert "read on alpha" in screen and "the hand on alpha" in screen
            pane.type("y")
            await pane.wait_for("Read it there.")
        finally:
            pane.close()
    result = next(m for m in server.requests[1].json()["messages"] if m["role"] == "tool")
    assert "outside text" in json.dumps(result["content"])


async def test_print_mode_cannot_answer_so_the_hand_denies_what_yolo_here_allowed(
    sshd: SSHServer, ssh_home: Path, tmp_path: Path
) -> None:
    home, remote = tmp_path / "tether-home", tmp_path / "remote-ws"
    remote.mkdir()
    replies = [tool_reply(("c1", "bash", {"command": "git init"})), text_reply("tried")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p",
            "make a repository",
            "--model",
            MODEL,
            "--gate",
            "yolo",
            "--remote",
            f"root@127.0.0.1:{sshd.port}:{remote}",
            home=home,
            cwd=tmp_path,
        )
    assert done.code == 0, done.stderr
    assert "no tether hand answered" not in done.stderr  # it went through the hand
    (result,) = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert "git init may write the repository" in result["content"]
    assert "nobody here can answer an approval" in result["content"]
    assert not (remote / ".git").exists()


async def test_the_client_sends_the_approval_once_and_says_why_when_none_is_given(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside text\n")
    approver = ScriptedApprover(["allow_once", "deny_session"])
    hand = await HandClient.start(
        ssh_operations, str(tmp_path / "ws"), tools=["read"], tether=HAND, approver=approver
    )
    try:
        (read,) = hand.tools()
        signal = AbortController().signal
        allowed = await read.execute("c1", {"path": str(outside)}, signal, None)
        assert "outside text" in allowed.content[0].text  # type: ignore[union-attr]
        with pytest.raises(ToolError, match=r"did not approve the hand's request \(deny_session\)"):
            await read.execute("c2", {"path": str(outside)}, signal, None)
        first, second = approver.requests
        assert first.digest == second.digest  # bound to the same exact arguments
        assert first.args == {"path": str(outside)}
    finally:
        await hand.close()
    nobody = await HandClient.start(
        ssh_operations,
        str(tmp_path / "ws"),
        tools=["read"],
        tether=HAND,
        no_approver_hint="Use rpc mode.",
    )
    try:
        (read,) = nobody.tools()
        with pytest.raises(ToolError, match=r"nobody here can answer an approval\. Use rpc mode\."):
            await read.execute("c3", {"path": str(outside)}, AbortController().signal, None)
    finally:
        await nobody.close()
