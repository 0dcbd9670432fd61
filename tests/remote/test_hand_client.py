"""The caller's side of a hand over a real sshd: the model gets only the hand's tools, calls run
there under the hand's gate, and a dropped connection marks calls lost without re-running them."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
import time
from pathlib import Path

import psutil
import pytest
from tests.tools.file_workspace import text_of
from tests.tools.test_bash import is_dead
from tests.tools.test_read import image_bytes

from tether.agent import AgentContext, AgentLoopConfig, AgentToolResult, ToolError, agent_loop
from tether.ai import AbortController, ImageContent, TextContent, ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.remote import HandClient, SSHOperations

from .sshd import SSHServer

TETHER = str(Path(sys.executable).with_name("tether"))


async def test_the_model_gets_only_the_hands_tools_and_a_missing_one_is_named(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("remote notes\n")
    (tmp_path / ".env").write_text("TOKEN=hunter2\n")
    hand = await HandClient.start(
        ssh_operations, str(tmp_path), tools=["read", "ls"], tether=TETHER
    )
    try:
        tools = hand.tools()
        assert [tool.name for tool in tools] == ["read", "ls"]
        model = FauxModel(
            [
                faux_message(
                    faux_tool_call("bash", {"command": "touch made"}, id="c1"),
                    faux_tool_call("read", {"path": "notes.txt"}, id="c2"),
                    faux_tool_call("read", {"path": ".env"}, id="c3"),
                ),
                faux_message(faux_text("done")),
            ]
        )
        stream = agent_loop(
            [UserMessage("go")],
            AgentContext("", [], tools),
            AgentLoopConfig(model=model.model, stream_fn=model.stream),
        )
        _ = [event async for event in stream]
        results = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    finally:
        await hand.close()
    bash, notes, secret = results
    assert bash.is_error and "Available tools: ls, read" in text_of(bash.content)
    assert not (tmp_path / "made").exists()
    assert not notes.is_error and text_of(notes.content) == "remote notes"
    # no gate on this side at all: the hand's own policy still denies the secret
    assert secret.is_error and text_of(secret.content).startswith("Denied by policy")
    assert "hunter2" not in text_of(secret.content)


async def test_a_dropped_connection_marks_the_call_lost_and_never_reruns_it(
    sshd: SSHServer, ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    hand = await HandClient.start(
        ssh_operations, str(tmp_path), tools=["bash"], gate="yolo", tether=TETHER
    )
    (bash,) = hand.tools()
    command = "sleep 60 & echo run >> runs.log; wait"
    call = asyncio.create_task(
        bash.execute("c1", {"command": command}, AbortController().signal, None)
    )
    deadline = time.monotonic() + 20
    while not (tmp_path / "runs.log").exists():
        assert time.monotonic() < deadline, "the call never started on the hand"
        await asyncio.sleep(0.01)
    # the sleeper was forked before runs.log was written, so it is in the hand's tree now
    hand_and_call = processes_of_hand(sshd, tmp_path)
    sshd.drop_connections()
    with pytest.raises(ToolError, match=f"hand on root@127.0.0.1:{sshd.port} was lost"):
        await asyncio.wait_for(call, 20)
    with pytest.raises(ToolError, match="was lost"):
        await bash.execute("c2", {"command": "echo again"}, AbortController().signal, None)
    await hand.close()
    assert (tmp_path / "runs.log").read_text() == "run\n"
    deadline = time.monotonic() + 10  # the hand saw its input end, aborted the call and exited
    while alive := [process for process in hand_and_call if not is_dead(process.pid)]:
        assert time.monotonic() < deadline, f"the hand's call outlived the connection: {alive}"
        await asyncio.sleep(0.05)


def processes_of_hand(sshd: SSHServer, workspace: Path) -> list[psutil.Process]:
    """The hand serving ``workspace`` and every process below it, as this host sees them.

    Not PIDs the command records: when the hand sandboxes bash, ``$!`` is a PID in the sandbox's
    own PID namespace, which on this host names no process or an unrelated one.
    """
    for process in sshd.session_processes():
        with contextlib.suppress(psutil.NoSuchProcess):
            command = process.cmdline()
            if "--stdio" in command and str(workspace) in command:
                return [process, *process.children(recursive=True)]
    raise AssertionError(f"no hand for {workspace} below sshd")


async def test_an_image_read_on_the_hand_comes_back_as_an_image_with_its_details(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    data = image_bytes("PNG")
    (tmp_path / "pic.png").write_bytes(data)
    hand = await HandClient.start(ssh_operations, str(tmp_path), tools=["read"], tether=TETHER)
    try:
        (read,) = hand.tools()
        result = await read.execute("c1", {"path": "pic.png"}, AbortController().signal, None)
    finally:
        await hand.close()
    assert isinstance(result, AgentToolResult)
    note, image = result.content
    assert isinstance(note, TextContent) and "Read image file [image/png]" in note.text
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == data
    assert result.details["width"] == 40
    assert result.details["ran_on"] == {"hand": None, "address": ssh_operations.address}
