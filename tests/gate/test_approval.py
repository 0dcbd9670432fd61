"""Approval: rendering a request safely, asking at a terminal, scripted and deny-all approvers."""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import select
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tether.gate._approval import (
    PROMPT,
    ApprovalRequest,
    DenyAllApprover,
    ScriptedApprover,
    TerminalApprover,
    persons_answer_reason,
    render_request,
)

DIGEST = "9c1e5b7a3d2f" + "0123456789abcdef" * 3 + "4455"

REQUEST = ApprovalRequest(
    tool_name="bash",
    args={"command": "rm -rf build/", "timeout": 30},
    reason="rm deletes files",
    digest=DIGEST,
)

SPOOF = "ls\x1b[2J\rAllowed \x9b31m\x07\x08\x00done"


def _controls(text: str) -> set[str]:
    """Control characters (C0, DEL, C1) other than newline."""
    return {ch for ch in text if ch != "\n" and (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0)}


# --- render_request ------------------------------------------------------------------------------


def test_render_shows_tool_arguments_reason_and_short_digest() -> None:
    text = render_request(REQUEST)
    assert "bash" in text
    assert 'command: "rm -rf build/"' in text
    assert "timeout: 30" in text
    assert "rm deletes files" in text
    assert DIGEST[:12] in text
    assert DIGEST[:13] not in text


def test_render_digest_with_algorithm_prefix_shows_hex() -> None:
    text = render_request(ApprovalRequest("ls", {}, "why", f"sha256:{DIGEST}"))
    assert DIGEST[:12] in text
    assert "sha256" not in text


def test_render_arguments_as_json() -> None:
    request = ApprovalRequest("grep", {"flags": ["-n", "-i"], "literal": True, "ctx": None}, "", "")
    text = render_request(request)
    assert 'flags: ["-n", "-i"]' in text
    assert "literal: true" in text
    assert "ctx: null" in text


def test_render_without_arguments_says_so() -> None:
    assert "(none)" in render_request(ApprovalRequest("ls", {}, "why", DIGEST))


def test_long_values_are_shortened_with_their_full_length() -> None:
    request = ApprovalRequest("write", {"content": "x" * 5000}, "why", DIGEST)
    text = render_request(request)
    content_line = next(line for line in text.splitlines() if "content:" in line)
    assert len(content_line) < 600
    assert "5,002 characters" in content_line  # the JSON text: 5,000 x and two quotes


def test_render_removes_escape_sequences_and_control_characters_everywhere() -> None:
    request = ApprovalRequest(
        tool_name="bash\rOK",
        args={"command": SPOOF, f"key{SPOOF}": "v", "nested": {"a": [SPOOF]}},
        reason=f"reason {SPOOF}",
        digest=DIGEST,
    )
    text = render_request(request)
    assert _controls(text) == set()
    assert "\x1b" not in text
    assert "\r" not in text


def test_render_keeps_one_line_per_field() -> None:
    request = ApprovalRequest("bash", {"command": "a\nb"}, "first\nDigest: 000000000000", DIGEST)
    lines = render_request(request).splitlines()
    assert [line.split(":")[0] for line in lines if not line.startswith("  ")] == [
        "Tool",
        "Arguments",
        "Reason",
        "Digest",
    ]
    assert sum("000000000000" in line for line in lines) == 1


def test_render_masks_secrets() -> None:
    key = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    aws = "AKIA" + "IOSFODNN7EXAMPLE"
    request = ApprovalRequest(
        "bash",
        {"command": f"curl -H 'Authorization: Bearer {key}' x", "env": {"AWS": aws}},
        f"uses {key}",
        DIGEST,
    )
    text = render_request(request)
    assert key not in text
    assert aws not in text


# --- TerminalApprover on a pseudo-terminal -------------------------------------------------------


