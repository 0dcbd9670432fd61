"""sed's command line read as GNU sed reads it: one reader for the read-only proof, the files sed
changes and the scripts it runs. Checked against the real GNU sed, spelling by spelling: a
script the reader passed over is one the policy never judged (``-se 'w ~/.bashrc'`` once
slipped past the persistence rule that catches ``-e 'w ~/.bashrc'``)."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._sed import sed_effects
from tether.gate._shell._sed_arguments import read_sed_arguments, sed_printed_files

GNU_SED = shutil.which("sed")


def _is_gnu(sed: str | None) -> bool:
    if sed is None:
        return False
    version = subprocess.run([sed, "--version"], capture_output=True, text=True, check=False)
    return "GNU" in version.stdout


needs_gnu_sed = pytest.mark.skipif(not _is_gnu(GNU_SED), reason="needs GNU sed")
NOT_READ_ONLY = "sed: only `sed -n` with print commands (5p, 1,20p, /re/p) is read-only"


@pytest.mark.parametrize(
    ("words", "scripts", "files"),
    [
        ("-n 5p f", ["5p"], ["f"]),
        ("-ne 5p f", ["5p"], ["f"]),
        ("-ne5p f", ["5p"], ["f"]),
        ("-n -e 1p -se 9p f", ["1p", "9p"], ["f"]),
        ("--expr=5p -n f", ["5p"], ["f"]),
        ("--e 5p f", ["5p"], ["f"]),
        ("-n 5p -- -e", ["5p"], ["-e"]),
        ("-n 5p f -s", ["5p"], ["f"]),
        ("-nf s.sed f", [], ["f"]),
        ("-n - f", ["-"], ["f"]),
    ],
)
def test_scripts_and_files_as_sed_reads_them(words: str, scripts: list[str], files: list[str]):
    read = read_sed_arguments(words.split())
    assert read.problem is None
    assert [s for s in read.scripts if s in scripts] == scripts
    assert set(files) <= set(read.files)


def test_options_after_an_operand_are_read_both_ways():
    """getopt permutes; with POSIXLY_CORRECT the first operand ends the options. Either way."""
    read = read_sed_arguments(["-n", "1p", "-e", "/root/.ssh/id_rsa"])
    assert "/root/.ssh/id_rsa" in read.scripts  # as sed reads it by default
    assert "/root/.ssh/id_rsa" in read.files  # as it reads it with POSIXLY_CORRECT
    assert "1p" in read.scripts


def test_in_place_takes_only_an_attached_suffix():
    assert read_sed_arguments(["-in", "5p", "f"]).edited == ("f",)
    assert not read_sed_arguments(["-in", "5p", "f"]).quiet  # -in is -i with suffix "n"
    assert read_sed_arguments(["-ni", "5p", "f"]).quiet
    assert read_sed_arguments(["--in-pl=.b", "s/a/b/", "f", "g"]).edited == ("f", "g")
    assert read_sed_arguments(["s/a/b/", "-i", "f"]).edited == ("f",)


@pytest.mark.parametrize(
    ("words", "problem"),
    [
        ("--s 5p f", "--s: an ambiguous option"),
        ("-x 5p f", "-x: not an option"),
        ("--quiet=1 5p f", "--quiet: takes no value"),
        ("-n -e", "-e: its value is missing"),
        ("--expression", "--expression: its value is missing"),
    ],
)
def test_what_sed_would_refuse_is_a_problem_not_a_guess(words: str, problem: str):
    assert read_sed_arguments(words.split()).problem == problem


def test_a_word_that_expands_at_run_time_may_be_an_option():
    assert read_sed_arguments(["-n", "5p", None]).problem is not None
    assert read_sed_arguments(["-n", "5p", "--", None]).problem is None


@pytest.mark.parametrize(
    ("words", "answer"),
    [
        ("-n 5p f", ("f",)),
        ("-ne 1,20p f g", ("f", "g")),
        ("--quiet --expression=/re/p f", ("f",)),
        ("5p f", NOT_READ_ONLY),
        ("-ni 5p f", NOT_READ_ONLY),
        ("-n -f s.sed f", NOT_READ_ONLY),
        (
            "-n 5p -e w.out f",
            "sed: only `sed -n` with print commands (5p, 1,20p, /re/p) is read-only",
        ),
    ],
)
def test_the_read_only_proof(words: str, answer: tuple[str, ...] | str):
    assert sed_printed_files(words.split()) == answer


# --- against the real sed -------------------------------------------------------------------

_OPTIONS = ["", "-n", "-s", "-ns", "--quiet", "--qui", "--sep", "-E", "--posix", "-u"]
_SPELLINGS = [
    "-e {s}", "-e{s}", "--expression={s}", "--expr={s}", "--e {s}", "--expression {s}",
    "-se {s}", "-nse {s}", "-ne {s}", "-Ee {s}", "-e 1p -se {s}", "-e 1p --ex {s}",
]  # fmt: skip
_PLACES = ["before", "after", "after --"]


def _spelled() -> list[tuple[str, list[str]]]:
    """(name, argv after ``sed``) with the script ``w written.txt`` in every spelling."""
    cases = []
    for option, spelling, place in itertools.product(_OPTIONS, _SPELLINGS, _PLACES):
        script = spelling.format(s="WSCRIPT").split()
        script = ["w written.txt" if word.endswith("WSCRIPT") and word == "WSCRIPT" else
                  word.replace("WSCRIPT", "w written.txt") for word in script]  # fmt: skip
        front = [option] if option else []
        if place == "before":
            argv = [*front, *script, "input.txt"]
        elif place == "after":
            argv = [*front, "input.txt", *script]
        else:
            argv = [*front, "input.txt", "--", *script]
        cases.append((f"{option or '-'} {spelling} {place}", argv))
    return cases


def _writes(words: list[str]) -> bool:
    read = read_sed_arguments(words)
    return any("written.txt" in sed_effects(s or "").writes for s in read.scripts)


@needs_gnu_sed
@pytest.mark.parametrize("posixly_correct", [False, True], ids=["getopt", "POSIXLY_CORRECT"])
def test_every_spelling_that_makes_real_sed_write_is_read_as_writing(
    tmp_path: Path, posixly_correct: bool
):
    assert GNU_SED is not None
    env = {k: v for k, v in os.environ.items() if k != "POSIXLY_CORRECT"}
    if posixly_correct:
        env["POSIXLY_CORRECT"] = "1"
    missed, wrote = [], 0
    cases = _spelled()
    for name, argv in cases:
        folder = tmp_path / f"case{wrote}-{len(missed)}-{abs(hash(name))}"
        folder.mkdir()
        (folder / "input.txt").write_text("one\ntwo\n")
        subprocess.run([GNU_SED, *argv], cwd=folder, env=env, capture_output=True, check=False)
        if (folder / "written.txt").exists():
            wrote += 1
            if not _writes(argv):
                missed.append(name)
    assert wrote > len(cases) // 4, "many of the spellings are ones sed accepts and writes with"
    assert missed == []


@needs_gnu_sed
@pytest.mark.parametrize(
    "spelling",
    ["-i", "-i.bak", "--in-place", "--in-pl=.b", "-si", "-in", "-Ei", "-i -n", "-ni"],
)
@pytest.mark.parametrize("place", ["before", "after"])
def test_every_in_place_spelling_that_changes_the_file_is_read_as_changing_it(
    tmp_path: Path, spelling: str, place: str
):
    assert GNU_SED is not None
    (tmp_path / "input.txt").write_text("one\n")
    options = spelling.split()
    argv = [*options, "s/one/two/", "input.txt"]
    if place == "after":
        argv = ["s/one/two/", "input.txt", *options]
    subprocess.run([GNU_SED, *argv], cwd=tmp_path, capture_output=True, check=False)
    changed = (tmp_path / "input.txt").read_text() != "one\n"
    assert changed, "each spelling is one GNU sed edits in place with"
    assert "input.txt" in read_sed_arguments(argv).edited


@pytest.mark.parametrize(
    "command",
    [
        "sed -i -e s/a/b/ -se 'w /root/.bashrc' notes.txt",
        "sed -i -e s/a/b/ --e 'w /root/.bashrc' notes.txt",
        "sed -i -e s/a/b/ --expr='w /root/.bashrc' notes.txt",
        "sed -n -e 5p -se 'r /root/.ssh/id_rsa' notes.txt",
        "sed -n -e 5p -nse '1r /root/.ssh/id_rsa' notes.txt",
        "sed -n 1p -e /root/.ssh/id_rsa",
    ],
)
def test_the_deny_rules_see_a_script_in_any_spelling(tmp_path: Path, command: str):
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(command).decision == "deny"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("sed -i -se 'e touch pwned' notes.txt", "runs commands or reads and writes files"),
        ("sed -n -f script.sed notes.txt", "runs a sed script from a file"),
        ('sed -i "$SCRIPT" notes.txt', "cannot be read as sed reads them"),
        ("sed --s 5p notes.txt", "--s: an ambiguous option"),
    ],
)
def test_what_a_script_may_run_unseen_is_a_persons_call(tmp_path: Path, command: str, reason: str):
    verdict = ShellPolicy(PathPolicy(str(tmp_path), home="/root")).classify(command)
    assert verdict.decision == "approve"
    assert reason in " ".join(verdict.reasons)


@pytest.mark.parametrize("command", ["sed -ne 5p notes.txt", "sed -n 5p -- notes.txt"])
def test_read_only_spellings_the_old_readers_refused_are_allowed(tmp_path: Path, command: str):
    (tmp_path / "notes.txt").write_text("x\n")
    verdict = ShellPolicy(PathPolicy(str(tmp_path), home="/root")).classify(command)
    assert verdict.decision == "allow", verdict.reasons
