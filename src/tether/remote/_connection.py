"""One SSH connection to one host, opened on first use and opened again after it is lost.

asyncssh is imported only here and only when a connection is opened, so importing
:mod:`tether.remote` (and starting ``tether``) stays fast. Every failure of the transport
becomes :class:`RemoteConnectionError` naming the host; the broken connection is dropped, so the
next call connects again instead of failing the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tether.ai import TetherError

if TYPE_CHECKING:
    import asyncssh

__all__ = [
    "DEFAULT_KNOWN_HOSTS",
    "HostKeyMismatchError",
    "RemoteConnectionError",
    "SSHConnection",
    "ssh_address",
]

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"
_CONNECT_TIMEOUT_SECONDS = 20.0


class RemoteConnectionError(TetherError, ConnectionError):
    """The SSH connection to a host could not be opened or was lost; the message names the host."""


class HostKeyMismatchError(RemoteConnectionError):
    """The host presented a key that its ``known_hosts`` entry does not trust."""


def ssh_address(host: str, user: str | None, port: int) -> str:
    """``user@host:port`` as a person would name it: no unset user, no default port."""
    user_part = f"{user}@" if user else ""
    port_part = f":{port}" if port != 22 else ""
    return f"{user_part}{host}{port_part}"


class SSHConnection:
    """The connection (and its SFTP session) shared by every operation on one host."""

    def __init__(
        self,
        host: str,
        *,
        user: str | None,
        port: int,
        known_hosts: str | os.PathLike[str],
        client_keys: Sequence[str | os.PathLike[str]] | None,
    ) -> None:
        self.host = host
        self.user = user
        self.port = port
        self.known_hosts = os.path.expanduser(os.fspath(known_hosts))
        self.client_keys = [os.path.expanduser(os.fspath(key)) for key in client_keys or ()]
        self._connection: asyncssh.SSHClientConnection | None = None
        self._sftp: asyncssh.SFTPClient | None = None
        self._lock = asyncio.Lock()

    @property
    def address(self) -> str:
        """``user@host:port`` as the user would name it, for messages."""
        return ssh_address(self.host, self.user, self.port)

    async def connection(self) -> asyncssh.SSHClientConnection:
        async with self._lock:
            if self._connection is None or self._connection.is_closed():
                self._sftp = None
                self._connection = await self._connect()
            return self._connection

    async def sftp(self) -> asyncssh.SFTPClient:
        connection = await self.connection()
        async with self._lock:
            if self._sftp is None:
                with self.translating_errors():
                    self._sftp = await connection.start_sftp_client()
            return self._sftp

    async def _connect(self) -> asyncssh.SSHClientConnection:
        import asyncssh

        options: dict[str, object] = {}
        if self.client_keys:
            options["client_keys"] = self.client_keys
        try:
            return await asyncio.wait_for(
                asyncssh.connect(
                    self.host,
                    port=self.port,
                    username=self.user,
                    known_hosts=self.known_hosts,
                    **options,
                ),
                _CONNECT_TIMEOUT_SECONDS,
            )
        except asyncssh.HostKeyNotVerifiable as error:
            raise HostKeyMismatchError(
                f"Refusing to connect to {self.address}: its host key is not trusted by "
                f"{self.known_hosts} ({error.reason}). If the key changed on purpose, update "
                "that file; otherwise someone may be intercepting the connection."
            ) from None
        except (OSError, asyncssh.Error, TimeoutError) as error:
            raise RemoteConnectionError(
                f"Cannot connect to {self.address}: {_describe(error)}"
            ) from None

    def drop(self) -> None:
        """Forget the connection (it broke): the next call opens a new one."""
        connection, self._connection, self._sftp = self._connection, None, None
        if connection is not None:
            connection.abort()

    @contextlib.contextmanager
    def translating_errors(self) -> Iterator[None]:
        """Turn a lost transport into :class:`RemoteConnectionError` and drop the connection."""
        import asyncssh

        try:
            yield
        except (asyncssh.ConnectionLost, asyncssh.DisconnectError, BrokenPipeError) as error:
            self.drop()
            raise RemoteConnectionError(
                f"The SSH connection to {self.address} was lost: {_describe(error)}"
            ) from None
        except asyncssh.ChannelOpenError as error:
            self.drop()
            raise RemoteConnectionError(
                f"The SSH connection to {self.address} refused a channel: {_describe(error)}"
            ) from None

    async def close(self) -> None:
        connection, self._connection, self._sftp = self._connection, None, None
        if connection is not None:
            connection.close()
            await connection.wait_closed()


def _describe(error: BaseException) -> str:
    reason = getattr(error, "reason", None)
    return str(reason or error or type(error).__name__)
