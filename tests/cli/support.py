"""Running the installed ``tether`` executable against a scripted OpenAI-compatible server.

``TETHER_HOME`` points at a scratch directory whose ``models.toml`` names the loopback server
as provider ``loopback`` (model ``loopback/scripted``), so every test runs the real command,
the real provider and the real SDK over real HTTP, offline.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.ai.providers.loopback import Reply, sse

TETHER = shutil.which("tether", path=os.path.dirname(sys.executable)) or "tether"
MODEL = "loopback/scripted"


def write_models_toml(home: Path, url: str, *, context_window: int = 128000) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.toml").write_text(
        f"""
[providers.loopback]
api = "openai-completions"
base_url = "{url}/v1"

[[providers.loopback.models]]
id = "scripted"
context_window = {context_window}
max_tokens = 1024
""",
        encoding="utf-8",
    )


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _usage(prompt: int = 100, completion: int = 20) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "scripted",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def text_reply(text: str, finish: str = "stop") -> Reply:
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)] or [""]
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": piece}) for piece in pieces]
    chunks += [_chunk({}, finish), _usage()]
    return Reply(200, sse(chunks, done=True))


def tool_reply(*calls: tuple[str, str, dict[str, Any]], text: str = "") -> Reply:
    chunks = [_chunk({"role": "assistant", "content": text})]
    for index, (call_id, name, arguments) in enumerate(calls):
        raw = json.dumps(arguments)
        chunks.append(
            _chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": raw[:5]},
                        }
                    ]
                }
            )
        )
        chunks.append(
            _chunk({"tool_calls": [{"index": index, "function": {"arguments": raw[5:]}}]})
        )
    chunks += [_chunk({}, "tool_calls"), _usage()]
    return Reply(200, sse(chunks, done=True))


@dataclass
class Completed:
    code: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["TETHER_HOME"] = str(home)
    return env


def as_at_a_terminal() -> None:
    """In a child before it runs: Ctrl-C (SIGINT) as a person's terminal delivers it. A job
    started in the background of a shell without job control (a CI script's ``… &``) inherits
    SIGINT ignored, and tether, like any program, keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def spawn_tether(
    *args: str, home: Path, cwd: Path, stdin: int = asyncio.subprocess.DEVNULL
) -> asyncio.subprocess.Process:
    """``tether ARGS`` started in ``cwd`` with ``home`` as its ``TETHER_HOME``, stdout and
    stderr piped."""
    return await asyncio.create_subprocess_exec(
        TETHER,
        *args,
        cwd=str(cwd),
        env=environment(home),
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def run_tether(
    *args: str, home: Path, cwd: Path, stdin: str | None = None, timeout: float = 60
) -> Completed:
    piped = asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL
    process = await spawn_tether(*args, home=home, cwd=cwd, stdin=piped)
    out, err = await asyncio.wait_for(
        process.communicate(stdin.encode() if stdin is not None else None), timeout
    )
    assert process.returncode is not None
    return Completed(process.returncode, out.decode(), err.decode())