@dataclass
class Terminal:
    master: int
    input: Any
    output: io.StringIO

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def hang_up(self) -> None:
        os.close(self.master)
        self.master = -1

    def approver(self, timeout: float | None = 5.0) -> TerminalApprover:
        return TerminalApprover(self.input, self.output, timeout=timeout)

    async def prompted(self, times: int = 1) -> None:
        for _ in range(400):
            if self.output.getvalue().count(PROMPT) >= times:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"no prompt #{times}; output: {self.output.getvalue()!r}")


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    master, slave = os.openpty()
    with open(slave) as tty:
        term = Terminal(master, tty, io.StringIO())
        assert tty.isatty()
        yield term
    if term.master != -1:
        os.close(term.master)


async def answer(terminal: Terminal, text: str, request: ApprovalRequest = REQUEST) -> str:
    task = asyncio.create_task(terminal.approver().confirm(request))
    await terminal.prompted()
    terminal.type(text)
    return await task


@pytest.mark.parametrize(
    ("typed", "decision"),
    [
        ("y\n", "allow_once"),
        ("yes\n", "allow_once"),
        ("a\n", "allow_session"),
        ("n\n", "deny_once"),
        ("d\n", "deny_session"),
        ("  Y \n", "allow_once"),
    ],
)
async def test_terminal_answers(terminal: Terminal, typed: str, decision: str) -> None:
    assert await answer(terminal, typed) == decision


async def test_terminal_shows_the_request_before_the_prompt(terminal: Terminal) -> None:
    await answer(terminal, "n\n")
    shown = terminal.output.getvalue()
    assert shown.index("rm -rf build/") < shown.index(PROMPT)
    assert DIGEST[:12] in shown


async def test_terminal_closed_input_denies(terminal: Terminal) -> None:
    task = asyncio.create_task(terminal.approver().confirm(REQUEST))
    await terminal.prompted()
    terminal.hang_up()
    assert await task == "deny_once"
    assert "Input closed" in terminal.output.getvalue()


async def test_terminal_timeout_denies_and_says_so(terminal: Terminal) -> None:
    assert await terminal.approver(timeout=0.05).confirm(REQUEST) == "deny_once"
    assert "No answer within 0.05 seconds" in terminal.output.getvalue()


async def test_terminal_timeout_of_one_second_reads_in_the_singular(terminal: Terminal) -> None:
    assert await terminal.approver(timeout=1).confirm(REQUEST) == "deny_once"
    assert "No answer within 1 second: denied once." in terminal.output.getvalue()


async def test_terminal_asks_again_after_an_unknown_answer(terminal: Terminal) -> None:
    task = asyncio.create_task(terminal.approver().confirm(REQUEST))
    await terminal.prompted()
    terminal.type("maybe\n")
    await terminal.prompted(times=2)
    terminal.type("y\n")
    assert await task == "allow_once"
    assert "Please answer y, a, n or d." in terminal.output.getvalue()


async def test_terminal_denies_after_three_unknown_answers(terminal: Terminal) -> None:
    assert await answer(terminal, "maybe\nok\n\n") == "deny_once"
    shown = terminal.output.getvalue()
    assert shown.count(PROMPT) == 3
    assert "No valid answer after 3 tries" in shown


async def test_terminal_ignores_type_ahead(terminal: Terminal) -> None:
    terminal.type("y\n")
    readable, _, _ = select.select([terminal.input.fileno()], [], [], 1.0)
    assert readable, "the typed line did not reach the terminal"
    assert await answer(terminal, "n\n") == "deny_once"


async def test_terminal_does_not_block_the_event_loop(terminal: Terminal) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    ticking = asyncio.create_task(ticker())
    task = asyncio.create_task(terminal.approver().confirm(REQUEST))
    await terminal.prompted()
    await asyncio.sleep(0.05)
    terminal.type("y\n")
    assert await task == "allow_once"
    ticking.cancel()
    assert ticks >= 10


