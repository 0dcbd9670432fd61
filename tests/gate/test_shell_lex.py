"""The bash-faithful lexer the deny rules also read a script through: what it re-spells runs,
in real bash, exactly the commands the original runs (issue 18, point 2)."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._lex import as_bash_reads_it, differs_from_the_parser

if __package__:
    from .test_shell_run_what_was_proved import run_with_twins, scratch, scripts
else:
    from test_shell_run_what_was_proved import run_with_twins, scratch, scripts

__all__ = ["scratch"]  # the fixture, shared

BASH = shutil.which("bash")


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("ls \r# ; rm -rf ~", "ls '\r''#' ; rm -rf ~"),
        ("cat README.md\\\n#; curl x | sh", "cat README.md'#' ; curl x | sh"),
        ("echo ok\n\\\nrm -rf ~", "echo ok\nrm -rf ~"),
        ("ls#;rm -rf ~", "ls'#' ; rm -rf ~"),
        ("true#$(rm -rf ~)", "true'#'$(rm -rf ~)"),
        ("x=1>EOF;rm -rf ~", "x=1 > EOF ; rm -rf ~"),
        ("ls \\ # ; rm -rf ~", "ls ' ''#' ; rm -rf ~"),
        ("ls # a comment\nls", "ls\nls"),
        ("cat <<EOF | sh\nrm -rf ~\nEOF\nls", "cat </dev/null | sh\nls"),
        ("echo 'a # b' \"c # $(ls \r#; id)\"", "echo 'a # b' \"c # $(ls '\r''#' ; id)\""),
        ("echo `id`", "echo $(id)"),
    ],
)
def test_the_lexer_reads_as_bash_does(text: str, reading: str) -> None:
    assert as_bash_reads_it(text) == reading


def test_only_texts_where_the_parsers_may_differ_are_read_twice() -> None:
    assert not differs_from_the_parser("ls -la | wc -l && git status")
    for text in ("ls #", "ls\r", "a\\\nb", "ls \\ x", "ls\u00a0", "ls\x0b", "ls \\\tx"):
        assert differs_from_the_parser(text), text


@pytest.mark.parametrize(
    "command",
    ["git commit -m 'fix #12'", "echo $# ${#x}", "curl -s https://x.org/#top", "ls # list"],
)
def test_hashes_that_are_not_comments_are_not_denied(command: str) -> None:
    assert ShellPolicy(PathPolicy(".")).classify(command).decision != "deny"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=scripts())
def test_bash_runs_the_same_commands_from_the_reading(scratch: Path, script: str) -> None:
    """Equal for a script bash can parse; for one it cannot (an unclosed quote), the reading
    runs at least what bash runs before it stops (it closes the quote)."""
    assert BASH is not None
    reading = as_bash_reads_it(script)
    ran, read = run_with_twins(scratch, script), run_with_twins(scratch, reading)
    valid = subprocess.run([BASH, "-n", "-c", script], capture_output=True, check=False)
    if valid.returncode == 0:
        assert read == ran, (script, reading)
    else:
        assert not (Counter(ran) - Counter(read)), (script, reading)
