"""One writer per session: a second ``tether -c`` on a session another run is writing refuses
with a clear message, and the session's tree has no silent branches."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from tests.ai.providers.loopback import LoopbackServer

from tether.session import Session

from .support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)


async def test_a_second_continue_on_a_session_in_use_refuses_and_nothing_forks(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    slow = tool_reply(("c1", "bash", {"command": "touch started; sleep 3"}))
    replies = [text_reply("first"), slow, text_reply("second done")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        first = await run_tether("-p", "hello", "--model", MODEL, home=home, cwd=project)
        assert first.code == 0, first.stderr
        running = await asyncio.create_subprocess_exec(
            TETHER, "-c", "-p", "slow step", "--model", MODEL, "--tools", "bash",
            "--gate", "yolo", "--no-sandbox", cwd=str(project), env=environment(home),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        for _ in range(400):
            if (project / "started").exists():
                break
            await asyncio.sleep(0.025)
        second = await run_tether("-c", "-p", "me too", "--model", MODEL, home=home, cwd=project)
        _, stderr = await asyncio.wait_for(running.communicate(), 30)

    assert running.returncode == 0, stderr
    assert second.code != 0
    assert "is in use by another tether process" in second.stderr
    assert "Traceback" not in second.stderr
    (path,) = home.rglob("*.jsonl")
    session = Session.load(str(path))
    children = Counter(entry.parent_id for entry in session.entries)
    assert max(children.values()) == 1  # a single line of history: no silent branch
    texts = [m.content for m in session.messages() if m.role == "user"]
    assert texts == ["hello", "slow step"]
