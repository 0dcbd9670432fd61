"""What one command hands the next, found by a red team: the paths ``find`` prints to ``xargs``
(``find ~ -maxdepth 0 | xargs rm -rf``), a script the script itself wrote (``printf 'rm -rf ~'
> x.sh; . ./x.sh``), an array run as a command (``a=(rm -rf ~); "${a[@]}"``) and ``BASH_ENV``
given as a process substitution. Each was ``approve`` where the plain spelling is denied. Each
spelling runs for real first (``touch ran`` or a fake home's files listed), then the harmful
spelling must be denied."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision, run_in
else:
    from real_runs import decision, run_in

_RUNS = [
    "printf '{cmd}' > x.sh; . ./x.sh", "echo '{cmd}' > x.sh; bash x.sh",
    "echo 'true' > x.sh; echo '{cmd}' >> x.sh; source x.sh",
    "cat > x.sh <<'EOF'\n{cmd}\nEOF\nsh x.sh",
    "a=({cmd}); \"${{a[@]}}\"", "declare -a a=({cmd}); ${{a[@]}}",
    "read -a a <<< '{cmd}'; \"${{a[@]}}\"", "BASH_ENV=<(echo '{cmd}') bash -c :",
]  # fmt: skip
_FOUND = [
    ("find {home} -maxdepth 0 | xargs {cmd}", "{cmd} {home}"),
    ("find {home}/.ssh -type f | xargs {cmd}", "{cmd} {home}/.ssh/id_rsa"),
    ("find {home} -name 'id_r*' | xargs {cmd}", "{cmd} {home}/.ssh/id_rsa"),
    ("find . -name .env -print0 | xargs -0 {cmd}", "{cmd} ./.env"),
    ("realpath {home} | xargs {cmd}", "{cmd} {home}"),
    ("readlink -f {home}/.ssh/id_rsa | xargs {cmd}", "{cmd} {home}/.ssh/id_rsa"),
    ("ls -d {home} | xargs {cmd}", "{cmd} {home}"),
]


@pytest.mark.parametrize("spelling", _RUNS)
def test_code_carried_to_a_later_command_is_judged(tmp_path: Path, spelling: str):
    run_in(tmp_path, spelling.format(cmd="touch ran"))
    assert (tmp_path / "ran").exists(), spelling
    command = spelling.format(cmd="rm -rf ~")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.parametrize(("spelling", "plain"), _FOUND)
def test_paths_find_prints_are_judged_as_the_arguments_of_xargs(
    tmp_path: Path, spelling: str, plain: str
):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    workspace.mkdir()
    (workspace / ".env").write_text("TOKEN=1\n")
    command = spelling.format(home=home, cmd="cat")
    done = subprocess.run(["bash", "-c", command.replace("xargs -0 cat", "xargs -0 echo")
                           .replace("xargs cat", "xargs echo")], cwd=workspace,
                          env={**os.environ, "HOME": str(home)}, capture_output=True,
                          text=True, check=True, timeout=30)  # fmt: skip
    assert plain.format(home=home, cmd="cat").split()[-1] in done.stdout, done.stdout
    for cmd in ("cat", "rm -rf"):
        command = spelling.format(home=home, cmd=cmd)
        plain_command = plain.format(home=home, cmd=cmd)
        if decision(plain_command, workspace, home=str(home)) != "deny":
            continue  # rm -rf of one file in the home: a person's call either way
        assert decision(command, workspace, home=str(home)) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["echo 'ls' > x.sh; bash x.sh", "echo 'rm -rf ~' > x.sh; bash y.sh",
     "a=(ls -la); \"${a[@]}\"", "find . -name '*.py' | xargs grep foo",
     "find src -name '*.pyc' | xargs rm -f", "BASH_ENV=<(echo 'set -e') bash -c :"],
)  # fmt: skip
def test_harmless_carried_values_stay_a_persons_call(tmp_path: Path, command: str):
    assert decision(command, tmp_path) == "approve", command
