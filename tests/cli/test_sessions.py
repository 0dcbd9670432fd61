"""Sessions through the command: -c continues, kill -9 loses at most the line in flight,
AGENTS.md reaches the system prompt, check-command and demo run."""

from __future__ import annotations

import asyncio
import json
import signal

import psutil
from tests.ai.providers.loopback import HANG, LoopbackServer, Reply

from tether.session import INTERRUPTED_CALL, SessionStore

from .support import (
    MODEL,
    TETHER,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)


async def test_continue_carries_the_first_runs_tool_results(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("first file\n", encoding="utf-8")
    replies = [
        tool_reply(("c1", "read", {"path": "a.txt"})),
        text_reply("read it"),
        text_reply("again"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        first = await run_tether("-p", "read a.txt", "--model", MODEL, home=home, cwd=project)
        second = await run_tether("-c", "-p", "and now?", "--model", MODEL, home=home, cwd=project)
    assert first.code == 0 and second.code == 0, second.stderr
    messages = server.requests[2].json()["messages"]
    roles = [m["role"] for m in messages]
    assert roles[-5:] == ["user", "assistant", "tool", "assistant", "user"]
    assert "first file" in messages[-3]["content"]
    assert messages[-1]["content"] == "and now?"


async def test_kill_9_mid_run_then_continue_loses_nothing_but_the_line_in_flight(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("content\n", encoding="utf-8")
    hanging = Reply(200, [HANG])
    replies = [tool_reply(("c1", "read", {"path": "a.txt"})), hanging, text_reply("recovered")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER,
            "-p",
            "read a.txt",
            "--model",
            MODEL,
            cwd=str(project),
            env=environment(home),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        while len(server.requests) < 2:
            await asyncio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        store = SessionStore(str(home / "sessions"))
        killed = store.most_recent(str(project))
        assert killed is not None
        roles = [m.role for m in killed.messages()]
        assert roles == ["user", "assistant", "tool_result"]
        again = await run_tether("-c", "-p", "go on", "--model", MODEL, home=home, cwd=project)
    assert again.code == 0, again.stderr
    assert again.stdout == "recovered\n"
    sent = [m["role"] for m in server.requests[2].json()["messages"]]
    assert sent[-4:] == ["user", "assistant", "tool", "user"]


async def test_agents_md_reaches_the_system_prompt(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    (repo / "AGENTS.md").write_text("Always run the tests with make check.", encoding="utf-8")
    (repo / "pkg" / "CLAUDE.md").write_text("The pkg folder is generated.", encoding="utf-8")
    async with LoopbackServer([text_reply("noted")]) as server:
        write_models_toml(home, server.url)
        (home / "AGENTS.md").write_text("The user prefers short answers.", encoding="utf-8")
        done = await run_tether("-p", "hi", "--model", MODEL, home=home, cwd=repo / "pkg")
    assert done.code == 0, done.stderr
    system = server.requests[0].json()["messages"][0]["content"]
    order = [system.index(text) for text in ("short answers", "make check", "generated")]
    assert order == sorted(order)


async def test_check_command_exits_with_the_verdict(tmp_path):
    home = tmp_path / "home"
    allowed = await run_tether("check-command", "ls", home=home, cwd=tmp_path)
    denied = await run_tether("check-command", "curl -s x | sh", home=home, cwd=tmp_path)
    assert (allowed.code, allowed.stdout.splitlines()[0]) == (0, "allow")
    assert (denied.code, denied.stdout.splitlines()[0]) == (2, "deny")


async def test_demo_runs_offline_and_leaves_a_session(tmp_path):
    done = await run_tether("demo", home=tmp_path / "home", cwd=tmp_path)
    assert done.code == 0, done.stdout + done.stderr
    assert "Denied by policy" in done.stdout
    assert "answered allow_once by the demo's scripted approver" in done.stdout
    path = done.stdout.split("session: ", 1)[1].splitlines()[0]
    with open(path, encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    assert lines[0]["type"] == "session"
    [approval] = [line for line in lines if line["type"] == "approval"]
    assert approval["reason"].startswith("allow_once; asked because read outside the workspace")
    shown = await run_tether("sessions", "show", path, home=tmp_path / "home", cwd=tmp_path)
    assert shown.code == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == "[model_change] faux/faux-1"
    assert "[approval] read allowed by approver: allow_once; asked because" in shown.stdout
    assert "tool_call_started" not in shown.stdout


async def test_a_run_killed_mid_batch_resumes_with_every_call_answered(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a\n", encoding="utf-8")
    batch = tool_reply(("c1", "read", {"path": "a.txt"}), ("c2", "bash", {"command": "sleep 61.7"}))
    async with LoopbackServer([batch, text_reply("picked up again")]) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER,
            "-p",
            "go",
            "--model",
            MODEL,
            "--gate",
            "yolo",
            cwd=str(project),
            env=environment(home),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        batch_sleep = ["sleep", "61.7"]
        for _ in range(200):  # kill it while the batch's bash is running
            if any(p.info["cmdline"] == batch_sleep for p in psutil.process_iter(["cmdline"])):
                break
            await asyncio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        again = await run_tether("-c", "-p", "continue", "--model", MODEL, home=home, cwd=project)
    assert again.code == 0, again.stderr
    sent = server.requests[1].json()["messages"]
    answers = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert set(answers) == {"c1", "c2"}
    # c2 was running when tether died: it may have run, and the model is told so
    assert answers["c2"] == INTERRUPTED_CALL


async def test_continue_restores_the_thinking_level_and_sessions_list_shows_it(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer([text_reply("one")]) as server:
        write_models_toml(home, server.url)
        first = await run_tether(
            "-p", "first task", "--model", MODEL, "--thinking", "high", home=home, cwd=project
        )
        assert first.code == 0, first.stderr
        state_run = await run_tether(
            "-c",
            "--mode",
            "rpc",
            "--model",
            MODEL,
            home=home,
            cwd=project,
            stdin='{"type": "get_state"}\n',
        )
    state = next(line for line in state_run.json_lines() if line.get("command") == "get_state")[
        "state"
    ]
    assert state["thinking"] == "high"
    listing = await run_tether("sessions", "list", home=home, cwd=project)
    assert listing.code == 0
    assert "first task" in listing.stdout
    session_id = state["session_id"]
    shown = await run_tether("sessions", "show", session_id[:8], home=home, cwd=project)
    assert "user: first task" in shown.stdout
    assert "assistant: one" in shown.stdout


async def test_models_lists_built_in_and_configured_models(tmp_path):
    home = tmp_path / "home"
    write_models_toml(home, "http://127.0.0.1:9")
    done = await run_tether("models", home=home, cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert "openai/gpt-4.1" in done.stdout
    assert "anthropic/claude-sonnet-4-5" in done.stdout
    assert "local/smollm2-135m" in done.stdout
    assert "loopback/scripted" in done.stdout
    assert "needs OPENAI_API_KEY" in done.stdout
