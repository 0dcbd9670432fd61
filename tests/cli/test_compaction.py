"""Compaction through the command: a small context window makes the next request summarise
the older part with the model itself; the run goes on and the file keeps everything."""

from __future__ import annotations

import json

from tests.ai.providers.loopback import LoopbackServer

from tether.session import SUMMARY_INSTRUCTIONS

from .support import MODEL, run_tether, text_reply, tool_reply, write_models_toml


async def test_compaction_fires_on_a_small_window_and_the_run_goes_on(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    big = "\n".join(f"line {n:04d} of the big file, padded to be long enough" for n in range(110))
    (project / "big.txt").write_text(big, encoding="utf-8")
    second_prompt = "now the second task: " + "please consider this. " * 250
    replies = [
        tool_reply(("c1", "read", {"path": "big.txt"})),
        text_reply("read the big file"),
        text_reply("SUMMARY: the user had big.txt read; it holds 110 numbered lines."),
        text_reply("second task done"),
    ]
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url, context_window=4000)
        first = await run_tether("-p", "read big.txt", "--model", MODEL, home=home, cwd=project)
        second = await run_tether(
            "-c", "-p", second_prompt, "--model", MODEL, home=home, cwd=project
        )
    assert first.code == 0, first.stderr
    assert second.code == 0, second.stderr
    assert second.stdout == "second task done\n"
    assert len(server.requests) == 4
    summary_request = server.requests[2].json()["messages"]
    assert summary_request[0]["content"] == SUMMARY_INSTRUCTIONS
    assert "line 0000" in summary_request[1]["content"]
    continued = server.requests[3].json()["messages"]
    sent = json.dumps(continued)
    assert "SUMMARY: the user had big.txt read" in sent
    assert "line 0109" not in sent
    assert continued[-1]["content"] == second_prompt
    session_file = next((home / "sessions").rglob("*.jsonl"))
    lines = [json.loads(line) for line in session_file.read_text(encoding="utf-8").splitlines()]
    compactions = [line for line in lines if line["type"] == "compaction"]
    assert len(compactions) == 1
    assert compactions[0]["tokens_before"] > 3000
    kept = next(line for line in lines if line["id"] == compactions[0]["first_kept_entry_id"])
    assert kept["message"]["content"] == second_prompt
    assert any("line 0109" in json.dumps(line) for line in lines)  # the file keeps everything
