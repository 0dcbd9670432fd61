"""Where durable runs are kept: ``$TETHER_DB`` checked, SQLite under the data directory by
default (0600), and what ``tether runs`` shows of it (never a password)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tether.durable import DurableError, database_url, engine_info


def test_the_default_database_is_a_private_sqlite_file_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_HOME", str(tmp_path))
    monkeypatch.delenv("TETHER_DB", raising=False)
    url = database_url()
    assert url == f"sqlite:///{tmp_path / 'durable.sqlite'}"
    assert stat.S_IMODE((tmp_path / "durable.sqlite").stat().st_mode) == 0o600
    assert engine_info(url).database == f"SQLite {tmp_path / 'durable.sqlite'}"
    assert engine_info(url).engine.startswith("DBOS Transact 3.")


def test_tether_db_names_postgresql_and_its_password_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TETHER_DB", "postgresql://tether:s3cret@db.internal:5433/runs")
    url = database_url()
    info = engine_info(url)
    assert info.database == "PostgreSQL tether@db.internal:5433/runs"
    assert "s3cret" not in info.line()


def test_another_kind_of_database_is_refused_with_what_to_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TETHER_DB", "mysql://root@localhost/runs")
    with pytest.raises(DurableError, match=r"use sqlite:///PATH or postgresql://"):
        database_url()
