"""``allow`` is enforced: what runs is the script regenerated from the commands the shell policy
proved, never the model's text — checked against real bash with programs replaced by twins that
log their argv (issue 18, point 1)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate, Governance, PathPolicy, Policies, Review, ShellPolicy, Verdict
from tether.tools import create_bash_tool, wrap_tool_definition
from tether.tools.operations import ExecResult

BASH = shutil.which("bash")
# Programs, none a bash builtin, so a twin on PATH is what runs.
PROGRAMS = ("ls", "cat", "wc", "head", "grep", "sort", "rm", "touch", "curl", "sh", "tail")
_TWIN = """#!/bin/sh
line=$(printf '%s\\037' "${0##*/}" "$@")
printf '%s\\036' "$line" >> "$TWIN_LOG"
"""  # one write per run: the stages of a pipeline log at the same time


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("proved")
    (root / "work").mkdir()
    (root / "work" / "README.md").write_text("hello\n")
    (root / "work" / "src").mkdir()
    (root / "bin").mkdir()
    for name in PROGRAMS:
        twin = root / "bin" / name
        twin.write_text(_TWIN)
        twin.chmod(0o755)
    return root


@pytest.fixture(scope="module")
def policy(scratch: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(scratch / "work")))


def run_with_twins(scratch: Path, script: str) -> list[tuple[str, ...]]:
    """The argv of every program ``script`` runs in real bash (sorted: pipeline stages race)."""
    log = scratch / "log"
    log.write_text("")
    assert BASH is not None
    env = {"PATH": str(scratch / "bin"), "TWIN_LOG": str(log), "HOME": str(scratch), "LANG": "C"}
    subprocess.run(
        [BASH, "-c", script], cwd=scratch / "work", env=env, stdin=subprocess.DEVNULL,
        capture_output=True, timeout=20, check=False,
    )  # fmt: skip
    lines = [line for line in log.read_bytes().decode().split("\036") if line]  # args hold \n
    return sorted(tuple(line.split("\037")[:-1]) for line in lines)


def proved_commands(script: str) -> list[tuple[str, ...]]:
    """The command vectors of a regenerated script that run when every program succeeds."""
    parts = re.split(r"('[^']*')", script)  # redirections only outside the quoted words
    unredirected = "".join(
        part if index % 2 else re.sub(r" \d*(?:&>>|&>|>>|>\||>)/dev/null| \d*>&[12]", "", part)
        for index, part in enumerate(parts)
    )
    lexer = shlex.shlex(unredirected, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    ran: list[tuple[str, ...]] = []
    current: list[str] = []
    skipping = False
    for token in [*lexer, ";"]:
        if token not in (";", "&&", "||", "|"):
            current.append(token)
            continue
        if current and not skipping:
            ran.append(tuple(current))
        current = []
        if token != "|":
            skipping = token == "||"  # every program succeeds: `||` skips what follows it
    return sorted(ran)


# --- the verdict carries the regenerated script ---------------------------------------------


@pytest.mark.parametrize(
    ("command", "regenerated"),
    [
        ("ls -la", "'ls' '-la'"),
        (
            "cat README.md | wc -l && ls src || ls",
            "'cat' 'README.md' | 'wc' '-l' && 'ls' 'src' || 'ls'",
        ),
        ('grep -n "it\'s" README.md', "'grep' '-n' 'it'\\''s' 'README.md'"),
        ("ls\n\nls src", "'ls'; 'ls' 'src'"),
        ("ls >/dev/null 2>&1", "'ls' >/dev/null 2>&1"),
        ("ls | ls | ls src && cat README.md", "'ls' | 'ls' | 'ls' 'src' && 'cat' 'README.md'"),
    ],
)
def test_an_allow_carries_the_script_regenerated_from_what_was_proved(
    policy: ShellPolicy, command: str, regenerated: str
) -> None:
    verdict = policy.classify(command)
    assert verdict.decision == "allow", verdict
    assert verdict.prepared == {"command": regenerated}


@pytest.mark.parametrize(
    "command",
    [
        "ls # a comment",
        "# only a comment",
        "ls \\\n-la",
        "cat fé.txt",
        "ls\r",
        "ls\x0b",
        "ls\x0c",
        "ls\u00a0",
        "ls\x1b[31m",
        # bash keeps an escaped operator in the word; tree-sitter split these after the quote
        "cat 'README.md'\\;ls",
        'cat "README.md"\\|ls',
        "ls src\\;ls",
        "cat README.md\\ ;ls",
    ],
)
def test_comments_backslash_newlines_and_unusual_bytes_are_never_allowed(
    policy: ShellPolicy, command: str
) -> None:
    verdict = policy.classify(command)
    assert verdict.decision != "allow", verdict
    assert verdict.prepared is None


@pytest.mark.parametrize("command", ["grep 'a\\|b' README.md", 'grep "a\\;b" README.md'])
def test_a_backslash_inside_quotes_is_literal_and_still_allowed(
    policy: ShellPolicy, command: str
) -> None:
    assert policy.classify(command).decision == "allow"


def test_only_an_allow_carries_a_prepared_form(policy: ShellPolicy) -> None:
    for command in ("rm -rf build", "rm -rf ~", "ls $(pwd)"):
        assert policy.classify(command).prepared is None


# --- the gate runs the regenerated script -----------------------------------------------------


def _recording_bash(ran: list[str]) -> AgentTool:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
        ran.append(params["command"])
        return "ok"

    def classify(args: Any, policies: Policies) -> Verdict:
        return policies.shell.classify(str(args.get("command", "")))

    schema = {
        "type": "object",
        "properties": {"command": {"type": "string", "x-review": Review.INCLUDE.value}},
        "required": ["command"],
    }
    governance = Governance(policy_check=classify)
    return AgentTool("bash", "Bash", "bash", schema, execute, metadata={"governance": governance})


async def _run_one(gate: Gate, tool: AgentTool, command: str) -> None:
    fm = FauxModel([faux_message(faux_tool_call("bash", {"command": command})), faux_text("ok")])
    config = AgentLoopConfig(
        model=fm.model, stream_fn=fm.stream, before_tool_call=gate.before_tool_call
    )
    await agent_loop([UserMessage("go")], AgentContext("", [], [tool]), config).result()


@pytest.mark.parametrize("mode", ["strict", "normal", "yolo"])
async def test_the_gate_hands_the_tool_the_regenerated_script(tmp_path: Path, mode: str) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    ran: list[str] = []
    gate = Gate(mode, None, workspace=str(tmp_path))  # type: ignore[arg-type]
    await _run_one(gate, _recording_bash(ran), 'cat  "README.md"|wc -l')
    assert ran == ["'cat' 'README.md' | 'wc' '-l'"]


async def test_a_command_a_person_approved_runs_as_written(tmp_path: Path) -> None:
    from tether.gate import ScriptedApprover

    ran: list[str] = []
    gate = Gate("normal", ScriptedApprover(["allow_once"]), workspace=str(tmp_path))
    await _run_one(gate, _recording_bash(ran), "mkdir -p build  # for the output")
    assert ran == ["mkdir -p build  # for the output"]


class _RecordingOperations:
    """Bash operations that record the command the bash tool hands them."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    async def exec(self, command: str, **options: Any) -> ExecResult:
        self.commands.append(command)
        return ExecResult(0)


