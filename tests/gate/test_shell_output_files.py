"""Files that filters and converters write where their command line says, and the commands
``split --filter`` and sqlite3's dot-commands run, checked against the real programs spelling by
spelling. ``uniq evil.txt ~/.bashrc``, ``xxd -r x ~/.bashrc``, ``openssl base64 -d -in x -out
~/.bashrc``, ``git clone URL /root/x``, ``split --filter='rm -rf ~' f`` and ``sqlite3 x.db '.shell
rm -rf ~'`` were ``approve`` (unasked in yolo mode) where the plain spellings are denied."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._output_files import output_files

_GPG = "--batch -q --symmetric --passphrase p --pinentry-mode loopback"
_SPELLINGS = {
    "uniq": ["in.txt out/o.txt", "-c in.txt out/o.txt", "in.txt out/o.txt -c",
             "-f 1 in.txt out/o.txt", "-f1 in.txt out/o.txt", "--skip-fields 1 in.txt out/o.txt",
             "--skip-f=1 in.txt out/o.txt",
             "-- in.txt out/o.txt", "-w 2 in.txt out/o.txt", "-s1 -i in.txt out/o.txt",
             "--all-repeated=none in.txt out/o.txt", "-2 in.txt out/o.txt"],
    "shuf": ["-o out/o.txt in.txt", "-oout/o.txt in.txt", "--output=out/o.txt in.txt",
             "--out out/o.txt in.txt", "in.txt -o out/o.txt", "-n 1 -o out/o.txt in.txt",
             "-e a b -o out/o.txt", "-ro out/o.txt -n 2 in.txt", "-zo out/o.txt in.txt"],
    "iconv": ["-f utf-8 -t ascii -o out/o.txt in.txt", "-o out/o.txt in.txt",
              "--output=out/o.txt in.txt", "--out out/o.txt in.txt", "in.txt -o out/o.txt",
              "-c -oout/o.txt in.txt", "-f utf-8 in.txt --output out/o.txt"],
    "csplit": ["-f out/o in.txt 2", "-fout/o in.txt 2", "--prefix=out/o in.txt 2",
               "--pre out/o in.txt 2", "in.txt 2 -f out/o", "-s -f out/o in.txt 2",
               "-sf out/o in.txt 2"],
    "split": ["-l 1 in.txt out/p", "-l1 in.txt out/p", "in.txt out/p", "-b 1 in.txt out/p",
              "--lines=1 in.txt out/p", "in.txt out/p -l 1", "-d in.txt out/p",
              "--additional-suffix=.txt in.txt out/p", "-a 3 -- in.txt out/p"],
    "xxd": ["in.txt out/o.txt", "-c8 in.txt out/o.txt", "-c 8 in.txt out/o.txt",
            "-cols 8 in.txt out/o.txt", "-p in.txt out/o.txt", "-g 2 in.txt out/o.txt",
            "-- in.txt out/o.txt", "-s 1 in.txt out/o.txt", "-l 2 in.txt out/o.txt",
            "-len 2 in.txt out/o.txt", "-r -p hex.txt out/o.txt", "-u -i in.txt out/o.txt",
            "--cols 8 in.txt out/o.txt"],
    "script": ["-q -c true out/t", "-qc true out/t", "--quiet --command true out/t",
               "-q --command=true out/t", "-q -c true -O out/t", "-q -c true --log-out out/t",
               "-q -c true -B out/t", "-qa -c true out/t", "-q -c true -I out/t"],
    "openssl": ["base64 -in in.txt -out out/o.txt", "base64 -in in.txt -out=out/o.txt",
                "base64 -in in.txt --out out/o.txt", "enc -base64 -in in.txt -out out/o.txt",
                "base64 -out out/o.txt -in in.txt"],
    "patch": ["-o out/o.txt orig.txt fix.diff", "-oout/o.txt orig.txt fix.diff",
              "--output=out/o.txt orig.txt fix.diff", "-i fix.diff -o out/o.txt orig.txt",
              "--out out/o.txt -i fix.diff orig.txt", "-s -o out/o.txt orig.txt fix.diff"],
    "git": ["clone -q src.git out/c", "clone src.git out/c",
            "clone --depth 1 file://{ws}/src.git out/c",
            "-C out clone -q ../src.git", "-C out clone -q ../src.git c", "init -q out/c",
            "init out/c", "-C out init -q c", "clone -q --origin up src.git out/c",
            "clone -q -o up src.git out/c", "clone -q -- src.git out/c"],
    "zstd": ["-q in.txt -o out/o.zst", "-q -o out/o.zst in.txt", "-q in.txt --output-dir-flat out",
             "-q --output-dir-flat=out in.txt", "-q -f -o out/o.zst -- in.txt"],
    "lz4": ["-q in.txt out/o.lz4", "-q -f in.txt out/o.lz4", "-q -9 in.txt out/o.lz4"],
    "link": ["in.txt out/o.txt"],
    "lwp-download": ["-s file://{ws}/in.txt out/o.txt"],
    "gpg": [f"{_GPG} -o out/o.gpg in.txt", f"{_GPG} -oout/o.gpg in.txt",
            f"{_GPG} --output out/o.gpg in.txt", f"{_GPG} --output=out/o.gpg in.txt",
            f"{_GPG} --outp out/o.gpg in.txt"],
    "sqlite3": [":memory: '.once out/o.txt' 'select 1'", ":memory: '.output out/o.txt' 'select 1'",
                ":memory: '.save out/o.db'", ":memory: '.backup out/o.db'"],
}  # fmt: skip
_CASES = [(name, spelling) for name, spellings in _SPELLINGS.items() for spelling in spellings]


_NEEDS = {"openssl": "openssl", "xxd": "xxd", "patch": "patch", "script": "script", "git": "git"}
_GIT_ELSEWHERE = [
    "git config -f /root/.bashrc x.y z", "git config --file=/root/.bashrc x.y z",
    "git --work-tree=/root checkout HEAD~1 -- .bashrc", "git --work-tree /root reset --hard",
    "git apply --unsafe-paths --directory=/root p.diff",
    "cmake -E copy payload /root/.bashrc", "cmake -E rm -rf /root", "cmake -E cat ~/.ssh/id_rsa",
    "cmake -E create_hardlink payload /root/.bashrc",
]  # fmt: skip


@pytest.mark.parametrize("command", _GIT_ELSEWHERE)
def test_git_and_cmake_writing_elsewhere_are_denied(command: str):
    """git's --work-tree, config -f and apply --unsafe-paths write where their options say; a
    cmake -E command does what the coreutils program it mirrors does."""
    verdict = ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(f"cd /tmp/ws && {command}")
    assert verdict.decision == "deny", (command, verdict.reasons)


def test_cmake_copy_writes_where_cp_would(tmp_path: Path):
    if shutil.which("cmake") is None:
        pytest.skip("needs cmake")
    (tmp_path / "in.txt").write_text("x\n")
    (tmp_path / "out").mkdir()
    subprocess.run(["cmake", "-E", "copy", "in.txt", "out/o.txt"], cwd=tmp_path, check=True)
    assert (tmp_path / "out" / "o.txt").read_text() == "x\n"
    verdict = ShellPolicy(PathPolicy(str(tmp_path), home="/root")).classify(
        "cmake -E copy in.txt ~/.bashrc"
    )
    assert verdict.decision == "deny"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "in.txt").write_text("alpha\nalpha\nbeta\ngamma\n")
    (tmp_path / "hex.txt").write_text("616263\n")
    (tmp_path / "orig.txt").write_text("one\ntwo\n")
    (tmp_path / "new.txt").write_text("one\nthree\n")
    diff = subprocess.run(["diff", "-u", "orig.txt", "new.txt"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)  # fmt: skip
    (tmp_path / "fix.diff").write_text(diff.stdout)
    (tmp_path / "out").mkdir()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", "--bare", "src.git"], cwd=tmp_path, check=True)
    return tmp_path


@pytest.mark.parametrize(("name", "spelling"), _CASES)
def test_every_spelling_that_writes_into_out_is_read_as_writing_there(
    workspace: Path, name: str, spelling: str
):
    if shutil.which(_NEEDS.get(name, name)) is None:
        pytest.skip(f"needs {name}")
    argv = shlex.split(spelling.format(ws=workspace))
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(workspace), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run([name, *argv], cwd=workspace, env=environment, capture_output=True,
                   stdin=subprocess.DEVNULL, check=False, timeout=30)  # fmt: skip
    assert any((workspace / "out").iterdir()), f"{name} {spelling} writes into out/"
    written = output_files(name, argv)
    assert any(w is not None and (w == "out" or w.startswith("out/")) for w in written) or (
        argv[:2] == ["-C", "out"] and written and written[0] is not None
    ), written


@pytest.mark.parametrize(("name", "spelling"), _CASES)
def test_the_same_spellings_outside_the_workspace_are_denied(name: str, spelling: str):
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    moved = (
        spelling.format(ws="/tmp/ws")
        .replace("out/", "/root/.config/")
        .replace("-C out", "-C /root/.config")
        .replace("-flat out", "-flat /root/.config")
        .replace("-flat=out", "-flat=/root/.config")
    )
    command = f"cd /tmp/ws && {name} {moved}"
    verdict = policy.classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)


@pytest.mark.parametrize(
    "command",
    ["uniq evil.txt ~/.bashrc", "xxd -r evil.hex ~/.bashrc", "shuf -o ~/.profile -e x",
     "iconv -f utf-8 -t utf-8 evil.txt -o ~/.bashrc", "openssl base64 -d -in x -out ~/.bashrc",
     "script -q -c true ~/.bashrc", "patch -o ~/.zshrc a x.diff", "patch ~/.bashrc x.diff"],
)  # fmt: skip
def test_planting_a_startup_file_is_denied_without_a_workspace(command: str):
    assert ShellPolicy().classify(command).decision == "deny", command


def test_reading_and_dumping_write_nothing():
    assert output_files("uniq", ["in.txt"]) == []
    assert output_files("xxd", ["in.txt"]) == []
    assert output_files("xxd", ["-c", "8", "in.txt"]) == []
    assert output_files("shuf", ["in.txt"]) == []
    assert output_files("openssl", ["base64", "-in", "in.txt"]) == []
    assert output_files("split", ["--filter=gzip > $FILE.gz", "in.txt"]) == []
    assert output_files("patch", ["--dry-run", "-o", "x", "a", "b.diff"]) == []
    assert output_files("git", ["status"]) == []


def test_split_and_csplit_name_their_pieces_from_the_prefix():
    assert output_files("split", ["in.txt"]) == ["xaa"]
    assert output_files("csplit", ["in.txt", "2"]) == ["xx00"]
    assert output_files("git", ["clone", "https://h/org/repo.git"]) == ["repo"]
    assert output_files("git", ["clone", "git@h:org/repo.git/"]) == ["repo"]


def _ran(workspace: Path, argv: list[str]) -> bool:
    subprocess.run(argv, cwd=workspace, capture_output=True, stdin=subprocess.DEVNULL,
                   check=False, timeout=30)  # fmt: skip
    return (workspace / "ran").exists()


@pytest.mark.parametrize(
    "spelling",
    ["--filter='touch ran' in.txt", "--filter 'touch ran' in.txt", "--filt='touch ran' in.txt",
     "--f 'touch ran' in.txt", "-n 2 --filter='touch ran' in.txt", "in.txt --filter='touch ran'"],
)  # fmt: skip
def test_split_filter_runs_a_shell_command_and_it_is_judged(workspace: Path, spelling: str):
    assert _ran(workspace, ["split", *shlex.split(spelling)]), spelling
    policy = ShellPolicy(PathPolicy(str(workspace), home="/root"))
    command = f"split {spelling.replace('touch ran', 'rm -rf ~')}"
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize(
    "spelling",
    ["x.db '.shell touch ran'", "x.db '.system touch ran'", "x.db '.sh touch ran'",
     "-cmd '.shell touch ran' x.db 'select 1'", "x.db 'select 1;' '.once |touch ran' 'select 2;'",
     "x.db 'select 1' '.shell touch ran'"],
)  # fmt: skip
def test_sqlite3_dot_commands_run_shell_commands_and_they_are_judged(
    workspace: Path, spelling: str
):
    if shutil.which("sqlite3") is None:
        pytest.skip("needs sqlite3")
    assert _ran(workspace, ["bash", "-c", f"sqlite3 {spelling}"]), spelling
    policy = ShellPolicy(PathPolicy(str(workspace), home="/root"))
    command = f"sqlite3 {spelling.replace('touch ran', 'rm -rf ~')}"
    assert policy.classify(command).decision == "deny", command
