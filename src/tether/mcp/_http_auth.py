"""Who may use ``tether mcp serve --transport http``: whoever holds its bearer token.

Binding 127.0.0.1 keeps other machines out and the SDK's Host and Origin checks keep web pages
out, but every local user can reach a loopback port, and a call runs as the server's user. So
every request must carry ``Authorization: Bearer TOKEN``. The token is random for each start
(:func:`new_token`) unless read from ``--token-file`` (:func:`read_token_file`), and is written
0600 to ``<data dir>/mcp-token`` (:func:`token_path`), where clients of the same user read it;
the server says where on stderr and never prints the token itself. :class:`BearerTokenAuth`
compares in constant time and answers any request without the token, or with another, 401
with ``WWW-Authenticate: Bearer`` before the SDK sees it. There is no environment variable for
the token: every command the served tools run would inherit it.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from tether.ai import TetherError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "TOKEN_FILE_NAME",
    "BearerTokenAuth",
    "McpTokenError",
    "new_token",
    "read_token_file",
    "token_path",
]

TOKEN_FILE_NAME = "mcp-token"

_TOKEN_PATTERN = re.compile(r"[A-Za-z0-9._~+/-]+=*")
"""RFC 6750's ``b64token``: what may follow ``Bearer`` in a header."""

_REALM = 'Bearer realm="tether mcp serve"'


class McpTokenError(TetherError, ValueError):
    """A ``--token-file`` tether cannot use; the message names it and why."""


def token_path() -> Path:
    """``<data dir>/mcp-token``: where a running HTTP server's token is."""
    from tether._home import data_dir

    return Path(data_dir()) / TOKEN_FILE_NAME


def new_token() -> str:
    """32 random bytes, URL-safe base64."""
    return secrets.token_urlsafe(32)


def read_token_file(path: str) -> tuple[str, str | None]:
    """The token in ``path`` (surrounding whitespace ignored) and a warning when other users
    may read the file."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
            mode = os.fstat(handle.fileno()).st_mode
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise McpTokenError(f"--token-file {path}: {reason}") from None
    if not _TOKEN_PATTERN.fullmatch(token):
        raise McpTokenError(
            f"--token-file {path}: a token is one word of letters, digits and -._~+/ "
            "(as secrets.token_urlsafe or openssl rand -hex 32 make)"
        )
    warning = None
    if mode & 0o077:
        warning = f"--token-file {path} is readable by other users: chmod 600 {path}"
    return token, warning


class BearerTokenAuth:
    """ASGI middleware: HTTP requests reach ``app`` only with ``Authorization: Bearer TOKEN``;
    lifespan events pass, anything else (a WebSocket) is closed."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        presented = _presented_token(scope)
        if presented is not None and hmac.compare_digest(presented, self._token):
            await self.app(scope, receive, send)
            return
        await _refuse(send, missing=presented is None)


def _presented_token(scope: Scope) -> bytes | None:
    """The credentials of the request's one ``Authorization: Bearer`` header; ``None`` when
    there is no such header (b"" when there are several, which never matches)."""
    values: list[bytes] = [
        value for name, value in scope["headers"] if name.lower() == b"authorization"
    ]
    if not values:
        return None
    if len(values) > 1:
        return b""
    scheme, _, credentials = values[0].strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    return credentials.strip()


async def _refuse(send: Send, *, missing: bool) -> None:
    """401 as RFC 6750 puts it: no error code for a request that sent no token."""
    challenge = _REALM if missing else f'{_REALM}, error="invalid_token"'
    description = "this server needs Authorization: Bearer TOKEN" + (
        "" if missing else "; the token sent is not it"
    )
    body = json.dumps(
        {"error": "unauthorized" if missing else "invalid_token", "error_description": description}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", challenge.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
