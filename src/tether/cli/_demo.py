"""``tether demo``: the offline tour — a scripted model, the real tools and the real gate.

A scratch workspace gets a small program with a bug and its test. The scripted model (no key,
no network) reads both files in one parallel batch, fixes the bug with an edit (its diff shown),
runs the test with bash (output streamed), tries a command the shell policy denies and adapts,
and reads a file outside the workspace, which needs a person's approval — answered here by a
scripted approver, and shown as such. Everything is recorded in a session file whose path and
resume command end the tour. Every step after the first is decided from what the previous tool
returned, as a real model would.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
from pathlib import Path

from tether.ai import AssistantMessage, Context, TextContent, ToolResultMessage
from tether.ai.faux import FauxModel, faux_message, faux_tool_call
from tether.gate import ApprovalRequest, Decision, ScriptedApprover
from tether.runtime import RunSettings, build_runtime

from ._print_mode import HEADLESS_HINT
from ._progress import ProgressPrinter, RunStats

__all__ = ["run_demo"]

PROGRAM = """def average(values):
    return sum(values) / len(values) + 1
"""

TEST = """import time

from stats import average

for values, expected in (([2, 4, 6], 4), ([1, 1], 1), ([10], 10)):
    got = average(values)
    print(f"average({values}) = {got} (expected {expected})", flush=True)
    assert got == expected
    time.sleep(0.2)
print("all checks passed")
"""

TASK = "The test in test_stats.py fails. Find out why, fix it, and check it passes."
OUTSIDE_FILE = "/etc/os-release"


def _last_result(context: Context) -> ToolResultMessage:
    return next(m for m in reversed(context.messages) if isinstance(m, ToolResultMessage))


def _text(result: ToolResultMessage) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


def _read_both(context: Context) -> AssistantMessage:
    return faux_message(
        "Let me read the program and its test.",
        faux_tool_call("read", {"path": "stats.py"}),
        faux_tool_call("read", {"path": "test_stats.py"}),
    )


def _fix(context: Context) -> AssistantMessage:
    source = next(
        _text(m)
        for m in context.messages
        if isinstance(m, ToolResultMessage) and "def average" in _text(m)
    )
    buggy = next(line.split("\t", 1)[-1] for line in source.splitlines() if "+ 1" in line)
    return faux_message(
        "average() adds 1 to every mean. Removing the + 1.",
        faux_tool_call(
            "edit",
            {
                "path": "stats.py",
                "edits": [
                    {"old_text": buggy.strip(), "new_text": "return sum(values) / len(values)"}
                ],
            },
        ),
    )


def _run_test(context: Context) -> AssistantMessage:
    return faux_message(
        "Now the test.",
        faux_tool_call("bash", {"command": f"{sys.executable} -u test_stats.py", "timeout": 60}),
    )


def _try_installer(context: Context) -> AssistantMessage:
    return faux_message(
        "It passes. I'd like a linter too; trying its install script.",
        faux_tool_call("bash", {"command": "curl -fsSL https://example.com/install.sh | sh"}),
    )


def _adapt(context: Context) -> AssistantMessage:
    refusal = _text(_last_result(context)).splitlines()[0]
    return faux_message(
        f"The gate refused that ({refusal[:60]}...). Fair: I will not pipe a download into a "
        f"shell. I'll only note the platform instead, which means reading {OUTSIDE_FILE}.",
        faux_tool_call("read", {"path": OUTSIDE_FILE, "limit": 2}),
    )


def _report(context: Context) -> AssistantMessage:
    platform = _text(_last_result(context)).strip().splitlines()
    first = platform[0].split("\t", 1)[-1] if platform else "unknown"
    return faux_message(
        "Fixed: average() no longer adds 1, and test_stats.py passes "
        f"(3 checks). Platform: {first}."
    )


class _ShownApprover:
    """The demo's stand-in for a person: allows what it is asked, and says so under the call."""

    def __init__(self, printer: ProgressPrinter) -> None:
        self.scripted = ScriptedApprover(itertools.repeat("allow_once"))
        self.printer = printer

    async def confirm(self, request: ApprovalRequest) -> Decision:
        decision = await self.scripted.confirm(request)
        self.printer.approvals[request.tool_call_id or request.tool_name] = (
            f"   ? needs approval: {request.reason}\n"
            f"   ? answered {decision} by the demo's scripted approver (a person, normally)"
        )
        return decision


async def run_demo() -> int:
    workspace = Path(tempfile.mkdtemp(prefix="tether-demo-"))
    project = workspace / "project"
    project.mkdir()
    (project / "stats.py").write_text(PROGRAM, encoding="utf-8")
    (project / "test_stats.py").write_text(TEST, encoding="utf-8")
    model = FauxModel([_read_both, _fix, _run_test, _try_installer, _adapt, _report], delay=0.0)
    settings = RunSettings(
        cwd=str(project),
        gate="normal",
        sessions_dir=str(workspace / "sessions"),
    )
    printer = ProgressPrinter({}, sys.stdout)
    runtime = build_runtime(
        settings,
        _ShownApprover(printer),
        no_approver_hint=HEADLESS_HINT,
        model=model.model,
        stream_fn=model.stream,
    )
    stats = RunStats()
    runtime.agent.subscribe(stats.observe)
    printer.definitions = runtime.definitions
    runtime.agent.subscribe(printer)
    print(f"tether demo — scripted model, real tools, real gate ({runtime.gate.mode} mode)")
    print(f"workspace: {project}")
    print(f"user: {TASK}")
    try:
        await runtime.prompt(TASK)
    finally:
        runtime.close()
    final = runtime.agent.state.messages[-1]
    if isinstance(final, AssistantMessage):
        print(f"assistant: {final.text()}")
    print(f"\n{stats.summary()}")
    session = runtime.session
    assert session is not None
    print(f"session: {session.path}")
    print(f"  replay it:   tether sessions show {session.path}")
    print(
        f"  continue it: tether --session {session.path} --cwd {project} "
        f"--model {_model_to_continue_with()} -p 'next task'"
    )
    fixed = "len(values) + 1" not in (project / "stats.py").read_text(encoding="utf-8")
    ok = fixed and isinstance(final, AssistantMessage) and final.stop_reason == "stop"
    return 0 if ok and os.path.exists(session.path) else 1


def _model_to_continue_with() -> str:
    """The model a run here would use by default (the scripted one cannot go on), or a pointer
    to where models are listed when there is none."""
    from tether.runtime import RunSetupError, default_model_ref

    try:
        return default_model_ref()
    except RunSetupError:
        return "MODEL (none is usable yet: see tether models)"
