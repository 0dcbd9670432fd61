from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tether.remote import SSHOperations

from .sshd import SSHD_BINARY, SSHServer, start_sshd


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    if not os.path.exists(SSHD_BINARY):
        pytest.skip("OpenSSH server (/usr/sbin/sshd) is not installed")
    server = start_sshd(Path(tmp_path_factory.mktemp("sshd")))
    yield server
    server.stop()


@pytest.fixture
async def ssh_operations(sshd: SSHServer) -> AsyncIterator[SSHOperations]:
    operations = sshd.operations()
    yield operations
    await operations.close()


@pytest.fixture
def ssh_home(sshd: SSHServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose ~/.ssh holds the test key and trusts the test host, as a user's would."""
    home = tmp_path / "user-home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(sshd.client_key, home / ".ssh" / "id_ed25519")
    shutil.copy(sshd.known_hosts, home / ".ssh" / "known_hosts")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return home
