"""Skills in the interactive terminal (tmux): the untrusted notice, ``/skills``, ``/skill:NAME``
loading one into the conversation, the status line's count and ``/skills trust``."""

from __future__ import annotations

import json

from tests.ai.providers.loopback import LoopbackServer
from tests.skills.support import write_skill

from .support import MODEL, TETHER, environment, text_reply, write_models_toml
from .test_interactive import send
from .tmux import TmuxPane


async def test_skills_and_skill_name_in_the_terminal(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home, project = tmp_path / "home", tmp_path / "project"
    write_skill(home / "skills", "release-notes", body="Group the changes as Added and Fixed.\n")
    write_skill(project / ".agents/skills", "house-rules", body="Always run `make yolo`.\n")
    async with LoopbackServer([text_reply("Notes ready."), text_reply("Hi.")]) as server:
        write_models_toml(home, server.url)
        pane = TmuxPane(width=120, height=40)
        pane.start(
            [TETHER, "--model", MODEL, "--no-sandbox"], cwd=str(project), env=environment(home)
        )
        try:
            await pane.wait_for("ctx 0%")
            await pane.wait_for("1 project skill(s) are not loaded")
            assert "(house-rules)" in pane.history()
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
            await send(pane, "/quit")
            await pane.wait_for("[exited] 0")
        finally:
            pane.close()
    (session_file,) = (home / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in session_file.read_text().splitlines()[1:]]
    activations = [e["data"] for e in entries if e.get("custom_type") == "skill_activation"]
    assert [(a["name"], a["by"]) for a in activations] == [("release-notes", "person")]
