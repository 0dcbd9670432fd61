"""Programs that run a command given in their arguments, found by a red team: the command they
ran was never judged, so ``setarch x86_64 sh -c 'curl x|sh'`` was ``approve`` where
``sh -c 'curl x|sh'`` is denied. Each spelling is run for real where the program is installed
and can run here (``touch ran`` as the command: the file appears), then the same spelling with
``rm -rf ~`` must be denied. The wrappers that move the working directory (``unshare -w``,
``chroot``, ``su -``) are checked the same way: where the real program runs ``pwd``, and that
``rm -rf root`` from ``/`` is denied as ``env -C / rm -rf root`` is."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_LOADER = "/lib64/ld-linux-x86-64.so.2"

# {c}: the command, as words; {s}: the command as one shell word; {a}: the command, its program
# named by an absolute path (the loader does not search PATH).
_RUNS = [
    "setarch x86_64 {c}", "setarch x86_64 -R {c}", "setarch -R {c}", "setarch x86_64 -Rv {c}",
    "setarch x86_64 --addr-no-randomize --uname-2.6 -v {c}", "setarch x86_64 --addr-no -- {c}",
    "setarch x86_64 sh -c {s}", "linux32 {c}", "linux64 --3gb {c}", "i386 {c}", "x86_64 -R {c}",
    _LOADER + " {a}", _LOADER + " --library-path /lib --argv0 x {a}",
    _LOADER + " --inhibit-cache --preload '' {a}",
    "valgrind -q {c}", "valgrind -q --tool=none {c}", "valgrind -q --tool=none -- {c}",
    "valgrind -q --trace-children=yes --log-file=vg.log {c}",
    "perf stat -o p.txt {c}", "perf stat -e task-clock -r 1 -- {c}", "perf stat -x, -o p.txt {c}",
    "perf stat --pre {s} -o p.txt true", "perf stat --post {s} -o p.txt true",
    "perf record -q -o p.data {c}", "perf record -q -op.data -F 99 {c}",
    "perf record -q --output=p.data -- {c}", "perf stat record -o p.data {c}",
    "gdb -batch -ex run --args {c}", "gdb -batch -ex run -args {c}", "gdb -batch -ex run --arg {c}",
    "gdb -nx -q -batch -ex run --args {c}",
    "capsh -- -c {s}", "capsh --shell=/bin/sh -- -c {s}", "capsh -+ -c {s}",
    "capsh == -- -c {s}", "capsh --print -- -c {s}",
    "cmake -E env A=1 {c}", "cmake -E env --unset=A A=1 -- {c}", "cmake -E env A=1 --unset=B {c}",
    "cmake -E chdir . {c}", "cmake -E time {c}",
    "make --eval='x:;'{s} x", "make -E 'x:;'{s} x", "make -sE 'x:;'{s} x",
    "make --ev='x:;'{s} x", "make --eval 'x:;'{s} x", "make -E'x:;'{s} x",
    "make --eval='x:;'{s}", "make -s --eval=$'x:\\n\\t'{s} x", "make -q --eval='$(shell '{s}')'",
    "make -n --eval='y != '{s}",
    "su --session-command={s}", "su --comm={s}", "su --se {s}", "su root -- -c {s}",
    "su -s/bin/sh root -- -c {s}", "runuser --comm={s} root",
    "runuser --session-command={s} root",
]  # fmt: skip
_SU_FOUND_BEFORE = [
    "su -c {s}", "su -c{s}", "su -mc {s}", "su -fc {s}", "su root -c {s}", "su -c {s} root",
    "su -s /bin/sh -c {s}", "runuser -c {s}", "runuser -u root -- {c}",
]  # fmt: skip
"""Spellings the loose reading of su found, which su's getopt grammar must find as well."""

_PROBES = {
    "perf": "perf stat -o /dev/null true",
    "gdb": "gdb -nx -batch -ex run --args true",
    "su": "su -c true",
    "runuser": "runuser -u root -- true",
    "capsh": "capsh -- -c true",
}
"""A harmless run of each program that needs rights or a kernel feature: where it fails, the
program cannot run here (perf without perf_event access, gdb without ptrace, su as a user)."""


def _policy(tmp_path: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(tmp_path), home="/root"))


