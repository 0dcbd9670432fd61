"""The MCP servers a person configured: ``[mcp.servers.NAME]`` tables of ``config.toml``.

```toml
[mcp.servers.time]
command = "mcp-server-time"     # stdio: the command and its args (env and cwd optional)
args = []
trust = "ask"                   # or "read_only"; url = "http://127.0.0.1:8000/mcp" for HTTP
startup_timeout = 10            # seconds to answer initialize and tools/list (default 10)
request_timeout = 60            # seconds to answer a call (default 60; progress restarts it)
```

An HTTP server may need ``headers`` sent with every request, such as
``headers = { Authorization = "Bearer TOKEN" }`` for ``tether mcp serve --transport http``.

``NAME`` is the config key; tools become ``mcp__NAME__TOOL`` whatever the server calls itself.
``trust = "ask"`` (the default): every call needs a person. ``"read_only"``: tools the server
marks ``readOnlyHint`` run without asking (and still pass the gate).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from tether._home import known_table, read_toml
from tether.ai import TetherError

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_STARTUP_TIMEOUT",
    "McpConfigError",
    "McpServerConfig",
    "Trust",
    "config_path",
    "load_server_configs",
]

Trust: TypeAlias = Literal["ask", "read_only"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""Server keys become part of tool names, which providers restrict to these characters."""

_KEYS = frozenset(
    {
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "trust",
        "startup_timeout",
        "request_timeout",
    }
)

DEFAULT_STARTUP_TIMEOUT = 10.0
"""Seconds a server has to answer ``initialize``, then ``tools/list``, when it starts."""
DEFAULT_REQUEST_TIMEOUT = 60.0
"""Seconds a server has to answer one request; each progress notification restarts the clock."""
MAX_TIMEOUT = 86400.0


class McpConfigError(TetherError, ValueError):
    """``config.toml`` holds an MCP server table tether cannot use; the message names it."""


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One configured server: a stdio ``command`` (with ``args``, ``env``, ``cwd``) or a
    streamable-HTTP ``url``."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    """Merged over the SDK's minimal environment (the server never inherits tether's)."""
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    """Sent with every HTTP request (``url`` only)."""
    trust: Trust = "ask"
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT

    @property
    def endpoint(self) -> str:
        """What a person recognises the server by: its command line or its URL."""
        if self.url is not None:
            return self.url
        return " ".join([self.command or "", *self.args]).strip()


def config_path() -> Path:
    from tether._home import config_toml_path

    return config_toml_path()


def load_server_configs(path: Path | None = None) -> list[McpServerConfig]:
    """The servers of ``path`` (default: ``config.toml`` of the config directory), in file
    order; none when the file or its ``[mcp.servers]`` table is missing."""
    path = path or config_path()
    data = read_toml(path, McpConfigError)
    if data is None:
        return []
    servers = data.get("mcp", {}).get("servers", {}) if isinstance(data.get("mcp"), dict) else {}
    if not isinstance(servers, dict):
        raise McpConfigError(f"{path}: [mcp.servers] must be a table of servers")
    return [_server(path, name, table) for name, table in servers.items()]


def _server(path: Path, name: str, table: Any) -> McpServerConfig:
    where = f"{path}: [mcp.servers.{name}]"
    if not NAME_PATTERN.fullmatch(name):
        raise McpConfigError(f"{where}: a server name may hold only letters, digits, _ and -")
    table = known_table(where, table, _KEYS, McpConfigError)
    command, url = table.get("command"), table.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(f"{where} needs exactly one of command (stdio) or url (HTTP)")
    if command is not None and not (isinstance(command, str) and command):
        raise McpConfigError(f"{where}: command must be a non-empty string")
    if url is not None and not (isinstance(url, str) and re.match(r"https?://", url)):
        raise McpConfigError(f"{where}: url must be an http:// or https:// URL")
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(f"{where}: args must be a list of strings")
    env = table.get("env")
    if env is not None and not (
        isinstance(env, dict) and all(isinstance(v, str) for v in env.values())
    ):
        raise McpConfigError(f"{where}: env must be a table of strings")
    cwd = table.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise McpConfigError(f"{where}: cwd must be a string")
    headers = table.get("headers")
    if headers is not None and (
        url is None
        or not isinstance(headers, dict)
        or not all(isinstance(v, str) for v in headers.values())
    ):
        raise McpConfigError(f"{where}: headers must be a table of strings, for a url server")
    trust = table.get("trust", "ask")
    if trust not in ("ask", "read_only"):
        raise McpConfigError(f'{where}: trust must be "ask" or "read_only", got {trust!r}')
    return McpServerConfig(
        name=name,
        command=command,
        args=tuple(args),
        env=env,
        cwd=os.path.expanduser(cwd) if cwd is not None else None,
        url=url,
        headers=headers,
        trust=trust,
        startup_timeout=_seconds(where, table, "startup_timeout", DEFAULT_STARTUP_TIMEOUT),
        request_timeout=_seconds(where, table, "request_timeout", DEFAULT_REQUEST_TIMEOUT),
    )


def _seconds(where: str, table: dict[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise McpConfigError(f"{where}: {key} must be a number of seconds, got {value!r}")
    if not 0 < value <= MAX_TIMEOUT:
        raise McpConfigError(
            f"{where}: {key} must be more than 0 and at most {MAX_TIMEOUT:g} seconds, got {value!r}"
        )
    return float(value)
