"""``tether`` with no task, in a real terminal (tmux) against a scripted loopback server."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pexpect
import psutil
import pytest
from tests.ai.providers.loopback import LoopbackServer, Reply, json_reply, sse

from .support import MODEL, TETHER, environment, text_reply, tool_reply, write_models_toml
from .tmux import TmuxPane


@dataclass
class Terminal:
    pane: TmuxPane
    server: LoopbackServer
    home: Path
    project: Path

    def request_texts(self, index: int) -> str:
        """Everything the model was sent in request ``index``, as one JSON text."""
        return json.dumps(self.server.requests[index].json()["messages"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def launch(tmp_path: Path, project: Path):
    """``async with launch(replies, *options) as terminal:`` — tether in a tmux pane."""

    @asynccontextmanager
    async def launch(
        replies: list[Reply],
        *extra: str,
        width: int = 100,
        sandbox: bool = False,
        more_models: tuple[str, ...] = (),
    ) -> AsyncIterator[Terminal]:
        home = tmp_path / "home"
        options = [*extra] if sandbox else ["--no-sandbox", *extra]
        async with LoopbackServer(replies) as server:
            write_models_toml(home, server.url)
            with open(home / "models.toml", "a", encoding="utf-8") as handle:
                for model_id in more_models:
                    handle.write(f'\n[[providers.loopback.models]]\nid = "{model_id}"\n')
            pane = TmuxPane(width=width, height=30)
            pane.start(
                [TETHER, "--model", MODEL, *options], cwd=str(project), env=environment(home)
            )
            try:
                await pane.wait_for("ctx 0%")  # the status line: the input is ready
                yield Terminal(pane, server, home, project)
            finally:
                pane.close()

    return launch


async def send(pane: TmuxPane, text: str) -> None:
    pane.type(text)
    pane.send("Enter")


async def test_a_prompt_shows_the_streamed_answer(launch) -> None:
    async with launch([text_reply("Hello from **tether**, streamed in pieces.")]) as terminal:
        pane = terminal.pane
        await send(pane, "say hello")
        text = await pane.wait_for("streamed in pieces.")
        assert "> say hello" in text
        assert "Hello from tether" in text  # Markdown: the bold markers are not shown
        assert "gate normal" in text and "sandbox off" in text and MODEL in text


async def test_y_allows_a_command_once_and_its_output_is_shown(launch) -> None:
    command = "mkdir -p out && echo made-out-$((6*7))"
    replies = [tool_reply(("c1", "bash", {"command": command})), text_reply("Made the folder.")]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "make a folder")
        asking = await pane.wait_for("y allow once")
        assert "Approval needed" in asking and "not on the read-only list" in asking
        assert '"mkdir -p out && echo made-out-$((6*7))"' in asking
        pane.type("y")
        text = await pane.wait_for("Made the folder.")
        assert "allowed once" in text
        assert "made-out-42" in text and "exit 0" in text
        assert (terminal.project / "out").is_dir()


async def test_n_denies_and_the_model_sees_why(launch) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "touch forbidden.txt"})),
        text_reply("Understood, I left the file alone."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "touch a file")
        await pane.wait_for("y allow once")
        pane.type("n")
        text = await pane.wait_for("I left the file alone.")
        assert "denied once" in text and "Denied by a person (deny_once)" in text
        assert not (terminal.project / "forbidden.txt").exists()
        assert "Denied by a person" in terminal.request_texts(1)


async def test_a_allows_for_the_session_so_the_same_command_runs_unasked(launch) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "mkdir -p out && echo first-run"})),
        tool_reply(("c2", "bash", {"command": 'mkdir -p "out" && echo "first-run"'})),
        text_reply("Ran it twice."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "run it twice")
        await pane.wait_for("y allow once")
        pane.type("a")
        text = await pane.wait_for("Ran it twice.")
        assert text.count("allowed for this session") == 1
        assert text.count("asked because") == 1
        assert text.count("first-run") >= 2


def _sleepers() -> list[psutil.Process]:
    """The two ``sleep`` processes of the aborted command (and nothing else)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if (process.info["cmdline"] or [])[:2] in (["sleep", "41.5"], ["sleep", "42.5"]):
            found.append(process)
    return found


