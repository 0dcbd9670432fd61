"""Where durable runs are kept, and the engine that keeps them: DBOS Transact.

The database is ``$TETHER_DB`` (a SQLAlchemy URL), else one SQLite file, ``durable.sqlite``
under the data directory. SQLite is for one machine; ``postgresql://…`` lets any number of
workers on any number of machines share the queues. ``dbos`` (the ``durable`` extra) is
imported only here and only when a durable command runs, so ``tether --help`` stays fast.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from tether._home import data_dir
from tether.ai import TetherError

__all__ = [
    "DEFAULT_APPROVAL_EXPIRY",
    "WORKFLOW_NAME",
    "DurableError",
    "EngineInfo",
    "QueueLimits",
    "database_url",
    "engine_info",
    "load_dbos",
    "parse_rate",
    "use_sqlite_wal",
]

WORKFLOW_NAME = "tether.durable.run"
"""The name every tether run is registered and enqueued under."""

DEFAULT_APPROVAL_EXPIRY = 24 * 3600.0
"""How long (seconds) a parked call waits for a person before the wait is a denial."""


class DurableError(TetherError):
    """A durable command cannot do what was asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """What ``tether runs`` shows first: the engine and the database it keeps runs in."""

    engine: str
    database: str

    def line(self) -> str:
        return f"engine: {self.engine}  database: {self.database}"


@dataclass(frozen=True, slots=True)
class QueueLimits:
    """A queue's limits as its workers registered them: runs at once per worker, and at most
    ``rate_limit`` starts per ``rate_period`` seconds over all workers (``None``: no limit)."""

    name: str
    concurrency: int | None = None
    rate_limit: int | None = None
    rate_period: float | None = None

    def line(self) -> str:
        at_once = f"{self.concurrency} at once per worker" if self.concurrency else "no limit"
        rate = (
            f", at most {self.rate_limit} started per {self.rate_period:g}s"
            if self.rate_limit and self.rate_period
            else ""
        )
        return f"queue {self.name}: {at_once}{rate}"


def parse_rate(text: str) -> tuple[int, float]:
    """``N/SECONDS`` (``10/60``: ten runs a minute) as ``(N, SECONDS)``, checked."""
    count, _, period = text.partition("/")
    try:
        limit, seconds = int(count), float(period)
    except ValueError:
        limit, seconds = 0, 0.0
    if limit < 1 or not seconds > 0:
        raise DurableError(
            f"--rate {text!r}: give N/SECONDS, N runs started at most per SECONDS (e.g. 10/60)"
        )
    return limit, seconds


def load_dbos() -> ModuleType:
    """The ``dbos`` package, or a :class:`DurableError` saying how to install it."""
    try:
        return import_module("dbos")
    except ImportError:
        raise DurableError(
            "durable runs need DBOS: pip install 'tether[durable]' (the durable extra)"
        ) from None


def database_url() -> str:
    """``$TETHER_DB``, checked, or the SQLite file under the data directory (made 0600)."""
    url = os.environ.get("TETHER_DB", "").strip()
    if url:
        if not url.startswith(("sqlite:///", "postgresql://", "postgresql+psycopg://")):
            raise DurableError(
                f"TETHER_DB={url!r}: use sqlite:///PATH or postgresql://USER@HOST:PORT/DB"
            )
        return url
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / "durable.sqlite"
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    return f"sqlite:///{path}"


def engine_info(url: str) -> EngineInfo:
    """The engine's version and the database, its password left out."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        engine = f"DBOS Transact {version('dbos')}"
    except PackageNotFoundError:
        engine = "DBOS Transact (not installed)"
    if url.startswith("sqlite:///"):
        return EngineInfo(engine, f"SQLite {url.removeprefix('sqlite:///')}")
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return EngineInfo(engine, f"PostgreSQL {user}{parts.hostname}{port}{parts.path}")


def use_sqlite_wal() -> None:
    """Every SQLite connection this process opens from here on writes ahead (``WAL``) and syncs
    at checkpoints (``synchronous=NORMAL``): a commit is one write, not three fsyncs. A killed
    process loses nothing committed; a power cut may lose the last commits, so runs that must
    survive the machine belong on PostgreSQL. (SQLAlchemy's ``connect`` event, for every engine,
    because DBOS makes its own.)"""
    import sqlite3

    import sqlalchemy

    def configure(connection: object, _record: object) -> None:
        if isinstance(connection, sqlite3.Connection):
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")

    if not sqlalchemy.event.contains(sqlalchemy.engine.Engine, "connect", configure):
        sqlalchemy.event.listen(sqlalchemy.engine.Engine, "connect", configure)
