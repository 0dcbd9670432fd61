"""The program rsync runs as its remote shell (``-e``), and the command strace runs, found in
every spelling the real programs accept: ``rsync -ave CMD`` once hid CMD (a cluster ending in
``e``), and ``strace -o/tmp/trace CMD`` took CMD for the trace file's name (an attached value
whose last letter takes a value)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

_RSYNC = [
    "-e {s}", "-e{s}", "-ave {s}", "-avze {s}", "-aze{s}", "-a -e {s}", "--rsh {s}",
    "--rsh={s}", "-av --rsh {s}", "-vB 1024 -e {s}", "-f '- x' -e {s}", "-e={s}", "-ae={s}",
]  # fmt: skip
_STRACE = [
    "-o trace.txt", "-otrace.txt", "-fo trace.txt", "-s 64 -o trace.txt", "-f", "-ff -o t",
    "-e trace=open", "-etrace=open", "-qq", "--output=trace.txt", "--output trace.txt",
    "--abbrev all", "--columns 40", "--const-print-style raw",
    "--detach-on execve", "--env A=1", "--interruptible 1", "--raw all", "--read 1",
    "--signal all", "--status all", "--string-limit 32", "-c --summary-columns calls",
    "--summary-sort-by calls", "-c --summary-syscall-overhead 1", "--trace open",
    "--trace-path /tmp", "--user root", "--verbose all", "--write 1", "--quiet",
    "--decode-fds", "--strings-in-hex", "--syscall-times", "--absolute-timestamps",
    "--relative-timestamps", "-cw", "-kn", "-iz", "-Z", "-A -o t", "-xx", "-yy", "-tt", "-T",
    "-v", "-C", "--seccomp-bpf -f", "--follow-forks", "--output-separately -o t", "-E A=1",
    "--decode-pids comm",
]  # fmt: skip


def _policy(tmp_path: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(tmp_path), home="/root"))


@pytest.mark.parametrize("spelling", _RSYNC)
def test_every_remote_shell_rsync_runs_is_judged(tmp_path: Path, spelling: str):
    if shutil.which("rsync") is None:
        pytest.skip("needs rsync")
    (tmp_path / "a").write_text("x\n")
    shell = shlex.quote('sh -c "touch pwned" --')
    words = shlex.split(spelling.format(s=shell))
    subprocess.run(["rsync", *words, "a", "host:b"], cwd=tmp_path, capture_output=True,
                   check=False, timeout=30)  # fmt: skip
    assert (tmp_path / "pwned").exists(), f"rsync {spelling} runs its remote shell here"
    command = f"rsync {spelling.format(s=shlex.quote('rm -rf ~'))} a host:b"
    assert _policy(tmp_path).classify(command).decision == "deny", command


@pytest.mark.parametrize("spelling", _STRACE)
def test_every_command_strace_runs_is_judged(tmp_path: Path, spelling: str):
    if shutil.which("strace") is None:
        pytest.skip("needs strace")
    done = subprocess.run(["strace", *shlex.split(spelling), "touch", "pwned"], cwd=tmp_path,
                          capture_output=True, check=False, timeout=30)  # fmt: skip
    if not (tmp_path / "pwned").exists() and b"ptrace" in done.stderr:
        pytest.skip("strace cannot trace here (ptrace is not allowed)")
    assert (tmp_path / "pwned").exists(), f"strace {spelling} runs touch: {done.stderr[-300:]!r}"
    command = f"strace {spelling} rm -rf ~"
    assert _policy(tmp_path).classify(command).decision == "deny", command


_ENVIRONMENTS = [
    ("RSYNC_RSH={s} rsync a host:b", "rsync"),
    ("env RSYNC_RSH={s} rsync a host:b", "rsync"),
    ("env -i PATH=/usr/bin:/bin RSYNC_RSH={s} rsync a host:b", "rsync"),
    ("export RSYNC_RSH={s}; rsync a host:b", "rsync"),
    ("env GIT_SSH_COMMAND={s} git clone -q host:repo cloned", "git"),
    ("GIT_SSH_COMMAND={s} git clone -q host:repo cloned", "git"),
]


@pytest.mark.parametrize(("template", "program"), _ENVIRONMENTS)
def test_a_remote_shell_set_in_the_environment_is_judged(
    tmp_path: Path, template: str, program: str
):
    """The program runs the variable's command as its remote shell, whether the shell sets the
    variable or ``env`` does: ``env RSYNC_RSH='rm -rf ~' rsync …`` was once not judged."""
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    (tmp_path / "a").write_text("x\n")
    script = template.format(s=shlex.quote('sh -c "touch pwned" --'))
    subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, check=False,
                   timeout=30)  # fmt: skip
    assert (tmp_path / "pwned").exists(), f"{script} runs its remote shell here"
    command = template.format(s=shlex.quote("rm -rf ~"))
    assert _policy(tmp_path).classify(command).decision == "deny", command


@pytest.mark.parametrize("spelling", ["-o '|{s}'", "-o '!{s}'", "-o'|{s}'", "--output='|{s}'"])
def test_a_shell_command_strace_pipes_its_trace_to_is_judged(tmp_path: Path, spelling: str):
    if shutil.which("strace") is None:
        pytest.skip("needs strace")
    words = shlex.split(spelling.format(s="touch pwned"))
    done = subprocess.run(["strace", *words, "true"], cwd=tmp_path, capture_output=True,
                          check=False, timeout=30)  # fmt: skip
    if not (tmp_path / "pwned").exists() and b"ptrace" in done.stderr:
        pytest.skip("strace cannot trace here (ptrace is not allowed)")
    assert (tmp_path / "pwned").exists(), f"strace {spelling} runs the command"
    command = f"strace {spelling.format(s='rm -rf ~')} true"
    assert _policy(tmp_path).classify(command).decision == "deny", command


def test_the_trace_file_is_a_file_strace_writes(tmp_path: Path):
    verdict = _policy(tmp_path).classify("strace -o .git/hooks/pre-commit true")
    assert verdict.decision == "deny"


@pytest.mark.parametrize("assignment", ["1=x", "a-b=1", "./a=b", "A=1"])
def test_every_word_with_an_equals_sign_is_an_assignment_to_env(tmp_path: Path, assignment: str):
    """env takes any word holding ``=`` as a variable: the command starts after them all."""
    subprocess.run(["env", assignment, "touch", "pwned"], cwd=tmp_path, check=False, timeout=30)
    assert (tmp_path / "pwned").exists(), f"env {assignment} touch pwned runs touch"
    command = f"env {assignment} rm -rf ~"
    assert _policy(tmp_path).classify(command).decision == "deny", command


def test_env_runs_its_ninth_split_string_and_more_than_64_are_too_complex(tmp_path: Path):
    empties = "-S '' " * 8
    subprocess.run(["bash", "-c", f"env {empties} -S 'touch pwned'"], cwd=tmp_path, check=False,
                   timeout=30)  # fmt: skip
    assert (tmp_path / "pwned").exists(), "env runs what the ninth -S string says"
    assert _policy(tmp_path).classify(f"env {empties} -S 'rm -rf ~'").decision == "deny"
    padded = _policy(tmp_path).classify(f"env {empties * 9} -S 'rm -rf ~'")
    assert padded.decision != "allow" and padded.needs_person


@pytest.mark.parametrize("command", ["sudo -k rm -rf ~", "sudo -k -- rm -rf ~",
                                     "sudo -e ~/.bashrc", "sudoedit ~/.bashrc"])  # fmt: skip
def test_sudo_runs_the_command_after_k_and_edits_the_files_after_e(tmp_path: Path, command: str):
    """sudo's ``-k`` invalidates the cached credentials and, with a command, runs it (sudo's
    ``parse_args.c``); ``-e`` edits the files as root."""
    assert _policy(tmp_path).classify(command).decision == "deny", command


_LTRACE = ["-o trace.txt", "-otrace.txt", "--output=trace.txt", "--output trace.txt",
           "--outp trace.txt", "-So trace.txt", "-f -o trace.txt", "-A 5 -o trace.txt",
           "-Ca 5 -o trace.txt", "-e malloc -o trace.txt", "-n2 --demangle -o trace.txt",
           "--config /dev/null -o trace.txt", "-L -o trace.txt --"]  # fmt: skip


@pytest.mark.parametrize("spelling", _LTRACE)
def test_every_command_ltrace_runs_and_every_file_it_writes_is_judged(
    tmp_path: Path, spelling: str
):
    """ltrace was read by a loose reader that skipped words: ``ltrace -A 5 rm -rf ~`` and its
    ``-o FILE`` (a write, ``ltrace -o ~/.bashrc true``) were not read as ltrace reads them."""
    if shutil.which("ltrace") is None:
        pytest.skip("needs ltrace")
    done = subprocess.run(["ltrace", *shlex.split(spelling), "touch", "pwned"], cwd=tmp_path,
                          capture_output=True, check=False, timeout=60)  # fmt: skip
    if not (tmp_path / "pwned").exists() and b"ptrace" in done.stderr.lower():
        pytest.skip("ltrace cannot trace here (ptrace is not allowed)")
    assert (tmp_path / "pwned").exists(), f"ltrace {spelling} runs touch: {done.stderr[-300:]!r}"
    assert (tmp_path / "trace.txt").exists(), f"ltrace {spelling} writes trace.txt"
    policy = _policy(tmp_path)
    assert policy.classify(f"ltrace {spelling} rm -rf ~").decision == "deny"
    planted = f"ltrace {spelling.replace('trace.txt', '~/.bashrc')} true"
    assert policy.classify(planted).decision == "deny", planted
