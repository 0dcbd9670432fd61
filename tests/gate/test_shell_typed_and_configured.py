"""Commands that reach a shell by being typed or configured, found by a red team: ``tmux
send-keys 'CMD' Enter`` types CMD into a pane's shell, and ``ssh -F /dev/stdin HOST <<<
'ProxyCommand CMD'`` runs CMD here. Each was ``approve`` where ``tmux new -d CMD`` and ``ssh -o
ProxyCommand=CMD HOST`` are denied. Each spelling runs for real first (``touch`` of a file),
then the spelling with ``rm -rf ~`` must be denied."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision, run_in
else:
    from real_runs import decision, run_in

_TMUX = [
    "tmux -L {socket} new -d -x 80 -y 10 \\; send-keys '{cmd}' Enter",
    "tmux -L {socket} new -d -x 80 -y 10 \\; send-keys -t 0 {first} ' {rest}' C-m",
    "tmux -L {socket} new -d -x 80 -y 10 \\; send -l '{cmd}' \\; send Enter",
]
_SSH = [
    "ssh -F /dev/stdin -o StrictHostKeyChecking=no host true <<< 'ProxyCommand {cmd}'",
    "echo 'ProxyCommand {cmd}' | ssh -F /dev/stdin -o StrictHostKeyChecking=no host true",
    "ssh -F /dev/fd/0 -o StrictHostKeyChecking=no host true <<< 'ProxyCommand={cmd}'",
]


def _appears(path: Path, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.exists()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize("spelling", _TMUX)
def test_keys_tmux_types_into_a_shell_are_judged(tmp_path: Path, spelling: str):
    socket = f"tether-test-{os.getpid()}-{tmp_path.name}"  # one a worker and test
    ran = tmp_path / "ran"
    try:
        first, _, rest = f"touch {ran}".partition(" ")
        run_in(tmp_path, spelling.format(socket=socket, cmd=f"touch {ran}", first=first, rest=rest))
        assert _appears(ran), spelling
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
    command = spelling.format(socket="s", cmd="rm -rf ~", first="rm", rest="-rf ~")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs ssh")
@pytest.mark.parametrize("spelling", _SSH)
def test_an_ssh_config_the_script_supplies_is_read_as_its_options(tmp_path: Path, spelling: str):
    ran = tmp_path / "ran"
    run_in(tmp_path, spelling.format(cmd=f"touch {ran}"))
    assert ran.exists(), spelling
    command = spelling.format(cmd="rm -rf ~")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["tmux send-keys -t 0 'make test' Enter", "tmux ls", "tmux new -d -s work",
     "ssh -F /dev/stdin host uptime <<< 'User bob'", "ssh -F ssh_config host uptime",
     "ssh -F <(echo 'ProxyCommand=rm -rf ~') host", "echo 'ProxyCommand rm -rf ~' | ssh -F - h"],
)  # fmt: skip
def test_ordinary_tmux_and_ssh_stay_a_persons_call(tmp_path: Path, command: str):
    assert decision(command, tmp_path) == "approve", command