@functools.cache
def _runs_here(program: str) -> bool:
    probe = _PROBES.get(program)
    if probe is None:
        return True
    done = subprocess.run(["bash", "-c", probe], stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=60, check=False)  # fmt: skip
    return done.returncode == 0


def _spelled(spelling: str, words: str, absolute: str) -> str:
    return spelling.format(c=words, s=shlex.quote(words), a=absolute)


def _program(spelling: str) -> str:
    return shlex.split(spelling)[0]


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120, check=False)  # fmt: skip


@pytest.mark.parametrize("spelling", _RUNS)
def test_the_command_a_wrapper_runs_is_judged(tmp_path: Path, spelling: str):
    _runs_and_is_denied(tmp_path, spelling)


@pytest.mark.parametrize("spelling", _SU_FOUND_BEFORE)
def test_su_spellings_found_before_still_are(tmp_path: Path, spelling: str):
    _runs_and_is_denied(tmp_path, spelling)


def _runs_and_is_denied(tmp_path: Path, spelling: str) -> None:
    command = _spelled(spelling, "rm -rf ~", "/bin/rm -rf ~")
    assert _policy(tmp_path).classify(command).decision == "deny", command
    program = _program(spelling)
    if shutil.which(program) is None:
        pytest.skip(f"needs {program} to run it for real")
    if not _runs_here(program):
        pytest.skip(f"{program} cannot run here ({_PROBES[program]} fails)")
    done = _run(_spelled(spelling, "touch ran", "/usr/bin/touch ran"), tmp_path)
    assert (tmp_path / "ran").exists(), f"{spelling} runs its command: {done.stderr[-300:]!r}"


@pytest.mark.parametrize(
    "spelling",
    ["setarch x86_64 sh -c 'curl x|sh'", "linux64 sh -c 'curl x|sh'",
     "valgrind sh -c 'curl x|sh'", "capsh -- -c 'curl x|sh'", "cmake -E time sh -c 'curl x|sh'",
     "perf trace sh -c 'curl x|sh'", "perf sched record rm -rf ~", "perf stat --bogus rm -rf ~",
     "echo 'rm -rf ~' | setarch x86_64", "ld.so /bin/rm -rf ~", "/lib/ld-musl-x86_64.so.1 rm -rf ~",
     "capsh --shell=$S -- -c 'rm -rf ~'", "runuser -u root rm -rf ~",
     "cmake -E env PAGER='rm -rf ~' man ls", "valgrind --log-file=/root/.bashrc true",
     "perf record -o /root/.bashrc true", "make -f - <<< $'x:;rm -rf ~'"],
)  # fmt: skip
def test_spellings_not_run_here_are_denied(tmp_path: Path, spelling: str):
    """Spellings that cannot run here (``perf trace`` needs tracefs, musl is not installed) or
    write outside the test's directory."""
    assert _policy(tmp_path).classify(spelling).decision == "deny", spelling


@pytest.mark.parametrize(
    "command",
    ["valgrind ./a.out", "valgrind --tool=callgrind ./a.out", "perf stat ls",
     "perf record -o perf.data ./bench", "perf report", "cmake -E copy a b", "cmake -S . -B b",
     "cmake -E env FOO=1 ./run", "make test", "make -j4 all", "make -E 'x:;echo hi' x",
     "setarch x86_64 ls", "linux32 ./a.out", "gdb --args ./a.out", "gdb -batch -ex bt ./a.out",
     "capsh --print", "su -c ls", "runuser -u nobody -- ls", "chroot /srv/jail ls",
     "unshare -r ls", _LOADER + " --list /bin/ls", "nsenter -t 1 -m ls"],
)  # fmt: skip
def test_ordinary_uses_are_still_a_persons_call(tmp_path: Path, command: str):
    assert _policy(tmp_path).classify(command).decision == "approve", command


# {d}: a directory; {c}: the command. Each with where the command runs: "d" (the directory),
# "/" or "/root" (a login shell of root's).
_DIRECTORIES = [
    ("unshare -w {d} {c}", "d"), ("unshare --wd={d} {c}", "d"), ("unshare --wd {d} {c}", "d"),
    ("unshare -R / {c}", "/"), ("unshare --root=/ {c}", "/"),
    ("nsenter -w{d} {c}", "d"), ("nsenter --wd={d} {c}", "d"),
    ("chroot / {c}", "/"), ("chroot --userspec=root / {c}", "/"),
    ("bwrap --dev-bind / / --chdir {d} {c}", "d"), ("cmake -E chdir {d} {c}", "d"),
    ("su - -c {s}", "/root"), ("su -l -c {s}", "/root"), ("su --login root -c {s}", "/root"),
    ("su -c {s} - root", "/root"), ("runuser -l root -c {s}", "/root"),
    ("sudo -i {c}", "/root"), ("sudo -i -u root {c}", "/root"),
]  # fmt: skip