async def test_esc_aborts_a_long_command_its_process_tree_dies_and_the_prompt_is_back(
    launch,
) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "sleep 41.5 | sleep 42.5"})),
        text_reply("Back again."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "wait a while")
        await pane.wait_for("Esc to abort", whole=False)
        deadline = time.monotonic() + 5
        while len(_sleepers()) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert len(_sleepers()) == 2
        pane.send("Escape")
        await pane.wait_for("aborted")
        deadline = time.monotonic() + 5
        while _sleepers() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert _sleepers() == []
        await pane.wait_for(lambda screen: "Esc to abort" not in screen, whole=False)
        assert len(terminal.server.requests) == 1
        await send(pane, "still there?")
        await pane.wait_for("Back again.")
        assert "still there?" in terminal.request_texts(1)


async def test_a_message_typed_while_a_tool_runs_is_queued_and_delivered_after_the_batch(
    launch,
) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "sleep 1.5 && echo batch-five-done"})),
        text_reply("Steered answer."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "start a batch")
        await pane.wait_for("Esc to abort", whole=False)
        await send(pane, "also look at the tests")
        queued = await pane.wait_for("queued (steering): also look at the tests")
        assert "│ batch-five-done" not in queued
        text = await pane.wait_for("Steered answer.")
        assert "steering, delivered" in text
        *_, result, steering = terminal.server.requests[1].json()["messages"]
        assert result["role"] == "tool" and "batch-five-done" in json.dumps(result)
        assert steering["role"] == "user" and "also look at the tests" in json.dumps(steering)


async def test_slash_model_switches_the_model(launch) -> None:
    replies = [text_reply("Answered by the other model.")]
    async with launch(replies, more_models=("other",)) as terminal:
        pane = terminal.pane
        await send(pane, "/model loopback/other")
        await pane.wait_for("loopback/scripted → loopback/other")
        await pane.wait_for("loopback/other · ", whole=False)
        await send(pane, "who are you")
        await pane.wait_for("Answered by the other model.")
        assert terminal.server.requests[0].json()["model"] == "other"


async def test_slash_resume_lists_sessions_and_resumes_one(launch) -> None:
    replies = [text_reply("First answer."), text_reply("Second answer.")]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "the first session prompt")
        await pane.wait_for("First answer.")
        await send(pane, "/new")
        await pane.wait_for("New session")
        await send(pane, "/resume")
        listing = await pane.wait_for("Resume with /resume N")
        line = next(row for row in listing.splitlines() if "msgs  the first session" in row)
        number = line.split()[0]
        await send(pane, f"/resume {number}")
        await pane.wait_for("Resumed session")
        await send(pane, "and now?")
        await pane.wait_for("Second answer.")
        history = terminal.request_texts(1)
        assert "the first session prompt" in history and "First answer." in history


async def test_resizing_to_60_columns_keeps_the_screen_clean(launch) -> None:
    answer = "Resizing works: " + " ".join(f"word{n}" for n in range(40)) + "."
    async with launch([text_reply(answer)]) as terminal:
        pane = terminal.pane
        pane.resize(60, 30)
        await asyncio.sleep(0.3)
        await send(pane, "a long answer please")
        await pane.wait_for("word39.")
        screen = pane.screen()
        lines = screen.splitlines()
        assert all(len(line) <= 60 for line in lines)
        status = [line for line in lines if "gate normal" in line]
        assert len(status) == 1 and "sandbox off" in status[0]
        rules = [line for line in lines if line.startswith("─")]
        assert rules == ["─" * 60]
        shown = " ".join(pane.history().split())
        assert " ".join(f"word{n}" for n in range(40)) in shown


async def test_keys_pressed_before_an_approval_is_armed_never_answer_it(launch) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "touch typed-ahead.txt"})),
        text_reply("Not touched."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "touch it")
        await pane.wait_for(
            lambda screen: "Approval needed" in screen and "y allow once" not in screen,
            timeout=5,
            whole=False,
        )
        pane.type("ya")  # the prompt is not armed yet: dropped
        await pane.wait_for("y allow once", whole=False)
        await asyncio.sleep(0.5)
        screen = pane.screen()
        assert "allowed" not in screen and "Approval needed" in screen
        assert "\n> ya" not in screen and "\n> y" not in screen  # nor typed into the input
        pane.type("n")
        await pane.wait_for("Not touched.")
        assert not (terminal.project / "typed-ahead.txt").exists()


