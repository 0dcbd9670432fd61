"""tether._home: the directories (TETHER_HOME, else the platform's), the one config.toml path,
and open_private, write_private and private_dir: 0600 files and 0700 directories whatever the
umask; the data directory tightened, a person's own directory left as it is."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from tether import _home
from tether._home import (
    config_dir,
    config_toml_path,
    data_dir,
    models_config_path,
    open_private,
    private_dir,
    write_private,
)
from tether.ai import providers


def test_tether_home_holds_config_and_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_HOME", str(tmp_path))
    assert config_dir() == tmp_path
    assert data_dir() == tmp_path
    assert models_config_path() == tmp_path / "models.toml"
    assert config_toml_path() == tmp_path / "config.toml"


def test_without_tether_home_the_platform_directories_are_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for value in (None, ""):
        if value is None:
            monkeypatch.delenv("TETHER_HOME", raising=False)
        else:
            monkeypatch.setenv("TETHER_HOME", value)
        config = Path(platformdirs.user_config_dir("tether", appauthor=False))
        assert config_dir() == config
        assert data_dir() == Path(platformdirs.user_data_dir("tether", appauthor=False))
        assert config_toml_path() == config / "config.toml"


def test_the_providers_package_keeps_offering_the_same_functions() -> None:
    for name in ("config_dir", "data_dir", "open_private", "private_dir", "write_private"):
        assert getattr(providers, name) is getattr(_home, name)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o000, 0o022, 0o277], ids=["umask000", "umask022", "umask277"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("TETHER_HOME", str(path))
    return path


def test_files_and_the_directories_made_for_them_are_private(home, umask):
    with open_private(home / "sessions" / "a" / "s.jsonl", "x") as handle:
        handle.write("one\n")
    with open_private(home / "sessions" / "a" / "s.jsonl", "a") as handle:
        handle.write("two\n")
    write_private(home / "pins.json", "{}")
    write_private(home / "pins.json", '{"x": 1}')
    assert (home / "sessions" / "a" / "s.jsonl").read_text() == "one\ntwo\n"
    assert (home / "pins.json").read_text() == '{"x": 1}'
    assert [p.name for p in home.iterdir() if p.name.startswith(".")] == []
    for path in (home, home / "sessions", home / "sessions" / "a"):
        assert _mode(path) == 0o700, path
    for path in (home / "sessions" / "a" / "s.jsonl", home / "pins.json"):
        assert _mode(path) == 0o600, path


def test_an_older_wider_data_directory_is_tightened_where_tether_writes(home):
    (home / "sessions" / "a").mkdir(parents=True)
    for path in (home, home / "sessions", home / "sessions" / "a"):
        path.chmod(0o755)
    old = home / "sessions" / "a" / "s.jsonl"
    old.write_text("old\n")
    old.chmod(0o644)
    with open_private(old, "a") as handle:
        handle.write("new\n")
    for path in (home, home / "sessions", home / "sessions" / "a"):
        assert _mode(path) == 0o700, path
    assert _mode(old) == 0o600


def test_a_directory_outside_the_data_directory_is_left_as_it_is(home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    project.chmod(0o755)
    with open_private(project / "chosen" / "export.html") as handle:
        handle.write("<html>")
    assert _mode(project) == 0o755
    assert _mode(project / "chosen") == 0o700
    assert _mode(project / "chosen" / "export.html") == 0o600
    assert private_dir(project) == project
    assert _mode(project) == 0o755
