"""``tether -p`` and ``--mode json``: the installed executable against a loopback server."""

from __future__ import annotations

import asyncio
import json
import os
import signal

import pytest
from tests.ai.providers.loopback import LoopbackServer, Reply, json_reply, sse

from .support import (
    MODEL,
    TETHER,
    as_at_a_terminal,
    environment,
    run_tether,
    text_reply,
    tool_reply,
    write_models_toml,
)


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    (path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return path


async def test_print_mode_prints_the_answer_and_exits_0(home, project):
    async with LoopbackServer([text_reply("The answer is 42.")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "what is it?", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert done.stdout == "The answer is 42.\n"
    assert "1 turn, 0 tool calls" in done.stderr
    body = server.requests[0].json()
    assert body["messages"][-1] == {"role": "user", "content": "what is it?"}
    assert body["model"] == "scripted"


async def test_a_reply_cut_at_the_length_limit_says_so_in_the_summary(home, project):
    async with LoopbackServer([text_reply("Once upon a time", finish="length")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "a story", "--model", MODEL, home=home, cwd=project)
    assert done.code == 3, done.stderr  # documented: the answer was cut off
    assert done.stdout == "Once upon a time\n"
    assert "1 reply cut (it reached its length limit)" in done.stderr
    assert (
        "tether: the answer is truncated: the reply reached the output token limit" in done.stderr
    )


async def test_a_failing_provider_exits_1_with_its_error(home, project):
    failure = json_reply(400, {"error": {"message": "model 'scripted' is sleeping", "type": "x"}})
    async with LoopbackServer([failure]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "hi", "--model", MODEL, home=home, cwd=project)
    assert done.code == 1
    assert "model 'scripted' is sleeping" in done.stderr
    assert "400" in done.stderr
    assert "tokens none (no model reply)" in done.stderr  # not "0 in / 0 out"


async def test_piped_stdin_is_appended_to_the_task(home, project):
    async with LoopbackServer([text_reply("ok")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "summarise:", "--model", MODEL, home=home, cwd=project, stdin="line one\n"
        )
    assert done.code == 0, done.stderr
    assert server.requests[0].json()["messages"][-1]["content"] == "summarise:\n\nline one\n"


async def test_a_call_needing_approval_is_denied_with_how_to_allow_it(home, project, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret-ish\n", encoding="utf-8")
    replies = [tool_reply(("c1", "read", {"path": str(outside)})), text_reply("could not read")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "read it", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    tool_message = server.requests[1].json()["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "nobody can answer an approval" in tool_message["content"]
    assert "--gate yolo" in tool_message["content"]
    assert "secret-ish" not in tool_message["content"]
    assert "1 denied" in done.stderr


async def test_json_mode_writes_the_header_then_every_event_in_order(home, project):
    replies = [tool_reply(("c1", "read", {"path": "notes.txt"})), text_reply("beta is there")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "read notes", "--mode", "json", "--model", MODEL, home=home, cwd=project
        )
    assert done.code == 0, done.stderr
    lines = done.json_lines()
    assert lines[0]["type"] == "session" and lines[0]["cwd"] == str(project)
    kinds = [line["type"] for line in lines[1:] if line["type"] != "message_update"]
    assert kinds == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    end = next(line for line in lines if line["type"] == "tool_execution_end")
    assert end["tool_name"] == "read" and end["is_error"] is False
    assert "beta" in end["result"]["content"][0]["text"]
    final = [line for line in lines if line["type"] == "message_end"][-1]
    assert final["message"]["role"] == "assistant"
    assert final["message"]["content"][0]["text"] == "beta is there"
    assert any(line["type"] == "message_update" for line in lines)


async def test_no_model_available_is_an_error_that_says_how_to_choose(home, project, monkeypatch):
    done = await run_tether("-p", "hi", "--model", "nowhere/none", home=home, cwd=project)
    assert done.code == 2
    assert "nowhere/none" in done.stderr


async def test_a_missing_api_key_is_a_usage_error_before_anything_runs(home, project):
    done = await run_tether("-p", "hi", "--model", "openai/gpt-4.1", home=home, cwd=project)

    assert done.code != 0
    assert "openai/gpt-4.1 needs an API key: set OPENAI_API_KEY" in done.stderr
    assert "StreamOptions" not in done.stderr  # no library advice in a command
    assert not list(home.rglob("*.jsonl"))


@pytest.mark.parametrize(
    "options",
    [("--model", "local/smollm2"), ("--tools", "read,grepx")],
    ids=["unknown model", "unknown tool"],
)
async def test_a_usage_error_leaves_no_empty_session(home, project, options):
    done = await run_tether("-p", "hi", *options, home=home, cwd=project)
    listed = await run_tether("sessions", "list", home=home, cwd=project)

    assert done.code != 0
    assert not list(home.rglob("*.jsonl"))
    assert listed.code == 0 and "hi" not in listed.stdout


def streamed_then_stalled(pieces: int, pause: float) -> Reply:
    """An answer of ``pieces`` text deltas, then ``pause`` seconds before it ends."""

    def chunk(delta: dict, finish: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "choices": [choice]}

    body: list = sse([chunk({"role": "assistant", "content": ""})])
    body += sse([chunk({"content": f"line {n} " + "x" * 90 + "\n"}) for n in range(pieces)])
    body += [pause, *sse([chunk({}, "stop")], done=True)]
    return Reply(200, body)


async def test_a_json_consumer_that_stops_reading_does_not_stall_ctrl_c(home, project, tmp_path):
    """The consumer reads nothing: tether's events fill the pipe. The run must stay responsive —
    Ctrl-C ends it at once with 130 — instead of blocking in a write to stdout or in waiting for
    the reader. (stdout is an OS pipe nobody reads, stderr a file: nothing of the test drains.)"""
    async with LoopbackServer([streamed_then_stalled(400, 60.0)]) as server:
        write_models_toml(home, server.url)
        reading, writing = os.pipe()
        with open(tmp_path / "stderr.txt", "wb") as errors:
            process = await asyncio.create_subprocess_exec(
                TETHER, "--mode", "json", "-p", "write a lot", "--model", MODEL,
                cwd=str(project), env=environment(home), stdin=asyncio.subprocess.DEVNULL,
                stdout=writing, stderr=errors, preexec_fn=as_at_a_terminal,
            )  # fmt: skip
        os.close(writing)
        try:
            while not server.requests:
                await asyncio.sleep(0.05)
            await asyncio.sleep(2.0)  # the answer's events are out: far more than the pipe holds
            process.send_signal(signal.SIGINT)
            code = await asyncio.wait_for(process.wait(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            with os.fdopen(reading, "rb") as reader:
                first = reader.readline()  # what it wrote first, read only now
    told = (tmp_path / "stderr.txt").read_text()
    assert code == 130, told
    assert json.loads(first)["type"] == "session"
    assert "tether: interrupted" in told


async def test_ctrl_c_in_print_mode_aborts_the_run_and_keeps_it_in_the_session(home, project):
    """Ctrl-C while the answer streams: exit 130, the summary says interrupted and names the
    session, and the session holds the reply as far as it came, marked aborted."""
    async with LoopbackServer([streamed_then_stalled(20, 60.0)]) as server:
        write_models_toml(home, server.url)
        process = await asyncio.create_subprocess_exec(
            TETHER, "-p", "write a lot", "--model", MODEL,
            cwd=str(project), env=environment(home), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            preexec_fn=as_at_a_terminal,
        )  # fmt: skip
        while not server.requests:
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        process.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(process.communicate(), 30)
    told = err.decode()
    assert process.returncode == 130, told
    assert "tether: interrupted: 1 turn" in told
    assert "tether: session " in told
    assert out == b""
    (log,) = home.rglob("*.jsonl")
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    replies = [e["message"] for e in entries if e.get("message", {}).get("role") == "assistant"]
    assert replies[-1]["stop_reason"] == "aborted"
    assert "line 19" in json.dumps(replies[-1]["content"])


async def test_a_json_reader_that_leaves_ends_the_command_as_a_broken_pipe(home, project):
    """``tether --mode json … | head -1``: once the reader is gone, tether ends (141), quietly."""
    async with LoopbackServer([streamed_then_stalled(400, 0.5)]) as server:
        write_models_toml(home, server.url)
        reading, writing = os.pipe()
        process = await asyncio.create_subprocess_exec(
            TETHER, "--mode", "json", "-p", "write a lot", "--model", MODEL,
            cwd=str(project), env=environment(home), stdin=asyncio.subprocess.DEVNULL,
            stdout=writing, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        os.close(writing)
        with os.fdopen(reading, "rb") as reader:
            first = await asyncio.to_thread(reader.readline)
        # the reader is gone, as head is after its first line
        assert process.stderr is not None
        code = await asyncio.wait_for(process.wait(), 30)
        errors = (await process.stderr.read()).decode()
    assert json.loads(first)["type"] == "session"
    assert code == 141, errors
    assert "Traceback" not in errors
