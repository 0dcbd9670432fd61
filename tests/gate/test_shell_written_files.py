"""The files cp, mv, ln, install and wget write, read as they read their options: checked
against the real programs, spelling by spelling. ``mv --targ=/root/.ssh authorized_keys`` once
wrote outside the workspace unjudged where ``mv -t /root/.ssh authorized_keys`` is denied, and
wget's ``-o``/``-a`` log, ``-P`` directory and ``-e output_document=`` were not seen at all."""

from __future__ import annotations

import http.server
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.gate import PathPolicy, ShellPolicy
from tether.gate._shell._written_files import written_files

_INTO_DIRECTORY = [
    "-t out src.txt", "-tout src.txt", "--target-directory=out src.txt",
    "--target-directory out src.txt", "--targ=out src.txt", "--t out src.txt",
    "src.txt -t out", "src.txt --targ out", "-vt out src.txt", "-S .b -t out src.txt",
    "--suffix .b -t out src.txt", "--suf=.b src.txt -t out", "-bt out src.txt",
    "--backup=t -t out src.txt", "--backup -t out src.txt",
]  # fmt: skip
_TO_FILE = [
    "src.txt out/dest.txt", "-v src.txt out/dest.txt", "src.txt out/dest.txt -v",
    "-S .b src.txt out/dest.txt", "--suf .b src.txt out/dest.txt", "-T src.txt out/dest.txt",
    "-- src.txt out/dest.txt", "--backup=t src.txt out/dest.txt", "-b src.txt out/dest.txt",
    "src.txt out", "-T src.txt out/dest.txt --verb",
]  # fmt: skip
_INSTALL = ["-m 644 src.txt out/dest.txt", "-m644 src.txt out/dest.txt",
            "--mode 644 src.txt out/dest.txt", "--mo=644 src.txt out/dest.txt",
            "-Cm 644 -t out src.txt", "-d out/made", "src.txt -Dm644 out/sub/dest.txt"]  # fmt: skip
_CASES = [
    *((name, s) for name in ("cp", "mv", "ln", "install") for s in _INTO_DIRECTORY + _TO_FILE),
    *(("install", s) for s in _INSTALL),
]


def _under_out(written: list[str | None]) -> bool:
    return any(w is not None and (w == "out" or w.startswith("out/")) for w in written)


@pytest.mark.parametrize(("name", "spelling"), _CASES)
def test_every_spelling_that_writes_into_the_directory_is_read_as_writing_there(
    tmp_path: Path, name: str, spelling: str
):
    if shutil.which(name) is None:
        pytest.skip(f"needs {name}")
    (tmp_path / "src.txt").write_text("x\n")
    (tmp_path / "out").mkdir()
    argv = shlex.split(spelling)
    subprocess.run([name, *argv], cwd=tmp_path, capture_output=True, check=False, timeout=20)
    assert any((tmp_path / "out").iterdir()), f"{name} {spelling} writes into out/"
    assert _under_out(written_files(name, argv))


@pytest.mark.parametrize(("name", "spelling"), _CASES)
def test_the_deny_rules_see_every_spelling(tmp_path: Path, name: str, spelling: str):
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = f"{name} {spelling.replace('out', '/root/.ssh')}"
    assert policy.classify(command).decision == "deny", command


_URL = "http://127.0.0.1:9/"  # the discard port: refused at once
_WGET = [
    "-o log.txt", "-olog.txt", "--output-file=log.txt", "--output-file log.txt",
    "--output-f=log.txt", "--output-f log.txt", "-qo log.txt", "-a log.txt", "-alog.txt",
    "--append-output=log.txt", "--app log.txt", "-O log.txt", "-Olog.txt", "-qO log.txt",
    "--output-document=log.txt", "--output-d log.txt", "-t 1 -O log.txt", "-nv -Olog.txt",
    "-e logfile=log.txt", "-e output_document=log.txt", "--execute=output-document=log.txt",
    "-e OutputDocument=log.txt", "-elogfile=log.txt", "-L -O log.txt", "-LO log.txt",
    "--backups -O log.txt",
]  # fmt: skip


@pytest.mark.parametrize("spelling", _WGET)
@pytest.mark.parametrize("place", ["before", "after"])
def test_every_file_wget_writes_is_read_as_written(tmp_path: Path, spelling: str, place: str):
    if shutil.which("wget") is None:
        pytest.skip("needs wget")
    options = shlex.split(spelling)
    argv = [*options, _URL] if place == "before" else [_URL, *options]
    subprocess.run(["wget", *argv], cwd=tmp_path, capture_output=True, check=False, timeout=20)
    assert (tmp_path / "log.txt").exists(), f"wget {spelling} writes log.txt"
    assert "log.txt" in written_files("wget", argv)
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = f"wget {' '.join(shlex.quote(a) for a in argv)}".replace("log.txt", "~/.bashrc")
    assert policy.classify(command).decision == "deny", command


def test_wget_saving_into_a_directory_writes_there(tmp_path: Path):
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify("wget -P /root http://example.com/.bashrc").decision == "deny"
    assert written_files("wget", ["--directory-p=/root", "http://x"]) == ["/root"]


def test_standard_output_is_not_a_file():
    assert written_files("wget", ["-qO-", "http://x"]) == []
    assert written_files("wget", ["-O", "-", "http://x"]) == []


