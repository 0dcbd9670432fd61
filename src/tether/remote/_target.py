"""Where ``tether --remote [user@]host[:port][:/path]`` runs the tools, and a first check of it.

Parsing needs nothing from asyncssh. :func:`open_remote_workspace` connects once before the run
starts, so an unreachable host, an untrusted host key or a missing directory is reported at
once rather than at the first tool call, and it finds the login directory when no path is given.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import posixpath
from dataclasses import dataclass

from tether.ai import TetherError

from ._connection import ssh_address
from ._operations import SSHOperations

__all__ = ["RemoteTarget", "RemoteTargetError", "open_remote_workspace", "parse_remote_target"]


class RemoteTargetError(TetherError, ValueError):
    """A ``--remote`` value that names no usable host or directory; the message says why."""


@dataclass(frozen=True, slots=True)
class RemoteTarget:
    host: str
    user: str | None = None
    port: int = 22
    path: str | None = None
    """Absolute directory on the host; ``None`` for the login directory."""

    @property
    def address(self) -> str:
        """``user@host:port`` as the user would name it (no default port, no unset user)."""
        return ssh_address(self.host, self.user, self.port)

    def __str__(self) -> str:
        """``user@host[:port]:/path``: the address and, when known, the directory."""
        return f"{self.address}:{self.path}" if self.path else self.address


def parse_remote_target(spec: str) -> RemoteTarget:
    """``[user@]host[:port][:/path]``; an IPv6 address goes in brackets (``[::1]:2222``)."""
    user, at, rest = spec.rpartition("@")
    if at and not user:
        raise RemoteTargetError(f"{spec!r}: nothing before '@' (expected user@host)")
    if rest.startswith("["):
        host, bracket, rest = rest[1:].partition("]")
        if not bracket:
            raise RemoteTargetError(f"{spec!r}: '[' without ']' around the address")
        if rest and not rest.startswith(":"):
            raise RemoteTargetError(f"{spec!r}: expected ':' after the bracketed address")
        rest = rest[1:]
    else:
        host, _, rest = rest.partition(":")
    if not host:
        raise RemoteTargetError(f"{spec!r}: no host name")
    port_text, path = ("", rest) if rest.startswith("/") or not rest else rest.partition(":")[::2]
    if port_text and not port_text.isdigit():
        raise RemoteTargetError(f"{spec!r}: the port must be a number, got {port_text!r}")
    port = int(port_text) if port_text else 22
    if not 0 < port < 65536:
        raise RemoteTargetError(f"{spec!r}: port {port} is out of range")
    if path and not path.startswith("/"):
        raise RemoteTargetError(f"{spec!r}: the remote directory must be absolute, got {path!r}")
    return RemoteTarget(host, user or None, port, posixpath.normpath(path) if path else None)


def open_remote_workspace(target: RemoteTarget) -> tuple[SSHOperations, str]:
    """Operations for ``target`` and its absolute working directory, checked on the host.

    The check runs on a connection of its own, in a thread with its own event loop (the caller
    may already be inside one); the operations returned connect on first use in the caller's.
    Raises :class:`~tether.remote.RemoteConnectionError` or :class:`RemoteTargetError`.
    """

    async def check() -> str:
        probe = SSHOperations(target.host, user=target.user, port=target.port)
        try:
            directory = target.path or await probe.home()
            info = await probe.stat(directory)
        finally:
            await probe.close()
        if info is None or info.kind != "directory":
            raise RemoteTargetError(f"{probe.address}:{directory} is not a directory")
        return directory

    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        cwd = worker.submit(asyncio.run, check()).result()
    operations = SSHOperations(target.host, user=target.user, port=target.port, cwd=cwd)
    return operations, cwd
