"""Every ```python block in docs/ runs as written, offline, in a directory of its own.

Each block runs in a fresh interpreter in an empty temporary directory, with no API key in the
environment and ``HOME`` and ``TETHER_HOME`` inside that directory. Two markers, an HTML comment
on the line right before a block, say how a block relates to the page:

- ``<!-- continued -->``: the block goes on from the page's previous block (it uses a name that
  block defined), so it runs after it in the same interpreter;
- ``<!-- fragment: why -->``: the block cannot run on its own (it needs an SSH host or a server
  listening); it is still compiled, and the test keeps such blocks few.

A block followed by a line ``prints`` and a ```text block must print exactly that. The
``$ tether check-command ...`` lines of console blocks run through the real executable and must
print what the page shows after them.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.docs.fences import fenced_blocks

DOCS = Path(__file__).resolve().parents[2] / "docs"
MARKER = re.compile(r"<!-- (?P<marker>continued|fragment: [^>]+) -->\n$")
MAX_FRAGMENTS = 3
TIMEOUT_SECONDS = 120


@dataclass(frozen=True)
class Snippet:
    page: str
    line: int
    code: str
    """The block, after the blocks it continues."""
    fragment: bool
    continued: bool
    output: str | None
    """What the page says the block prints, if it says."""

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def snippets() -> list[Snippet]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        blocks = fenced_blocks(page.read_text(encoding="utf-8"))
        previous: Snippet | None = None
        for index, block in enumerate(blocks):
            after = blocks[index + 1] if index + 1 < len(blocks) else None
            if block.info != "python":
                continue
            marked = MARKER.search(block.before)
            marker = marked["marker"] if marked else ""
            continued = marker == "continued"
            if continued and previous is None:
                raise AssertionError(f"{page}: a continued block with no block before it")
            prints = after is not None and after.info == "text" and after.before == "\nprints\n\n"
            previous = Snippet(
                page=str(page.relative_to(DOCS)),
                line=block.line,
                code=f"{previous.code}\n{block.code}" if continued and previous else block.code,
                fragment=marker.startswith("fragment"),
                continued=continued,
                output=after.code if prints and after else None,
            )
            found.append(previous)
    return found


ALL = snippets()


def offline_environment(home: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.endswith("_API_KEY") and not name.startswith("TETHER_")
    }
    env["HOME"] = str(home)
    env["TETHER_HOME"] = str(home / "tether")
    return env


def run_offline(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in an empty ``work`` directory with a ``home`` of its own, both new."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    return subprocess.run(
        argv,
        cwd=work,
        env=offline_environment(home),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


def test_the_docs_have_python_snippets_and_few_fragments():
    assert len(ALL) >= 10
    fragments = [s.id for s in ALL if s.fragment]
    assert len(fragments) <= MAX_FRAGMENTS, fragments


def test_snippets_that_say_what_they_print_are_found():
    printing = [s for s in ALL if s.output is not None]
    assert len(printing) >= 3
    assert all(s.output and s.output.strip() for s in printing)
    assert any(s.continued for s in ALL)


@pytest.mark.parametrize("snippet", [s for s in ALL if s.fragment], ids=lambda s: s.id)
def test_a_fragment_still_compiles(snippet: Snippet):
    compile(snippet.code, snippet.id, "exec")


@pytest.mark.parametrize("snippet", [s for s in ALL if not s.fragment], ids=lambda s: s.id)
def test_the_snippet_runs_as_written(snippet: Snippet, tmp_path: Path):
    result = run_offline([sys.executable, "-c", snippet.code], tmp_path)
    assert result.returncode == 0, f"{snippet.id} failed:\n{result.stdout}\n{result.stderr}"
    if snippet.output is not None:
        if snippet.continued:
            assert result.stdout.endswith(snippet.output)
        else:
            assert result.stdout == snippet.output


def console_commands(program: str) -> list[tuple[str, str, str]]:
    """``(page:line, command, output)`` for each ``$ tether PROGRAM ...`` in a console block."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for block in fenced_blocks(page.read_text(encoding="utf-8")):
            if block.info != "console":
                continue
            lines = block.code.splitlines(keepends=True)
            for number, line in enumerate(lines):
                if line.startswith(f"$ tether {program} "):
                    rest = lines[number + 1 :]
                    end = next((i for i, o in enumerate(rest) if o.startswith("$ ")), len(rest))
                    where = f"{page.name}:{block.line + number}"
                    found.append((where, line[2:].strip(), "".join(rest[:end])))
    return found


CHECK_COMMANDS = console_commands("check-command")
TETHER = shutil.which("tether", path=os.path.dirname(sys.executable)) or "tether"
"""The real executable, installed beside this interpreter."""


def test_the_docs_show_check_command():
    assert len(CHECK_COMMANDS) >= 3


@pytest.mark.parametrize(
    ("where", "command", "output"), CHECK_COMMANDS, ids=[c[0] for c in CHECK_COMMANDS]
)
def test_check_command_prints_what_the_docs_show(where, command, output, tmp_path: Path):
    result = run_offline([TETHER, *shlex.split(command)[1:]], tmp_path)
    assert result.stdout + result.stderr == output, where
