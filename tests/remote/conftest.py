from __future__ import annotations

import os
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