@pytest.mark.parametrize("spelling", ["--output=out.txt", "--output out.txt"])
def test_git_diff_output_in_either_spelling(tmp_path: Path, spelling: str):
    """git's parse-options takes ``--output FILE`` as well as ``--output=FILE``."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "diff", *spelling.split()], cwd=tmp_path, capture_output=True,
                   check=False, timeout=20)  # fmt: skip
    assert (tmp_path / "out.txt").exists(), f"git diff {spelling} writes out.txt"
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    command = f"git diff {spelling.replace('out.txt', '/root/.bashrc')}"
    assert policy.classify(command).decision == "deny", command


_CURL = [
    "-o log.txt", "-olog.txt", "-so log.txt", "-sSLo log.txt", "--output log.txt",
    "-D log.txt", "-sD log.txt", "-Dlog.txt", "--dump-header log.txt", "--dump-h log.txt",
    "-c log.txt", "-sc log.txt", "--cookie-jar log.txt", "--cookie-j log.txt",
    "--trace log.txt", "--trace-ascii log.txt", "--trace-a log.txt", "--stderr log.txt -v",
    "--libcurl log.txt", "--etag-save log.txt", "--hsts log.txt", "--alt-svc log.txt",
    "--output-dir sub -O", "--output-d sub --remote-name", "-n -o log.txt", "-no log.txt",
    "-sno log.txt", "--output-dir sub -o log.txt",
]  # fmt: skip
"""curl takes a long option's value as the next word only (``--output=x`` is no option)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real HTTP server on loopback serving ``log.txt`` (with a cookie and an ETag)."""
    root = tmp_path_factory.mktemp("served")
    (root / "log.txt").write_text("served\n")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def end_headers(self) -> None:
            self.send_header("Set-Cookie", "k=v; Path=/")
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/log.txt"
    server.shutdown()


@pytest.mark.parametrize("spelling", _CURL)
@pytest.mark.parametrize("place", ["before", "after"])
def test_every_file_curl_writes_is_read_as_written(
    tmp_path: Path, served: str, spelling: str, place: str
):
    if shutil.which("curl") is None:
        pytest.skip("needs curl")
    (tmp_path / "sub").mkdir()
    options = shlex.split(spelling)
    argv = [*options, served] if place == "before" else [served, *options]
    subprocess.run(["curl", *argv], cwd=tmp_path, capture_output=True, check=False, timeout=20)
    local = "sub/log.txt" if "sub" in spelling else "log.txt"
    assert (tmp_path / local).exists(), f"curl {spelling} writes {local}"
    assert local in written_files("curl", argv)
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    if "sub" in spelling:
        dangerous = [a.replace("sub", "/root") for a in argv[:-1]] + ["http://x/.bashrc"]
        if place == "after":
            dangerous = ["http://x/.bashrc", *(a.replace("sub", "/root") for a in argv[1:])]
    else:
        dangerous = [a.replace("log.txt", "/root/.bashrc") for a in argv if a != served]
        dangerous.append("http://x/")
    command = f"curl {' '.join(shlex.quote(a) for a in dangerous)}"
    assert policy.classify(command).decision == "deny", command


@pytest.mark.parametrize(("name", "spelling"), [("cp", "src.txt -v out"), ("mv", "src.txt -v out"),
                                                ("cp", "src.txt -S .b out")])  # fmt: skip
def test_with_posixly_correct_the_options_after_an_operand_are_operands(
    tmp_path: Path, name: str, spelling: str
):
    """The first operand ends the options under POSIXLY_CORRECT: ``cp src.txt -v out`` copies
    src.txt (and a file named -v) into out/, which the reading must see either way."""
    (tmp_path / "src.txt").write_text("x\n")
    (tmp_path / "out").mkdir()
    env = {"PATH": "/usr/bin:/bin", "POSIXLY_CORRECT": "1"}
    argv = shlex.split(spelling)
    subprocess.run([name, *argv], cwd=tmp_path, env=env, capture_output=True, check=False)
    assert (tmp_path / "out" / "src.txt").exists(), f"{name} {spelling} writes into out/"
    assert "out" in written_files(name, argv)
    command = f"POSIXLY_CORRECT=1 {name} {spelling.replace('out', '/root/.ssh')}"
    policy = ShellPolicy(PathPolicy(str(tmp_path), home="/root"))
    assert policy.classify(command).decision == "deny", command


def test_curl_fills_a_hash_number_from_the_url_glob_so_the_file_is_not_known():
    assert written_files("curl", ["http://h/{a,b}", "-o", ".git/#1/pre-commit"]) == [None]


@pytest.mark.parametrize(
    ("name", "spelling"),
    [("cp", "src/.bashrc out"), ("mv", "src/.bashrc out/"), ("cp", "-t out src/.bashrc"),
     ("ln", "-s src/.bashrc out"), ("install", "src/.bashrc out")],
)  # fmt: skip
def test_a_file_copied_into_a_directory_is_written_there_under_its_name(
    tmp_path: Path, name: str, spelling: str
):
    """``cp x/.bashrc ~`` writes ``~/.bashrc``: the persistence rule must see the name the
    file gets in the directory, not only the directory (this matters when the workspace is
    the home directory)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ".bashrc").write_text("echo hi\n")
    (tmp_path / "out").mkdir()
    argv = shlex.split(spelling)
    subprocess.run([name, *argv], cwd=tmp_path, capture_output=True, check=False, timeout=20)
    assert (tmp_path / "out" / ".bashrc").exists() or (tmp_path / "out" / ".bashrc").is_symlink()
    written = written_files(name, argv)
    assert any((w or "").endswith("out/.bashrc") for w in written), written
    home = tmp_path / "home"
    home.mkdir()
    policy = ShellPolicy(PathPolicy(str(home), home=str(home)))  # the workspace is the home
    command = f"{name} {spelling.replace('out', '~')}"
    assert policy.classify(command).decision == "deny", command
