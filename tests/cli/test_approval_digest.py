"""Through the real executable: the digest a person approves is the digest the session records,
and the call is shown with the arguments the tool receives. The model sends ``read`` with
``offset``/``limit`` as strings, which validation coerces to integers (and ``confirm: true``, so
a person is asked)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ai.providers.loopback import LoopbackServer

from tether.gate import action_digest
from tether.session import SessionStore

from .support import text_reply, tool_reply, write_models_toml
from .test_interactive import launch, project, send  # noqa: F401 (launch needs project)
from .test_rpc_mode import of_type, start_rpc

RAW = {"path": "a.py", "offset": "5", "limit": "10", "confirm": True}
VALIDATED = {"path": "a.py", "offset": 5, "limit": 10}


def _approval_entries(home: Path) -> list[dict]:
    store = SessionStore(str(home / "sessions"))
    (info,) = store.list()
    with open(info.path, encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    return [line for line in lines if line["type"] == "approval"]


def _write_source(folder: Path) -> None:
    lines = "".join(f"line {n}\n" for n in range(1, 21))
    (folder / "a.py").write_text(lines, encoding="utf-8")


async def test_rpc_the_approved_digest_is_the_recorded_one(tmp_path: Path):
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    workspace.mkdir()
    _write_source(workspace)
    replies = [tool_reply(("c1", "read", RAW)), text_reply("read it")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        rpc = await start_rpc(home, workspace)
        await rpc.send({"type": "prompt", "text": "read part of a.py"})
        request = await rpc.next_matching(of_type("approval_request"))
        assert request["tool_call_id"] == "c1"
        assert request["args"] == {"path": "a.py", "offset": 5, "limit": 10}
        await rpc.send(
            {"type": "approval", "request_id": request["request_id"], "decision": "allow_once"}
        )
        end = await rpc.next_matching(of_type("tool_execution_end"))
        await rpc.next_matching(of_type("agent_end"))
        assert await rpc.close() == 0
    assert "line 5" in end["result"]["content"][0]["text"]
    (entry,) = _approval_entries(home)
    assert entry["digest"] == request["digest"] == action_digest("read", VALIDATED)
    assert entry["digest"] != action_digest("read", RAW)
    assert (entry["tool_call_id"], entry["decided_by"]) == ("c1", "approver")


async def test_the_terminal_shows_the_validated_call_and_the_digest_it_records(launch):  # noqa: F811
    replies = [tool_reply(("c1", "read", RAW)), text_reply("Read lines 5 to 14.")]
    async with launch(replies) as terminal:
        _write_source(terminal.project)
        pane = terminal.pane
        await send(pane, "read part of a.py")
        asking = await pane.wait_for("y allow once")
        assert "read a.py:5-14" in asking
        shown = next(line for line in asking.splitlines() if "Digest:" in line)
        pane.type("y")
        await pane.wait_for("Read lines 5 to 14.")
    (entry,) = _approval_entries(terminal.home)
    assert entry["digest"] == action_digest("read", VALIDATED)
    short = shown.split("Digest:")[1].strip()
    assert len(short) >= 8 and entry["digest"].startswith(short)
