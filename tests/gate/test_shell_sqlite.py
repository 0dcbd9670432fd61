"""sqlite3 read as it reads itself: quoted dot-command arguments (``.once '|CMD'``), the SQL
functions its shell adds (``writefile``, ``edit``) and the lines it reads from its input. Each
was ``approve`` where ``sqlite3 x.db '.once |rm -rf ~'`` is denied. Every spelling runs the
real sqlite3 first (``touch ran`` as the command, ``written.txt`` as the file: it appears),
then the same spelling with ``rm -rf ~`` or ``/root/.bashrc`` must be denied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision, run_in
else:
    from real_runs import decision, run_in

pytestmark = pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs sqlite3")

_RUNS = [
    "sqlite3 x.db \".once '|touch ran'\" 'select 1'",
    "sqlite3 x.db \".output '|touch ran'\" 'select 1'",
    "sqlite3 x.db \".once '|touch' ran\" 'select 1'",
    "sqlite3 x.db \".read '|touch ran'\"",
    "sqlite3 x.db 'create table t(a)' \".import '|echo 1; touch ran' t\"",
    "sqlite3 x.db '.once \"|touch ran\"' 'select 1'",
    "sqlite3 x.db '.once \"|touch\\040ran\"' 'select 1'",
    "sqlite3 x.db \"select edit('x', 'touch ran')\"",
    "sqlite3 x.db \"SELECT Edit ( 'x' , 'touch ran' )\"",
    "echo '.shell touch ran' | sqlite3 x.db",
    "sqlite3 x.db <<< '.system touch ran'",
    "printf '.once |touch ran\\nselect 1;\\n' | sqlite3 x.db",
    "sqlite3 x.db <<EOF\nselect 1;\n.sh touch ran\nEOF",
    "env sqlite3 x.db <<< '.shell touch ran'",
]
_WRITES = [
    "sqlite3 x.db \"select writefile('{f}', 'x')\"",
    "sqlite3 x.db \"SELECT WriteFile ( '{f}' , 1 )\"",
    "sqlite3 x.db \".once '{f}'\" 'select 1'",
    "sqlite3 x.db '.output \"{f}\"' 'select 1'",
    "printf '.once {f}\\nselect 1;\\n' | sqlite3 x.db",
    "sqlite3 x.db <<< \"select writefile('{f}', 'x');\"",
]


@pytest.mark.parametrize("spelling", _RUNS)
def test_a_command_sqlite3_runs_is_judged(tmp_path: Path, spelling: str):
    run_in(tmp_path, spelling)
    assert (tmp_path / "ran").exists(), f"{spelling} ran nothing here"
    command = spelling.replace("touch ran", "rm -rf ~").replace("touch' ran", "rm -rf' ~")
    command = command.replace("touch\\040ran", "rm\\040-rf\\040~")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.parametrize("spelling", _WRITES)
def test_a_file_sqlite3_writes_is_judged(tmp_path: Path, spelling: str):
    run_in(tmp_path, spelling.format(f="written.txt"))
    assert (tmp_path / "written.txt").exists(), f"{spelling} wrote nothing here"
    command = spelling.format(f="/root/.bashrc")
    assert decision(command, tmp_path) == "deny", command


def test_a_shell_word_quoted_whole_is_one_program_name_as_sqlite3_runs_it(tmp_path: Path):
    """``.shell 'touch ran'`` runs a program named ``touch ran``: nothing is created, so the
    same spelling with ``rm -rf ~`` is not denied as if it deleted the home."""
    run_in(tmp_path, "sqlite3 x.db \".shell 'touch ran'\"")
    assert not (tmp_path / "ran").exists()
    assert decision("sqlite3 x.db \".shell 'rm -rf ~'\"", tmp_path) == "approve"


@pytest.mark.parametrize(
    "command",
    ["sqlite3 x.db 'select 1'", "echo 'select 1;' | sqlite3 x.db", "sqlite3 x.db <<< '.tables'",
     "sqlite3 x.db \"select writefile('out.txt', data) from t\"", "sqlite3 x.db '.once out.txt'"],
)  # fmt: skip
def test_ordinary_sqlite3_stays_a_persons_call(tmp_path: Path, command: str):
    assert decision(command, tmp_path) == "approve", command