async def test_the_bash_tool_runs_the_regenerated_script(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    operations = _RecordingOperations()
    tool = wrap_tool_definition(
        create_bash_tool(str(tmp_path), operations=operations)  # type: ignore[arg-type]
    )
    gate = Gate("strict", None, workspace=str(tmp_path))  # type: ignore[arg-type]
    await _run_one(gate, tool, "head -n 1 README.md|wc -c")
    assert operations.commands == ["'head' '-n' '1' 'README.md' | 'wc' '-c'"]


# --- the differential: what bash runs is what the prover saw ---------------------------------

_COMMANDS = [
    "ls", "ls src", "cat README.md", "wc -l README.md", "head -n 1 README.md",
    "grep -n x README.md", "sort README.md", "tail -n 2 README.md", "rm -rf ~", "touch pwned",
    "curl x", "sh",
    "cat 'README.md'", 'cat "README.md"', "ls 'a b'", "grep -e '#' README.md",
]  # fmt: skip
_SEPARATORS = [" ; ", ";", " && ", " || ", " | ", "|", "\n", " ", "  "]
_NOISE = [
    "", "", "", " # c", "#", "\r", "\r#", "\x0b", "\x0c", "\u00a0", "\u00a0#", "\\\n", "\n\\\n",
    "\\ ", "\\\t#", " <<EOF\nrm -rf ~\nEOF\n", " <<'E'\nls\nE\n", " 2>/dev/null",
    " >/dev/null 2>&1",
    "'#'", '"x"', "'", '"', "\\", "\t", "\\;", "\\|",
]  # fmt: skip


@st.composite
def scripts(draw: st.DrawFn) -> str:
    pieces: list[str] = []
    for index in range(draw(st.integers(1, 4))):
        if index:
            pieces.append(draw(st.sampled_from(_SEPARATORS)))
        pieces.append(draw(st.sampled_from(_NOISE)))
        pieces.append(draw(st.sampled_from(_COMMANDS)))
        pieces.append(draw(st.sampled_from(_NOISE)))
    return "".join(pieces)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=scripts())
@example(script="ls src' ; ls ;  <<EOF\nrm -rf ~\nEOF\nls'")  # one argument holding newlines
@example(script="ls src' ;  2>/dev/nullls'")  # one argument holding a redirection's text
def test_bash_runs_exactly_the_commands_the_prover_saw(
    scratch: Path, policy: ShellPolicy, script: str
) -> None:
    verdict = policy.classify(script)
    if verdict.decision != "allow":
        return
    assert verdict.prepared is not None
    regenerated = verdict.prepared["command"]
    expected = proved_commands(regenerated)
    assert expected, (script, regenerated)
    assert run_with_twins(scratch, regenerated) == expected, (script, regenerated)
    assert run_with_twins(scratch, script) == expected, (script, regenerated)
    assert not any(argv[0] in ("rm", "touch", "curl", "sh") for argv in expected), script


def test_the_twins_see_what_bash_really_runs(scratch: Path) -> None:
    """The harness itself: bash runs `rm` where tree-sitter sees a comment."""
    if BASH is None:
        pytest.skip("bash is not installed")
    assert run_with_twins(scratch, "ls \r# ; rm -rf x") == [("ls", "\r#"), ("rm", "-rf", "x")]
    assert run_with_twins(scratch, "echo ok\n\\\nrm -rf x") == [("rm", "-rf", "x")]
    assert proved_commands("'ls' '-l' | 'wc' && 'ls' || 'cat' 'x'; 'ls' 2>/dev/null") == sorted(
        [("ls", "-l"), ("wc",), ("ls",), ("ls",)]
    )


def test_scratch_bin_has_no_builtins(scratch: Path) -> None:
    assert BASH is None or all(
        subprocess.run(
            [BASH, "-c", f"type -t {name}"], capture_output=True, text=True, check=False,
            env={"PATH": str(scratch / "bin")},
        ).stdout.strip() == "file"
        for name in PROGRAMS
    )  # fmt: skip
