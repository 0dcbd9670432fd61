"""What tar and unzip write, checked against the real programs spelling by spelling.
``cp -r x ~`` was denied as a write outside the workspace while ``tar -xf x.tar -C /root`` and
``unzip x.zip -d ~``, which plant the same files in the same place, were ``approve`` (run
unasked in yolo mode): an extraction's directory, and the archive tar creates, were not seen as
written."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._archives import tar_written, unzip_written

_TAR_EXTRACTS = [
    "-xf a.tar -C out", "xf a.tar -C out", "-x -f a.tar --directory=out", "-x -f a.tar --dir out",
    "-xCout -f a.tar", "xfC a.tar out", "-C out -xf a.tar", "-xf a.tar -Cout",
    "--extract --file a.tar --directory out", "--get -f a.tar -C out", "-xvf a.tar -C out src/f",
    "-xf a.tar --one-top-level=out", "-xf a.tar --one-top=out", "--extr --file=a.tar --dir=out",
    "-xf a.tar -C . -C out", "xvfC a.tar out",
]  # fmt: skip
_TAR_ARCHIVES = [
    "-cf out/b.tar src", "cf out/b.tar src", "-c -f out/b.tar src", "--create --file=out/b.tar src",
    "-cfout/b.tar src", "-czf out/b.tgz src", "czvf out/b.tgz src", "--crea --file out/b.tar src",
    "-rf out/b.tar src", "--append -f out/b.tar src", "-c --index-file=out/list -vf b.tar src",
    "-c -g out/snap -f b.tar src", "--create --listed-incremental=out/snap -f b.tar src",
    "-cf b.tar src --index-file out/list -v",
]  # fmt: skip
_TAR_NOTHING = ["-tf a.tar", "tf a.tar", "-xOf a.tar", "-x --to-stdout -f a.tar", "-czf - src"]
_UNZIP_EXTRACTS = [
    "a.zip -d out", "-d out a.zip", "-dout a.zip", "-qd out a.zip", "a.zip -dout",
    "-o -d out a.zip", "a.zip src/f -d out", "-qod out a.zip", "a.zip -x nothing -d out",
    "-d out -o a.zip", "-d out -- a.zip", "a.zip -d out -x nothing", "-jd out a.zip",
    "-P pw -d out a.zip",
]  # fmt: skip
_UNZIP_NOTHING = ["-l a.zip", "-p a.zip", "-t a.zip", "-Z a.zip", "-l a.zip -d out", "-v a.zip"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    if shutil.which("tar") is None or shutil.which("zip") is None or not shutil.which("unzip"):
        pytest.skip("needs tar, zip and unzip")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("planted\n")
    subprocess.run(["tar", "-cf", "a.tar", "src"], cwd=tmp_path, check=True)
    subprocess.run(["zip", "-qr", "a.zip", "src"], cwd=tmp_path, check=True)
    (tmp_path / "out").mkdir()
    return tmp_path


def _run(workspace: Path, program: str, spelling: str) -> None:
    subprocess.run([program, *shlex.split(spelling)], cwd=workspace, capture_output=True,
                   check=False, timeout=30)  # fmt: skip


def _under_out(written: list[str | None]) -> bool:
    return any(w is not None and (w == "out" or w.startswith("out/")) for w in written)


def _reader(program: str):
    return tar_written if program == "tar" else unzip_written


_WRITES = [("tar", s) for s in _TAR_EXTRACTS + _TAR_ARCHIVES] + [
    ("unzip", s) for s in _UNZIP_EXTRACTS
]


@pytest.mark.parametrize(("program", "spelling"), _WRITES)
def test_every_spelling_that_writes_into_out_is_read_as_writing_there(
    workspace: Path, program: str, spelling: str
):
    _run(workspace, program, spelling)
    assert any((workspace / "out").iterdir()), f"{program} {spelling} writes into out/"
    assert _under_out(_reader(program)(shlex.split(spelling)))


@pytest.mark.parametrize(("program", "spelling"), _WRITES)
def test_the_same_spellings_into_the_home_are_denied(program: str, spelling: str):
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    command = f"cd /tmp/ws && {program} {spelling.replace('out', '/root/.config')}"
    verdict = policy.classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)


@pytest.mark.parametrize(
    ("program", "spelling"),
    [("tar", s) for s in _TAR_NOTHING] + [("unzip", s) for s in _UNZIP_NOTHING],
)
def test_listing_testing_and_piping_write_nothing(workspace: Path, program: str, spelling: str):
    before = sorted(p.name for p in workspace.iterdir())
    _run(workspace, program, spelling)
    assert sorted(p.name for p in workspace.iterdir()) == before
    assert not any((workspace / "out").iterdir())
    assert _reader(program)(shlex.split(spelling)) == []


def test_an_extraction_with_no_directory_writes_the_working_directory():
    assert tar_written(["-xf", "a.tar"]) == ["."]
    assert unzip_written(["a.zip"]) == ["."]
    policy = ShellPolicy(PathPolicy("/tmp/ws", home="/root"))
    assert policy.classify("cd /root && tar -xf /tmp/ws/a.tar").decision == "deny"
    assert policy.classify("cd /root && unzip /tmp/ws/a.zip").decision == "deny"
    assert policy.classify("cd /tmp/ws && tar -xf a.tar").decision == "approve"


def test_an_extraction_that_may_write_anywhere_is_not_known_before_it_runs():
    assert None in tar_written(["-xPf", "a.tar"])
    assert None in tar_written(["--absolute-names", "-xf", "a.tar"])
    assert None in unzip_written(["-:", "a.zip"])
    assert None in tar_written(["-xf", "a.tar", None])  # tar -xf a.tar $OPTS


def test_a_chain_of_directories_is_followed():
    assert tar_written(["-xf", "a.tar", "-C", "d1", "-C", "d2"]) == ["d1", "d1/d2"]
    assert tar_written(["-xf", "a.tar", "-C", "/tmp", "-C", "x"]) == ["/tmp", "/tmp/x"]


@pytest.mark.parametrize(
    "command",
    ["tar -xf a.tar -C ~", "tar xf a.tar -C /root", "unzip a.zip -d ~/.ssh", "unzip a.zip -d /",
     "cd ~ && tar -xf /tmp/a.tar", "tar -xf a.tar --directory=/root/", "cd / && unzip /tmp/a.zip"],
)  # fmt: skip
@pytest.mark.parametrize("workspace", ["/root", "/"])
def test_an_extraction_into_the_home_is_denied_even_in_a_workspace_that_holds_it(
    command: str, workspace: str
):
    """Its members are not known before it runs: ``.bashrc``, ``.ssh/authorized_keys``."""
    verdict = ShellPolicy(PathPolicy(workspace, home="/root")).classify(command)
    assert verdict.decision == "deny", (command, verdict.reasons)
    assert any("where an archive can plant" in reason for reason in verdict.reasons)


def test_an_extraction_below_the_home_is_judged_by_the_workspace():
    policy = ShellPolicy(PathPolicy("/root/project", home="/root"))
    assert policy.classify("cd /root/project && tar -xf a.tar -C vendor").decision == "approve"
    assert policy.classify("cd /root/project && tar -xf a.tar -C ..").decision == "deny"
