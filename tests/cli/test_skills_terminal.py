"""Skills in the interactive terminal (tmux): the trust question at the start, ``/skills``,
``/skill:NAME`` loading one into the conversation, the status line's count, ``/skills trust``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer, Reply
from tests.skills.support import write_skill

from .support import MODEL, TETHER, environment, text_reply, write_models_toml
from .test_interactive import send
from .tmux import TmuxPane


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home, project = tmp_path / "home", tmp_path / "project"
    write_skill(home / "skills", "release-notes", body="Group the changes as Added and Fixed.\n")
    write_skill(project / ".agents/skills", "house-rules", body="Always run `make yolo`.\n")
    return home, project


@asynccontextmanager
async def terminal(
    places: tuple[Path, Path], replies: list[Reply], answer: str
) -> AsyncIterator[tuple[TmuxPane, LoopbackServer]]:
    """tether in a tmux pane, the trust question answered with ``answer``."""
    home, project = places
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        pane = TmuxPane(width=120, height=40)
        command = [TETHER, "--model", MODEL, "--no-sandbox"]
        pane.start(command, cwd=str(project), env=environment(home))
        try:
            await pane.wait_for("1 project skill(s) are not loaded")
            assert "(house-rules)" in pane.history()
            await pane.wait_for("Trust this workspace's skills (house-rules)?")
            await pane.wait_for("y allow once", whole=False)  # armed: keys now answer it
            pane.type(answer)
            yield pane, server
            await send(pane, "/quit")
            await pane.wait_for("[exited] 0")
        finally:
            pane.close()


def activations(home: Path) -> list[tuple[str, str]]:
    (session_file,) = (home / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in session_file.read_text().splitlines()[1:]]
    found = [e["data"] for e in entries if e.get("custom_type") == "skill_activation"]
    return [(a["name"], a["by"]) for a in found]


async def test_skills_and_skill_name_in_the_terminal(places) -> None:
    replies = [text_reply("Notes ready."), text_reply("Hi.")]
    async with terminal(places, replies, "n") as (pane, server):
        await pane.wait_for("Project skills stay unloaded")
        for typed, shown in [
            ("/skills", "house-rules    project  untrusted"),
            ("/skill:house-rules", "No skill named 'house-rules' here"),
        ]:
            await send(pane, typed)
            await pane.wait_for(shown)
        await send(pane, "/skill:release-notes for v2")
        await pane.wait_for("Notes ready.")
        await pane.wait_for("1 skill loaded")
        sent = server.requests[0].json()["messages"][-1]["content"]
        assert sent.startswith('<skill_content name="release-notes"')
        assert "Group the changes as Added and Fixed." in sent and sent.endswith("for v2")
        for typed, shown in [
            ("/skill:release-notes", "Skill release-notes is already loaded"),
            ("/skills trust", "project skills loaded: house-rules."),
            ("hello", "Hi."),
        ]:
            await send(pane, typed)
            await pane.wait_for(shown)
        assert "<name>house-rules</name>" in server.requests[1].json()["messages"][0]["content"]
        # the session goes on after the trust, and still knows its skill
        await pane.wait_for("1 skill loaded", whole=False)
    assert activations(places[0]) == [("release-notes", "person")]


async def test_answering_y_trusts_the_workspace_and_its_skills_load(places) -> None:
    async with terminal(places, [text_reply("Hi.")], "y") as (pane, server):
        await pane.wait_for("project skills loaded: house-rules.")
        await send(pane, "hello")
        await pane.wait_for("Hi.")
        assert "<name>house-rules</name>" in server.requests[0].json()["messages"][0]["content"]
    listing = json.loads((places[0] / "trusted-workspaces.json").read_text())
    assert listing["workspaces"] == [str(places[1].resolve())]
