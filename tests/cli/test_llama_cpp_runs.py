"""The command against llama-cpp-python's server, replayed from its recorded replies: a named
``--tool-choice`` makes its function-calling format call the tool, turn 2's refused null
content is resent, the reply cut at ``max_tokens`` (with no usage reported) exits 3 with a
note and unknown tokens, and an overflow behind an empty stream compacts and goes on."""

from __future__ import annotations

import json

from tests.ai.providers.llama_cpp_recorded import recorded
from tests.ai.providers.loopback import LoopbackServer

from tether.session import SUMMARY_INSTRUCTIONS

from .support import MODEL, run_tether, text_reply, tool_reply, write_models_toml

TRUNCATED = 3


async def test_a_named_tool_choice_runs_the_call_and_a_cut_answer_exits_3(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    replies = [recorded("choice_named"), recorded("null_content"), recorded("auto_tools")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p",
            "read a file",
            "--model",
            MODEL,
            "--tool-choice",
            "read",
            "--tools",
            "read,ls",
            home=home,
            cwd=project,
        )
    assert done.code == TRUNCATED, done.stderr
    assert done.stdout.startswith("Here's a revised version")
    first, refused, resent = (request.json() for request in server.requests)
    assert first["tool_choice"] == {"type": "function", "function": {"name": "read"}}
    assert "tool_choice" not in refused  # forced once: the answer to the result is the model's
    assert refused["messages"][2]["content"] is None and resent["messages"][2]["content"] == ""
    assert resent["messages"][3]["role"] == "tool"
    assert (
        "tether: the answer is truncated: the reply reached the output token limit (1,024 tokens"
        " for loopback/scripted; max_tokens in models.toml) before it ended"
    ) in done.stderr
    summary = next(line for line in done.stderr.splitlines() if " turns, " in line)
    assert "tokens unknown (the server reported no usage), cost unknown" in summary
    assert "tokens 0 in" not in done.stderr


async def test_tokens_some_replies_did_not_report_are_not_counted_as_zero(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("alpha\n")
    replies = [tool_reply(("c1", "read", {"path": "a.txt"})), recorded("auto_tools")]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "read a.txt", "--model", MODEL, home=home, cwd=project)
    assert done.code == TRUNCATED, done.stderr
    assert "tokens 100+ in / 20+ out (1 of 2 replies reported no usage)" in done.stderr


async def test_a_complete_answer_still_exits_0(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer([text_reply("all done")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether("-p", "hi", "--model", MODEL, home=home, cwd=project)
    assert done.code == 0, done.stderr
    assert "truncated" not in done.stderr
    assert "tokens 100 in / 20 out, $0.0000" in done.stderr


async def test_a_tool_choice_naming_no_offered_tool_is_a_usage_error(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer([]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "hi", "--model", MODEL, "--tool-choice", "wirte", home=home, cwd=project
        )
    assert done.code == 2
    assert done.stderr.strip() == (
        "tether: --tool-choice wirte: not auto, required, none or a tool this run offers (did"
        ' you mean "write"?); offered: read, bash, edit, write, task_output, task_list,'
        " task_cancel"
    )
    assert server.requests == []


async def test_an_overflow_behind_an_empty_stream_compacts_and_the_run_goes_on(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "big.txt").write_text("\n".join(f"line {n:04d} of the file" for n in range(200)))
    replies = [
        tool_reply(("c1", "read", {"path": "big.txt"})),
        text_reply("read it"),
        recorded("overflow"),
        recorded("overflow_ns"),
        text_reply("SUMMARY: big.txt was read; it holds 200 numbered lines."),
        text_reply("second task done"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        first = await run_tether("-p", "read big.txt", "--model", MODEL, home=home, cwd=project)
        second = await run_tether("-c", "-p", "and now?", "--model", MODEL, home=home, cwd=project)
    assert first.code == 0, first.stderr
    assert second.code == 0, second.stderr
    assert second.stdout == "second task done\n"
    streamed, unstreamed, summary, retried = (r.json() for r in server.requests[2:])
    assert streamed["stream"] is True and unstreamed["stream"] is False
    assert summary["messages"][0]["content"] == SUMMARY_INSTRUCTIONS
    assert "SUMMARY: big.txt was read" in json.dumps(retried["messages"])
    assert len(server.requests) == 6


async def test_json_mode_exits_3_too_and_says_so_on_stderr(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    async with LoopbackServer([recorded("auto_tools")]) as server:
        write_models_toml(home, server.url)
        done = await run_tether(
            "-p", "hi", "--mode", "json", "--model", MODEL, home=home, cwd=project
        )
    assert done.code == TRUNCATED, done.stderr
    assert done.json_lines()[-1]["type"] == "agent_end"
    assert done.stderr.startswith("tether: the answer is truncated: ")