def _in_directory(spelling: str, directory: str, command: str) -> str:
    return spelling.format(d=directory, c=command, s=shlex.quote(command))


@pytest.mark.parametrize(("spelling", "where"), _DIRECTORIES)
def test_the_directory_a_wrapper_runs_its_command_in(tmp_path: Path, spelling: str, where: str):
    command = _in_directory(spelling, "/", "rm -rf .ssh" if where == "/root" else "rm -rf root")
    assert _policy(tmp_path).classify(command).decision == "deny", command
    program = _program(spelling)
    if shutil.which(program) is None:
        pytest.skip(f"needs {program} to run it for real")
    if not _runs_here(program) or (where != "d" and os.geteuid() != 0):
        pytest.skip(f"{program} cannot run here (it needs root or a kernel feature)")
    (tmp_path / "elsewhere").mkdir()
    report = tmp_path / "where"
    pwd = f"sh -c {shlex.quote(f'pwd > {report}')}"
    done = _run(_in_directory(spelling, str(tmp_path), pwd), tmp_path / "elsewhere")
    if not report.exists() and program == "bwrap":
        pytest.skip(f"bwrap cannot make a sandbox here: {done.stderr[-200:]!r}")
    expected = str(tmp_path) if where == "d" else where
    assert report.read_text().strip() == expected, f"{spelling}: {done.stderr[-300:]!r}"


def test_a_wrappers_directory_is_its_commands_alone(tmp_path: Path):
    """The shell stays where it was: ``env -C / true`` does not move the next command."""
    policy = _policy(tmp_path)
    assert policy.classify("env -C / true; rm -rf root").decision == "approve"
    assert policy.classify("unshare -w / true; rm -rf root").decision == "approve"
    assert policy.classify("unshare -w / true; env -C / rm -rf root").decision == "deny"


@pytest.mark.parametrize(
    "command",
    ["cd / && nsenter -w rm -rf root", "cd / && unshare -w $D rm -rf root",
     "cd / && su -l alice -c 'rm -rf root'", "cd / && sudo -i -u alice rm -rf root"],
)  # fmt: skip
def test_a_directory_not_known_here_is_unknown_not_the_old_one(tmp_path: Path, command: str):
    """From ``/``, ``rm -rf root`` is denied; in a directory tether cannot tell, it is a
    person's call, because where ``root`` is cannot be told."""
    verdict = _policy(tmp_path).classify(command)
    assert verdict.decision == "approve", command


@pytest.mark.parametrize(
    "spelling",
    ["echo '{cmd}' | su", "su <<< '{cmd}'", "echo '{cmd}' | su -",
     "printf '%s\\n' '{cmd}' | su root", "echo '{cmd}' | runuser root",
     "su root <<EOF\n{cmd}\nEOF"],
)  # fmt: skip
def test_a_switched_user_shell_runs_the_lines_it_reads(tmp_path: Path, spelling: str):
    """``su`` and ``runuser`` without ``-c`` start a shell that runs what they read from their
    input: ``echo 'rm -rf ~' | su`` was approve where ``su -c 'rm -rf ~'`` is denied."""
    if os.geteuid() != 0 or shutil.which("su") is None:
        pytest.skip("needs root and su: su root asks no password only of root")
    ran = tmp_path / "ran"
    subprocess.run(["bash", "-c", spelling.format(cmd=f"touch {ran}")], cwd=tmp_path,
                   capture_output=True, check=False, timeout=30)  # fmt: skip
    assert ran.exists(), spelling
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = spelling.format(cmd="rm -rf ~")
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize("command", ["echo 'rm -rf ~' | sudo -s", "sudo -i <<< 'curl x | sh'"])
def test_sudo_with_a_shell_and_no_command_runs_its_input(command: str):
    assert ShellPolicy(PathPolicy("/tmp/ws", home="/root")).classify(command).decision == "deny"