async def test_alt_enter_inserts_a_newline_and_while_working_queues_a_follow_up(launch) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "sleep 1.5 && echo slept"})),
        text_reply("First part done."),
        text_reply("Follow-up answered."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        pane.type("line one")
        pane.send("M-Enter")
        pane.type("line two")
        pane.send("Enter")
        await pane.wait_for("Esc to abort", whole=False)
        pane.type("then summarise")
        pane.send("M-Enter")
        await pane.wait_for("queued (follow-up): then summarise")
        await pane.wait_for("Follow-up answered.")
        first = terminal.server.requests[0].json()["messages"]
        assert first[-1]["content"] in (
            "line one\nline two",
            [{"type": "text", "text": "line one\nline two"}],
        )
        *_, answer, follow_up = terminal.server.requests[2].json()["messages"]
        assert "First part done." in json.dumps(answer)
        assert "then summarise" in json.dumps(follow_up)


async def test_ctrl_c_twice_on_an_empty_prompt_quits(launch) -> None:
    async with launch([]) as terminal:
        pane = terminal.pane
        pane.type("some draft")
        pane.send("C-c")  # clears the input
        await pane.wait_for(lambda screen: "some draft" not in screen, whole=False)
        pane.send("C-c")
        await pane.wait_for("Press Ctrl-C again to quit")
        pane.send("C-c")
        await pane.wait_for("[exited] 0")


async def test_ctrl_d_on_an_empty_prompt_quits(launch) -> None:
    async with launch([]) as terminal:
        terminal.pane.send("C-d")
        await terminal.pane.wait_for("[exited] 0")


async def test_a_dumb_terminal_gets_plain_text_without_escape_codes(tmp_path, project) -> None:
    replies = [
        tool_reply(("c1", "bash", {"command": "mkdir -p plain && echo plain-$((2*21))"})),
        text_reply("Plain **answer** here."),
    ]
    home = tmp_path / "home"
    async with LoopbackServer(replies) as server:
        write_models_toml(home, server.url)
        env = {**environment(home), "TERM": "dumb"}
        child = pexpect.spawn(
            TETHER,
            ["--model", MODEL, "--no-sandbox"],
            cwd=str(project),
            env=env,
            dimensions=(30, 80),
            encoding="utf-8",
            timeout=15,
        )
        log = io.StringIO()
        child.logfile_read = log
        try:
            await child.expect_exact("Ctrl-D quits", async_=True)
            child.sendline("make it plain")
            await child.expect_exact("y allow once", async_=True)
            child.sendline("y")
            await child.expect_exact("Plain **answer** here.", async_=True)
            await child.expect_exact("gate normal", async_=True)
            child.sendeof()
            await child.expect(pexpect.EOF, async_=True)
        finally:
            child.close(force=True)
    shown = log.getvalue()
    assert "plain-42" in shown and "allowed once" in shown
    assert "\x1b" not in shown
    assert (project / "plain").is_dir()


async def test_the_other_slash_commands(launch) -> None:
    async with launch([text_reply("Recorded.")]) as terminal:
        pane = terminal.pane
        await send(pane, "remember this")
        await pane.wait_for("Recorded.")
        await send(pane, "/help")
        await pane.wait_for("/compact")
        await send(pane, "/gate yolo")
        await pane.wait_for("gate yolo", whole=False)
        await send(pane, "/thinking high")
        await pane.wait_for("Thinking: high")
        await send(pane, "/tools")
        await pane.wait_for("bash   ")
        await send(pane, "/session")
        session_shown = await pane.wait_for("messages 2")
        await send(pane, "/export out.html")
        await pane.wait_for("Exported to")
        assert "remember this" in (terminal.project / "out.html").read_text(encoding="utf-8")
        await send(pane, "/fork")
        forked = await pane.wait_for("Forked")
        assert forked.count("Forked") == 1 and session_shown
        await send(pane, "/nonsense")
        await pane.wait_for("Unknown command /nonsense")
        await send(pane, "/quit")
        await pane.wait_for("[exited] 0")


async def test_a_read_is_one_line_and_ctrl_o_expands_it(launch) -> None:
    replies = [tool_reply(("c1", "read", {"path": "notes.txt"})), text_reply("Read it.")]
    async with launch(replies) as terminal:
        (terminal.project / "notes.txt").write_text("first note\nsecond note\n", encoding="utf-8")
        pane = terminal.pane
        await send(pane, "read the notes")
        text = await pane.wait_for("Read it.")
        assert "read notes.txt" in text and "lines 1-2 of 2" in text
        assert "second note" not in text
        pane.send("C-o")
        await pane.wait_for("second note")


def thinking_reply(thinking: str, text: str) -> Reply:
    def chunk(delta: dict) -> dict:
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [
        chunk({"reasoning_content": thinking[i : i + 9]}) for i in range(0, len(thinking), 9)
    ]
    chunks += [chunk({"content": text})]
    chunks.append({**chunk({}), "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return Reply(200, sse(chunks, done=True))


async def test_thinking_settles_as_one_dim_line_that_ctrl_o_expands(launch) -> None:
    thinking = "The person wants a greeting.\nA short one will do."
    async with launch([thinking_reply(thinking, "Hi there.")]) as terminal:
        pane = terminal.pane
        await send(pane, "greet me")
        text = await pane.wait_for("Hi there.")
        assert "✻ The person wants a greeting. … (2 lines, Ctrl-O shows)" in text
        assert "A short one will do." not in text
        pane.send("C-o")
        await pane.wait_for("A short one will do.")


async def test_a_parallel_batch_asks_one_call_at_a_time(launch, tmp_path) -> None:
    first, second = tmp_path / "outside-one.txt", tmp_path / "outside-two.txt"
    first.write_text("one outside\n", encoding="utf-8")
    second.write_text("two outside\n", encoding="utf-8")
    replies = [
        tool_reply(("c1", "read", {"path": str(first)}), ("c2", "read", {"path": str(second)})),
        text_reply("Read one of them."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "read both")
        asking = await pane.wait_for("y allow once", whole=False)
        assert (
            asking.count("Approval needed") == 1
            and "outside-one.txt" in asking.split("Approval")[1]
        )
        pane.type("y")
        asking = await pane.wait_for(
            lambda screen: (
                "y allow once" in screen and "outside-two.txt" in screen.split("Approval")[-1]
            ),
            whole=False,
        )
        assert asking.count("Approval needed") == 1
        pane.type("n")
        text = await pane.wait_for("Read one of them.")
        assert "allowed once" in text and "denied once" in text
        results = terminal.server.requests[1].json()["messages"][-2:]
        assert "one outside" in json.dumps(results[0]) and "Denied by a person" in json.dumps(
            results[1]
        )


async def test_a_provider_retry_is_a_one_line_notice(launch) -> None:
    replies = [
        json_reply(503, {"error": {"message": "overloaded, try again"}}),
        text_reply("Answered on the second try."),
    ]
    async with launch(replies) as terminal:
        pane = terminal.pane
        await send(pane, "hello?")
        text = await pane.wait_for("Answered on the second try.")
        notices = [line for line in text.splitlines() if "the provider is retrying" in line]
        assert len(notices) == 1 and "Retrying request in" in notices[0]


def slow_text_reply(lines: list[str], pause: float) -> Reply:
    """An answer streamed one line at a time, ``pause`` seconds apart."""

    def chunk(delta: dict, finish: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "choices": [choice]}

    body: list = sse([chunk({"role": "assistant", "content": ""})])
    for line in lines:
        body += [pause, *sse([chunk({"content": line + "\n\n"})])]
    body += sse([chunk({}, "stop")], done=True)
    return Reply(200, body)


async def test_resizing_while_an_answer_streams_loses_no_line(launch) -> None:
    """What was settled before the resize stays; the rest is rendered once at the new width.
    (The terminal re-wraps the live lines drawn at the old width: a line that was live at that
    moment may show twice.)"""
    tail = "with enough words after it to wrap at sixty columns"  # one line at 100, two at 60
    lines = [f"Paragraph marker{n:02d} {tail}." for n in range(24)]
    async with launch([slow_text_reply(lines, 0.08)]) as terminal:
        pane = terminal.pane
        await send(pane, "stream slowly")
        await pane.wait_for("marker08")
        pane.resize(60, 30)
        shown = await pane.wait_for(
            lambda text: all(
                f"marker{n:02d} with enough words after it to wrap at" in text for n in range(24)
            ),
            timeout=12,
        )
        twice = [n for n in range(24) if shown.count(f"marker{n:02d}") > 1]
        assert len(twice) <= 3, twice  # at most the live lines of the moment (6 rows)
        assert all(shown.count(f"marker{n:02d}") == 1 for n in range(12, 24))
        assert all(len(line) <= 60 for line in pane.screen().splitlines())


async def test_the_first_token_wait_says_the_model_is_reading_the_prompt(launch) -> None:
    delayed = text_reply("At last.")
    async with launch([Reply(delayed.status, [1.5, *delayed.body])]) as terminal:
        await send(terminal.pane, "take your time")
        waiting = await terminal.pane.wait_for("is reading the prompt", whole=False)
        assert re.search(r"scripted is reading the prompt \(≈[\d.]+k? tokens\)", waiting)
        assert "Esc to abort" in waiting
        await terminal.pane.wait_for("At last.")


async def test_esc_while_streaming_says_aborting_below_the_streamed_tail(launch) -> None:
    lines = [f"Streamed line{n:02d}." for n in range(40)]
    async with launch([slow_text_reply(lines, 0.25)]) as terminal:
        pane = terminal.pane
        await send(pane, "stream on")
        await pane.wait_for("line05", whole=False)
        pane.send("Escape")
        shown = await pane.wait_for("⏹ aborted")
        rows = shown.splitlines()
        aborted = max(i for i, row in enumerate(rows) if "⏹ aborted" in row)
        streamed = [i for i, row in enumerate(rows) if "Streamed line" in row]
        assert streamed and max(streamed) < aborted  # the tail first, then the abort
        assert not any("Aborting…" in row for row in rows[: max(streamed)])
        assert "line39" not in shown


async def test_compact_shows_progress_and_the_smaller_context(launch) -> None:
    summary = slow_text_reply([f"Summary point {n}: the user asked things." for n in range(8)], 0.3)
    async with launch([text_reply("Recorded."), summary]) as terminal:
        pane = terminal.pane
        await send(pane, "remember " + "this detail " * 200)
        await pane.wait_for("Recorded.")
        await send(pane, "/compact")
        progress = await pane.wait_for("summary ≈", whole=False)
        assert re.search(
            r"compacting ≈[\d.]+k? tokens with scripted · summary ≈\d+ tokens", progress
        )
        assert "Esc to abort" in progress
        done = await pane.wait_for("Compacted:")
        assert re.search(r"Compacted: ≈[\d.]+k? → ≈[\d.]+k? tokens", done)


async def test_esc_aborts_a_compaction_and_leaves_the_context_as_it_was(launch) -> None:
    summary = slow_text_reply([f"Summary point {n}." for n in range(60)], 0.3)
    async with launch([text_reply("Recorded."), summary]) as terminal:
        pane = terminal.pane
        await send(pane, "remember this")
        await pane.wait_for("Recorded.")
        await send(pane, "/compact")
        await pane.wait_for("summary ≈", whole=False)
        pane.send("Escape")
        await pane.wait_for("Compaction aborted; the context is unchanged.")


async def test_the_input_history_persists_between_sessions(launch) -> None:
    async with launch([text_reply("Noted.")]) as terminal:
        await send(terminal.pane, "a prompt worth remembering")
        await terminal.pane.wait_for("Noted.")
        terminal.pane.send("C-d")
        await terminal.pane.wait_for("[exited] 0")
    async with launch([]) as terminal:
        terminal.pane.send("Up")
        await terminal.pane.wait_for("> a prompt worth remembering", whole=False)
