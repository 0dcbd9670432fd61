"""A real OpenSSH server on a loopback port, with a generated host key and user key.

The server runs as the test user (root in CI, so ``PermitRootLogin yes``); ``known_hosts``
trusts the generated host key. With ``binds`` it runs in a mount namespace of its own where
those directories are bound over others, so the "remote" host sees files this machine does not.
``PATH`` for sessions includes this interpreter's directory, where the PyPI ``ripgrep`` package
put ``rg``, so grep and find work on the "remote" host; ``PYTHONPATH`` is passed on, so a hand
started there runs the code under test.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from tether.remote import SSHOperations

__all__ = ["SSHD_BINARY", "SSHServer", "mount_namespaces_work", "start_sshd"]

SSHD_BINARY = "/usr/sbin/sshd"


@dataclass
class SSHServer:
    port: int
    user: str
    client_key: Path
    known_hosts: Path
    config: Path
    process: subprocess.Popen[bytes]

    def operations(self, **options: object) -> SSHOperations:
        return SSHOperations(
            "127.0.0.1",
            user=self.user,
            port=self.port,
            known_hosts=options.pop("known_hosts", self.known_hosts),  # type: ignore[arg-type]
            client_keys=[self.client_key],
            **options,  # type: ignore[arg-type]
        )

    def session_processes(self) -> list[psutil.Process]:
        """Every process below the listening sshd: sessions and what they run."""
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.Error:
            return []

    def drop_connections(self) -> None:
        """Kill every session's sshd, as a dropped connection would; the listening sshd stays up.

        A session's processes may end while this runs (one killed sshd takes its other one along).
        """
        for process in self.session_processes():
            with contextlib.suppress(psutil.NoSuchProcess):
                if process.name() == "sshd":
                    process.kill()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )


def _python_path() -> str:
    """`` PYTHONPATH=...`` when this test run has one, so that a ``tether`` started over SSH
    (a hand) imports the code under test, not another copy installed for the interpreter."""
    value = os.environ.get("PYTHONPATH")
    return f" PYTHONPATH={value}" if value else ""


def mount_namespaces_work() -> bool:
    """Whether ``unshare --mount`` with a bind mount works here (root, or a permissive host)."""
    if shutil.which("unshare") is None:
        return False
    with tempfile.TemporaryDirectory() as directory:
        probe = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "mount", "--bind", "/", directory],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    return probe.returncode == 0


def start_sshd(
    directory: Path, *, ripgrep_on_path: bool = True, binds: Mapping[Path, Path] | None = None
) -> SSHServer:
    """``binds`` maps a directory to the one it hides from the server (see the module)."""
    directory.mkdir(parents=True, exist_ok=True)
    host_key, client_key = directory / "host_key", directory / "client_key"
    _keygen(host_key)
    _keygen(client_key)
    authorized = directory / "authorized_keys"
    shutil.copy(f"{client_key}.pub", authorized)
    port = _free_port()
    known_hosts = directory / "known_hosts"
    host_public = (directory / "host_key.pub").read_text().split()
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_public[0]} {host_public[1]}\n")
    with_ripgrep = [os.path.dirname(sys.executable)] if ripgrep_on_path else []
    session_path = os.pathsep.join([*with_ripgrep, "/usr/bin", "/bin"])
    config = directory / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {authorized}\nPidFile {directory / 'sshd.pid'}\n"
        "PermitRootLogin yes\nUsePAM no\nStrictModes no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nSubsystem sftp internal-sftp\n"
        f"SetEnv PATH={session_path}{_python_path()}\nMaxSessions 100\nMaxStartups 100\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory sshd insists on
    command = [SSHD_BINARY, "-D", "-e", "-f", str(config)]
    if binds:
        mounts = [
            f"mount --bind {shlex.quote(str(s))} {shlex.quote(str(t))}" for s, t in binds.items()
        ]
        script = " && ".join([*mounts, 'exec "$@"'])
        command = [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            *command,
        ]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stderr=open(directory / "sshd.log", "wb"),  # noqa: SIM115 - the server keeps it
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        if process.poll() is not None:
            raise RuntimeError((directory / "sshd.log").read_text())
        time.sleep(0.05)
    return SSHServer(port, getpass.getuser(), client_key, known_hosts, config, process)
