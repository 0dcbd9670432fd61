"""The hand (``tether hand --stdio``): its own catalog, its own final gate, run ids used once,
approvals bound to the digest of the exact arguments, spent on use, expiring."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tether.remote import SSHOperations, serve_hand
from tether.tools import create_coding_tools, wrap_tool_definition


class Caller:
    """Drives an in-process hand: sends JSON lines, collects what it answers."""

    def __init__(self, workspace: Path, names: tuple[str, ...], clock: list[float]) -> None:
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()
        tools = [
            wrap_tool_definition(d)
            for d in create_coding_tools(str(workspace), names=names, sandbox=False)
        ]
        self.task = asyncio.create_task(
            serve_hand(self._lines(), self._receive, tools=tools, mode="normal",
                       workspace=str(workspace), clock=lambda: clock[0])
        )  # fmt: skip

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await self.inbox.get()) is not None:
            yield line

    def _receive(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self._arrived.set()

    async def call(
        self, run_id: str, tool: str, arguments: dict[str, Any], **extra: Any
    ) -> dict[str, Any]:
        since = len(self.sent)
        message = {"type": "call", "run_id": run_id, "tool": tool, "arguments": arguments}
        self.inbox.put_nowait(json.dumps({**message, **extra}))
        return await self.reply(run_id, "result", since)

    async def reply(self, run_id: str, kind: str, since: int = 0) -> dict[str, Any]:
        """The first ``kind`` message for ``run_id`` among those sent from index ``since`` on."""
        while True:
            for message in self.sent[since:]:
                if message.get("run_id") == run_id and message["type"] == kind:
                    return message
            self._arrived.clear()
            await asyncio.wait_for(self._arrived.wait(), 20)

    def of(self, run_id: str, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("run_id") == run_id and m["type"] == kind]

    async def close(self) -> None:
        self.inbox.put_nowait(None)
        await self.task


async def test_the_hand_offers_only_its_own_catalog_and_names_it_on_a_call_for_another_tool(
    tmp_path: Path,
) -> None:
    caller = Caller(tmp_path, ("read", "ls"), [0.0])
    await asyncio.sleep(0)
    hello = caller.sent[0]
    assert hello["type"] == "hello" and [t["name"] for t in hello["tools"]] == ["read", "ls"]
    assert hello["tools"][0]["parameters"]["properties"]["path"]
    result = await caller.call("r1", "bash", {"command": "touch made"})
    assert (
        result["is_error"] and result["text"] == 'Tool "bash" not found. Available tools: ls, read.'
    )
    assert not (tmp_path / "made").exists()
    await caller.close()


async def test_the_hands_policy_is_final_and_a_replayed_run_id_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("inside\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("outside\n")
    caller = Caller(tmp_path, ("read", "ls"), [0.0])
    allowed = await caller.call("r1", "read", {"path": "notes.txt"})
    assert not allowed["is_error"] and allowed["text"] == "inside"
    # whatever the caller's own gate said, the hand wants a person for a path outside its root
    denied = await caller.call("r2", "read", {"path": str(outside)})
    assert denied["is_error"] and denied["text"].startswith("Denied")
    assert caller.of("r2", "approval_required")[0]["tool"] == "read"
    (tmp_path / ".env").write_text("TOKEN=hunter2\n")
    secret = await caller.call("r3", "read", {"path": ".env"})  # a caller in yolo mode would run it
    assert secret["is_error"] and secret["text"].startswith("Denied by policy")
    assert "hunter2" not in secret["text"] and caller.of("r3", "approval_required") == []
    replay = await caller.call("r1", "read", {"path": "notes.txt"})
    assert replay["is_error"] and "run id 'r1' was already used" in replay["text"]
    assert len(caller.of("r1", "result")) == 2  # the refusal; the call itself ran once
    await caller.close()


async def test_approvals_bind_the_digest_of_the_exact_arguments_once_until_they_expire(
    tmp_path: Path,
) -> None:
    one, other = (tmp_path.parent / f"{tmp_path.name}-{n}.txt" for n in ("one", "other"))
    one.write_text("approved content\n")
    other.write_text("other content\n")
    clock = [1000.0]
    caller = Caller(tmp_path, ("read",), clock)
    await caller.call("r1", "read", {"path": str(one)})
    digest = caller.of("r1", "approval_required")[0]["digest"]
    mismatch = await caller.call("r2", "read", {"path": str(other)}, approval=digest)
    assert mismatch["is_error"] and "other content" not in mismatch["text"]
    assert "digest mismatch" in caller.of("r2", "approval_rejected")[0]["reason"]
    granted = await caller.call("r3", "read", {"path": str(one)}, approval=digest)
    assert not granted["is_error"] and granted["text"] == "approved content"
    spent = await caller.call("r4", "read", {"path": str(one)}, approval=digest)
    assert spent["is_error"] and "already used" in caller.of("r4", "approval_rejected")[0]["reason"]
    await caller.call("r5", "read", {"path": str(one)})
    fresh = caller.of("r5", "approval_required")[0]
    clock[0] = fresh["expires_at"] + 1
    late = await caller.call("r6", "read", {"path": str(one)}, approval=fresh["digest"])
    assert late["is_error"] and "expired" in caller.of("r6", "approval_rejected")[0]["reason"]
    await caller.close()


async def test_cancel_by_run_id_and_the_end_of_input_abort_running_calls(tmp_path: Path) -> None:
    caller = Caller(tmp_path, ("bash",), [0.0])
    caller.inbox.put_nowait(
        json.dumps(
            {
                "type": "call",
                "run_id": "b1",
                "tool": "bash",
                "arguments": {"command": "echo started; sleep 30"},
            }
        )
    )
    await caller.reply("b1", "progress")
    caller.inbox.put_nowait(json.dumps({"type": "cancel", "run_id": "b1"}))
    cancelled = await caller.reply("b1", "result")
    assert cancelled["is_error"] and "aborted" in cancelled["text"].lower()
    caller.inbox.put_nowait(
        json.dumps(
            {
                "type": "call",
                "run_id": "b2",
                "tool": "bash",
                "arguments": {"command": "echo started; sleep 30"},
            }
        )
    )
    await caller.reply("b2", "progress")
    await asyncio.wait_for(caller.close(), 20)  # the input ended: the running call is aborted
    assert caller.of("b2", "result")[0]["is_error"]


async def test_tether_hand_over_an_ssh_exec_channel(
    ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("remote notes\n")
    tether = str(Path(sys.executable).with_name("tether"))
    command = shlex.join([tether, "hand", "--stdio", "--tools", "read,ls", "--cwd", str(tmp_path)])
    connection = await ssh_operations.connection.connection()
    process = await connection.create_process(command)
    hello = json.loads(await asyncio.wait_for(process.stdout.readline(), 30))
    assert [t["name"] for t in hello["tools"]] == ["read", "ls"]
    assert (hello["mode"], hello["workspace"]) == ("normal", str(tmp_path))
    assert hello["tools"][0]["governance"]["builtin"] == "read"
    assert hello["tools"][0]["governance"]["review_schema"]["properties"]["path"]["x-review"]
    process.stdin.write(
        json.dumps(
            {"type": "call", "run_id": "x1", "tool": "read", "arguments": {"path": "notes.txt"}}
        )
        + "\n"
    )
    result = json.loads(await asyncio.wait_for(process.stdout.readline(), 30))
    assert {k: result[k] for k in ("type", "run_id", "is_error", "text", "content")} == {
        "type": "result",
        "run_id": "x1",
        "is_error": False,
        "text": "remote notes",
        "content": [{"type": "text", "text": "remote notes"}],
    }
    assert result["details"]["path"] == str(tmp_path / "notes.txt")
    process.stdin.write_eof()
    await asyncio.wait_for(process.wait(), 30)
    assert process.exit_status == 0


async def test_the_hand_answers_a_long_line_an_overlong_one_and_deep_nesting_and_goes_on(
    tmp_path: Path,
) -> None:
    """A 70 KB write is one call; a line over the limit and JSON nested too deep are error
    answers; the hand keeps serving after each."""
    from tether.remote._hand import LINE_LIMIT

    tether = str(Path(sys.executable).with_name("tether"))
    process = await asyncio.create_subprocess_exec(
        tether, "hand", "--stdio", "--tools", "write,read", "--gate", "yolo",
        "--no-sandbox", "--cwd", str(tmp_path),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=2**20,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    async def answer() -> dict[str, Any]:
        assert process.stdout is not None
        return json.loads(await asyncio.wait_for(process.stdout.readline(), 60))

    def call(run_id: str, tool: str, arguments: dict[str, Any]) -> bytes:
        message = {"type": "call", "run_id": run_id, "tool": tool, "arguments": arguments}
        return json.dumps(message).encode() + b"\n"

    assert (await answer())["type"] == "hello"
    content = "x" * 70_000 + "\n"
    process.stdin.write(call("w1", "write", {"path": "big.txt", "content": content}))
    written = await answer()
    process.stdin.write(b'{"type": "call", "run_id": "w2", "x": "' + b"y" * (LINE_LIMIT + 10))
    process.stdin.write(b'"}\n' + b"[" * 100_000 + b"\n")
    overlong, deep = await answer(), await answer()
    process.stdin.write(call("r1", "read", {"path": "big.txt"}))
    read = await answer()
    process.stdin.close()
    await asyncio.wait_for(process.wait(), 30)

    assert written["run_id"] == "w1" and not written["is_error"], written
    assert (tmp_path / "big.txt").read_text() == content
    assert overlong == {"type": "error", "error": f"a line over {LINE_LIMIT} bytes is refused"}
    assert deep["type"] == "error"
    assert read["run_id"] == "r1" and not read["is_error"]
    assert process.returncode == 0
