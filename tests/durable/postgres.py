"""A throwaway PostgreSQL cluster on loopback, from Debian's ``postgresql`` package.

``initdb`` and ``pg_ctl`` refuse to run as root, so as root the cluster is made and run by the
``postgres`` user (``runuser``). Tests that need it skip when the package is not installed.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_owner(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start a cluster; yields its ``postgresql://`` URL (database ``tether``). Its files are
    in a directory of their own under the system's temporary directory, which the ``postgres``
    user can reach (a test's ``tmp_path`` is private to root)."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no postgres user to own the cluster")
    data = Path(tempfile.mkdtemp(prefix="tether-pg-"))
    if os.geteuid() == 0:
        os.chown(data, owner.pw_uid, owner.pw_gid)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    subprocess.run(
        _as_owner([str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {data} -c max_connections=200"
    subprocess.run(
        _as_owner(
            [
                str(binaries / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(data / "log"),
                "-w",
                "start",
            ]
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/tether"
    finally:
        subprocess.run(
            _as_owner([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        shutil.rmtree(data, ignore_errors=True)
