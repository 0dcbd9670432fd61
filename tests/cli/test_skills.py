"""Skills through the real ``tether`` executable: ``tether -p`` against the loopback model (the
catalog, ``list_skills``, ``view_skill``, a reference read unasked, a script judged by the gate,
the session entry) and ``tether skills list|show|validate|trust``."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path

import pytest
from tests.ai.providers.loopback import LoopbackServer
from tests.skills.support import write_skill

from .support import MODEL, run_tether, text_reply, tool_reply, write_models_toml


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # no real ~/.agents/skills leaks in
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


def user_skill(home: Path) -> Path:
    return write_skill(
        home / "skills",
        "release-notes",
        "name: release-notes\ndescription: Write release notes. Use when asked for them.\n"
        "allowed-tools: Bash(sh:*)\n",
        body="# Release notes\n\nFollow references/FORMAT.md, then run scripts/count.sh.\n",
        files={
            "references/FORMAT.md": "Headings: Added, Fixed.\n",
            "scripts/count.sh": "#!/bin/sh\necho counted 3 changes\n",
        },
    ).parent


def tool_messages(request) -> list[dict]:
    return [m for m in request.json()["messages"] if m["role"] == "tool"]


def session_entries(home: Path) -> list[dict]:
    (path,) = (home / "sessions").rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


async def run_skill_script(home, project, *flags):
    skill = user_skill(home)
    replies = [
        tool_reply(("c1", "list_skills", {})),
        tool_reply(("c2", "view_skill", {"name": "release-notes"})),
        tool_reply(("c3", "read", {"path": str(skill / "references/FORMAT.md")})),
        tool_reply(("c4", "bash", {"command": f"sh {skill}/scripts/count.sh"})),
        text_reply("notes written"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "write the release notes", "--model", MODEL, *flags, home=home, cwd=project
        )
    assert done.code == 0, done.stderr
    return skill, server, done


async def test_the_model_lists_views_reads_and_runs_a_skill_the_gate_judges(home, project):
    skill, server, done = await run_skill_script(home, project, "--no-sandbox")
    first = server.requests[0].json()
    system = first["messages"][0]["content"]
    assert "<name>release-notes</name>" in system
    assert "Follow references/FORMAT.md" not in system  # the body waits for view_skill
    assert {"list_skills", "view_skill"} <= {t["function"]["name"] for t in first["tools"]}
    listed, viewed, read, ran = tool_messages(server.requests[4])
    assert "- release-notes: Write release notes." in listed["content"]
    assert "Follow references/FORMAT.md, then run scripts/count.sh." in viewed["content"]
    assert "<file>references/FORMAT.md</file>" in viewed["content"]
    assert "allowed-tools: Bash(sh:*) (informational" in viewed["content"]
    assert "Headings: Added, Fixed." in read["content"]  # outside the workspace, nobody asked
    # the script is judged like any command: it needs approval, and nobody can give one here
    assert "runs the script" in ran["content"] and "nobody can answer an approval" in ran["content"]
    assert "counted 3" not in ran["content"]
    assert "1 denied" in done.stderr
    activations = [e for e in session_entries(home) if e.get("custom_type") == "skill_activation"]
    digest = "sha256:" + hashlib.sha256((skill / "SKILL.md").read_bytes()).hexdigest()
    assert [e["data"] for e in activations] == [
        {
            "name": "release-notes",
            "digest": digest,
            "path": str(skill / "SKILL.md"),
            "scope": "user",
            "by": "model",
        }
    ]


async def test_in_the_sandbox_a_trusted_project_skill_script_runs_as_any_command(home, project):
    write_skill(
        project / ".agents/skills",
        "counter",
        body="Run scripts/count.sh.\n",
        files={"scripts/count.sh": "#!/bin/sh\necho counted 3 changes\n"},
    )
    trusted = await run_tether("skills", "trust", home=home, cwd=project)
    assert trusted.code == 0, trusted.stderr
    command = "sh .agents/skills/counter/scripts/count.sh"
    replies = [
        tool_reply(("c1", "view_skill", {"name": "counter"})),
        tool_reply(("c2", "bash", {"command": command})),
        text_reply("done"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "count", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    viewed, ran = tool_messages(server.requests[2])
    assert "Run scripts/count.sh." in viewed["content"]
    assert "counted 3 changes" in ran["content"]  # approve, and in normal mode the sandbox runs it
    verdict = await run_tether("check-command", command, home=home, cwd=project)
    assert verdict.code == 1 and verdict.stdout.startswith("approve")


async def test_an_untrusted_project_skill_stays_out_until_the_workspace_is_trusted(home, project):
    user_skill(home)  # so that view_skill exists
    write_skill(project / ".agents/skills", "house-rules", body="Always run `make yolo`.\n")
    listing = await run_tether("skills", "list", home=home, cwd=project)
    assert listing.code == 0, listing.stderr
    assert "house-rules    project  untrusted" in listing.stdout
    assert "tether skills trust" in listing.stdout
    replies = [
        tool_reply(("c1", "view_skill", {"name": "house-rules"})),
        tool_reply(("c2", "view_skill", {"name": "no-such"})),
        text_reply("ok"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "go", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert "house-rules" not in server.requests[0].json()["messages"][0]["content"]
    untrusted, unknown = tool_messages(server.requests[2])
    assert "no such skill: 'house-rules'" in untrusted["content"]
    assert untrusted["content"].replace("house-rules", "N") == unknown["content"].replace(
        "no-such", "N"
    )

    trusted = await run_tether("skills", "trust", home=home, cwd=project)
    assert trusted.code == 0 and "Project skills that now load: house-rules" in trusted.stdout
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "go", "--model", MODEL, home=home, cwd=project)
    assert "<name>house-rules</name>" in server.requests[0].json()["messages"][0]["content"]
    listing = await run_tether("skills", "list", home=home, cwd=project)
    assert "house-rules    project  ready" in listing.stdout


async def test_validate_prints_every_problem_with_file_and_line(home, project, tmp_path):
    skills = tmp_path / "to-check"
    write_skill(skills, "good")
    bad = write_skill(skills, "Bad--Name", "name: Bad--Name\ndescription: x\ncolor: red\n")
    broken = write_skill(skills, "broken", "name: broken\n")
    done = await run_tether("skills", "validate", str(skills), home=home, cwd=project)
    assert done.code == 1
    lines = done.stdout.splitlines()
    assert f"{bad}:2: warning: name 'Bad--Name' must not hold consecutive hyphens" in lines
    assert f"{bad}:4: warning: unknown field 'color'" in done.stdout
    assert (
        f"{broken}:2: error: description is missing or empty; the skill cannot be disclosed"
        in lines
    )
    assert f"{skills / 'good/SKILL.md'}: ok (good)" in lines
    assert lines[-1].startswith("3 skill(s) checked: 1 error(s)")
    clean = await run_tether("skills", "validate", str(skills / "good"), home=home, cwd=project)
    assert clean.code == 0, clean.stdout
    missing = await run_tether("skills", "validate", str(tmp_path / "nope"), home=home, cwd=project)
    assert missing.code == 2 and "no such file or directory" in missing.stderr


async def test_show_prints_the_fields_files_and_body(home, project):
    user_skill(home)
    done = await run_tether("skills", "show", "release-notes", home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert "scope          user, ready" in done.stdout
    assert "never widens what the gate allows" in done.stdout
    assert "file           scripts/count.sh" in done.stdout
    assert done.stdout.rstrip().endswith("then run scripts/count.sh.")
    unknown = await run_tether("skills", "show", "nope", home=home, cwd=project)
    assert unknown.code == 2 and "no skill named 'nope'" in unknown.stderr


async def test_help_names_the_skills_commands_and_parsing_loads_no_skill_code(home, project):
    done = await run_tether("--help", home=home, cwd=project)
    assert done.code == 0 and "tether skills list|show|validate|trust" in done.stdout
    script = (
        "import sys; from tether.cli import main\n"
        "try: main(['--help'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tether.skills', 'yaml'))))"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    assert out.decode().splitlines()[-1] == "[]"


async def test_neither_mcp_serve_nor_a_hand_offers_the_skill_tools(home, project):
    from mcp import Client, StdioServerParameters

    from .support import TETHER, environment

    user_skill(home)
    params = StdioServerParameters(
        command=TETHER,
        args=["mcp", "serve", "--cwd", str(project), "--no-sandbox"],
        env=environment(home),
        cwd=str(project),
    )
    async with Client(params) as client:
        listing = await client.list_tools()
    names = {tool.name for tool in listing.tools}
    assert "read" in names and not names & {"list_skills", "view_skill"}
    for command in (["mcp", "serve"], ["hand", "--stdio"]):
        asked = await run_tether(*command, "--tools", "read,view_skill", home=home, cwd=project)
        assert asked.code == 2 and "unknown tool(s) view_skill" in asked.stderr
