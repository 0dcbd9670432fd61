"""What the second review of the third red-team round found, each fixed and shown here: a hole
(``/proc/PID/cwd`` of another process read as the shell's own directory, so ``cat
/proc/2/cwd/etc/shadow`` became ``allow``), a common false deny (``openssl genrsa -out key.pem``:
a key generator writing a new key is not a leak), an empty ``credential.*.helper`` (a reset, not a
program), and readings a respelling got past: options before a runner's subcommand, ``-u`` of
commands that take it as a flag, ``gpg -ao`` / ``zstd -do`` clusters, ``git config --type path``,
``printf -v NAME %s VALUE``, and a version lookup cached past a change of the link it follows."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy


def _policy(workspace: str = "/tmp/ws") -> ShellPolicy:
    return ShellPolicy(PathPolicy(workspace, home="/root"))


def test_another_processs_cwd_is_where_that_process_is(tmp_path: Path):
    sleeper = subprocess.Popen(["sleep", "30"], cwd="/")
    try:
        listed = os.listdir(f"/proc/{sleeper.pid}/cwd/etc")
        assert "passwd" in listed  # /proc/PID/cwd/etc is /etc for a process in /
        policy = _policy(str(tmp_path))
        assert policy.classify(f"cat /proc/{sleeper.pid}/cwd/etc/shadow").decision == "deny"
        verdict = policy.classify(f"cat /proc/{sleeper.pid}/cwd/root/.bash_history")
        assert verdict.decision != "allow", verdict.reasons
    finally:
        sleeper.kill()
        sleeper.wait()
    assert _policy(str(tmp_path)).classify("cat /proc/self/cwd/x.txt").decision != "deny"


@pytest.mark.parametrize(
    "command",
    ["openssl genrsa -out key.pem 2048",
     "openssl req -x509 -newkey rsa:2048 -keyout key.pem -out cert.pem -days 1 -nodes -subj /CN=x"],
)  # fmt: skip
def test_a_key_generator_writing_a_new_key_is_a_persons_call(tmp_path: Path, command: str):
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl")
    subprocess.run(command.split(), cwd=tmp_path, capture_output=True, check=True, timeout=60)
    assert (tmp_path / "key.pem").exists()
    verdict = _policy(str(tmp_path)).classify(command)
    assert verdict.decision == "approve", verdict.reasons
    assert _policy(str(tmp_path)).classify("cp a key.pem").decision == "deny"  # as before


@pytest.mark.parametrize(
    ("command", "decision"),
    [("git -c credential.https://github.com.helper= fetch", "approve"),
     ("git -c credential.helper= fetch", "approve"),
     ("git -c credential.helper='!rm -rf ~' fetch", "deny"),
     ("git -c submodule.x.update= submodule update", "approve"),
     ("uv --directory x run rm -rf ~", "deny"), ("uv --python 3.12 run rm -rf ~", "deny"),
     ("pnpm --filter web exec rm -rf ~", "deny"), ("npm -w pkg exec -- rm -rf ~", "deny"),
     ("git push -u origin main", "approve"), ("git clone -u 'rm -rf ~' x y", "deny"),
     ("git config --type path core.editor 'rm -rf ~'", "deny"),
     ("git config -f x core.editor 'rm -rf ~'", "deny"),
     ("git -c gpg.ssh.defaultKeyCommand='rm -rf ~' commit -S", "deny"),
     ("printf -v GIT_SSH_COMMAND '%s' 'rm -rf ~'", "deny"),
     ("read -r TAR_OPTIONS <<< '-C /root'; export TAR_OPTIONS; tar -xf a.tar", "deny")],
)  # fmt: skip
def test_readings_a_respelling_got_past(command: str, decision: str):
    verdict = _policy().classify(f"cd /tmp/ws && {command}")
    assert verdict.decision == decision, (command, verdict.reasons)


def test_git_status_u_is_a_flag_and_stays_allowed(tmp_path: Path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert _policy(str(tmp_path)).classify("git status -u").decision == "allow"


@pytest.mark.parametrize(
    ("program", "spelling"),
    [("zstd", "-q -do out/o.txt in.zst"), ("zstd", "-qdfo out/o.txt in.zst"),
     ("gpg", "--batch -q --passphrase p --pinentry-mode loopback -do out/o.txt in.gpg")],
)  # fmt: skip
def test_a_cluster_ending_in_o_names_the_output(tmp_path: Path, program: str, spelling: str):
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    (tmp_path / "out").mkdir()
    (tmp_path / "in.txt").write_text("planted\n")
    environment = {**os.environ, "HOME": str(tmp_path)}
    if program == "zstd":
        subprocess.run(["zstd", "-q", "in.txt", "-o", "in.zst"], cwd=tmp_path, check=True)
    else:
        subprocess.run(["gpg", "--batch", "-q", "--symmetric", "--passphrase", "p",
                        "--pinentry-mode", "loopback", "-o", "in.gpg", "in.txt"], cwd=tmp_path,
                       env=environment, check=True)  # fmt: skip
    subprocess.run([program, *spelling.split()], cwd=tmp_path, env=environment,
                   capture_output=True, check=False, timeout=60)  # fmt: skip
    assert (tmp_path / "out" / "o.txt").read_text() == "planted\n"
    planted = f"{program} {spelling.replace('out/o.txt', '~/.bashrc')}"
    assert _policy(str(tmp_path)).classify(planted).decision == "deny", planted


def test_printf_v_sets_the_value_its_format_makes(tmp_path: Path):
    shown = subprocess.run(["bash", "-c", "printf -v X '%s' 'rm -rf ~'; echo \"$X\""],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert shown.stdout.strip() == "rm -rf ~"


def test_a_version_lookup_follows_the_link_as_it_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    link = bin_dir / "python3"
    link.symlink_to("/usr/bin/python3")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    policy = ShellPolicy(PathPolicy(str(tmp_path)))
    assert policy.classify("python3 --version").decision == "allow"
    evil = tmp_path / "evil"
    evil.write_text("#!/bin/sh\necho EVIL\n")
    evil.chmod(0o755)
    link.unlink()
    link.symlink_to(evil)
    assert policy.classify("python3 --version").decision != "allow"