async def test_terminal_asks_concurrent_requests_in_turn(terminal: Terminal) -> None:
    approver = terminal.approver()
    first = asyncio.create_task(approver.confirm(REQUEST))
    second = asyncio.create_task(approver.confirm(REQUEST))
    await terminal.prompted()
    await asyncio.sleep(0.02)
    assert terminal.output.getvalue().count(PROMPT) == 1
    terminal.type("y\n")
    await terminal.prompted(times=2)
    terminal.type("d\n")
    assert (await first, await second) == ("allow_once", "deny_session")


async def test_terminal_prompt_text_has_no_escape_or_carriage_return(terminal: Terminal) -> None:
    request = ApprovalRequest(
        "bash", {"command": "ls\x1b[2J", "path": "\rAllowed", "x\x1b[2J": SPOOF}, SPOOF, DIGEST
    )
    await answer(terminal, "n\n", request)
    shown = terminal.output.getvalue()
    assert "\x1b" not in shown
    assert "\r" not in shown
    assert _controls(shown) == set()


async def test_non_terminal_input_denies_with_one_line() -> None:
    output = io.StringIO()
    approver = TerminalApprover(io.StringIO("y\n"), output)
    assert await approver.confirm(REQUEST) == "deny_once"
    assert output.getvalue().count("\n") == 1
    assert "not a terminal" in output.getvalue()
    assert PROMPT not in output.getvalue()


async def test_pipe_input_is_not_a_terminal() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"y\n")
    with open(read_end) as piped:
        output = io.StringIO()
        assert await TerminalApprover(piped, output).confirm(REQUEST) == "deny_once"
    os.close(write_end)


class _UnselectableTerminal(io.StringIO):
    """A terminal-like input without a file descriptor: read through a thread."""

    def isatty(self) -> bool:
        return True


async def test_unselectable_terminal_is_read_in_a_thread() -> None:
    output = io.StringIO()
    approver = TerminalApprover(_UnselectableTerminal("a\n"), output)
    assert await approver.confirm(REQUEST) == "allow_session"


async def test_unselectable_terminal_at_end_of_input_denies() -> None:
    output = io.StringIO()
    approver = TerminalApprover(_UnselectableTerminal(""), output)
    assert await approver.confirm(REQUEST) == "deny_once"
    assert "Input closed" in output.getvalue()


# --- ScriptedApprover and DenyAllApprover --------------------------------------------------------


async def test_scripted_approver_plays_back_then_denies() -> None:
    approver = ScriptedApprover(["allow_session", "deny_session"])
    other = ApprovalRequest("write", {"path": "a"}, "outside", DIGEST)
    assert await approver.confirm(REQUEST) == "allow_session"
    assert await approver.confirm(other) == "deny_session"
    assert await approver.confirm(REQUEST) == "deny_once"
    assert approver.requests == [REQUEST, other, REQUEST]


async def test_scripted_approver_accepts_an_endless_script() -> None:
    approver = ScriptedApprover(itertools.repeat("allow_once"))
    assert [await approver.confirm(REQUEST) for _ in range(5)] == ["allow_once"] * 5


async def test_scripted_approver_refuses_a_value_that_is_not_a_decision() -> None:
    approver = ScriptedApprover(["allow_once", "yes"])  # type: ignore[list-item]
    assert await approver.confirm(REQUEST) == "allow_once"
    with pytest.raises(ValueError, match="'yes'"):
        await approver.confirm(REQUEST)


async def test_deny_all_approver_denies() -> None:
    assert await DenyAllApprover().confirm(REQUEST) == "deny_once"


def test_a_persons_answer_is_worded_once_for_the_audit_and_the_model():
    """The gate and the durable layer (a wait cut off before its decision was written) say it
    the same way."""
    assert persons_answer_reason("allow_session", "rm deletes files") == (
        "allow_session; asked because rm deletes files"
    )
    assert persons_answer_reason("deny_once", "rm deletes files") == (
        "Denied by a person (deny_once): rm deletes files."
    )
