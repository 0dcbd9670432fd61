"""The hands a person configured: ``[hands.NAME]`` tables of ``config.toml``.

```toml
[hands.build]
ssh = "me@build-box:2222"          # user@host[:port]
cwd = "/src/app"                   # the hand's workspace (default: the login directory)
command = "tether hand --stdio"    # how the hand is started there (the default)
known_hosts = "~/.ssh/known_hosts" # the default
identity = "~/.ssh/id_ed25519"     # default: the SSH agent and asyncssh's default keys
```

``NAME`` is what the model and the person call the hand (``select_hand("build")``,
``--hand build``). Reading the file connects to nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether._home import known_table
from tether.ai import TetherError

from ._connection import DEFAULT_KNOWN_HOSTS, ssh_address
from ._operations import SSHOperations
from ._target import RemoteTargetError, parse_remote_target

__all__ = ["DEFAULT_HAND_COMMAND", "HandConfig", "HandConfigError", "load_hand_configs"]

DEFAULT_HAND_COMMAND = "tether hand --stdio"
_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
_KEYS = frozenset({"ssh", "cwd", "command", "known_hosts", "identity"})


class HandConfigError(TetherError, ValueError):
    """A ``[hands]`` table tether cannot use; the message names the file and the hand."""


@dataclass(frozen=True, slots=True)
class HandConfig:
    name: str
    host: str
    user: str | None = None
    port: int = 22
    cwd: str | None = None
    command: str = DEFAULT_HAND_COMMAND
    known_hosts: str = DEFAULT_KNOWN_HOSTS
    identity: str | None = None

    @property
    def address(self) -> str:
        return ssh_address(self.host, self.user, self.port)

    def operations(self) -> SSHOperations:
        """Operations on the hand's host (not connected until first used)."""
        return SSHOperations(
            self.host,
            user=self.user,
            port=self.port,
            cwd=self.cwd,
            known_hosts=self.known_hosts,
            client_keys=[self.identity] if self.identity else None,
        )


def load_hand_configs(path: Path | None = None) -> dict[str, HandConfig]:
    """The hands of ``path`` (default: ``config.toml`` of the config directory) by name, in
    file order; none when the file or its ``[hands]`` table is missing."""
    if path is None:
        from tether._home import config_toml_path

        path = config_toml_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, RecursionError, tomllib.TOMLDecodeError) as exc:
        raise HandConfigError(f"{path}: cannot read the hands: {exc}") from None
    hands = data.get("hands", {})
    if not isinstance(hands, dict):
        raise HandConfigError(f"{path}: [hands] must be a table of hands")
    return {name: _hand(f"{path}: [hands.{name}]", name, table) for name, table in hands.items()}


def _hand(where: str, name: str, table: Any) -> HandConfig:
    if not _NAME.fullmatch(name):
        raise HandConfigError(f"{where}: a hand's name may hold only letters, digits, _ and -")
    table = known_table(where, table, _KEYS, HandConfigError)
    for key in _KEYS:
        if key in table and not (isinstance(table[key], str) and table[key].strip()):
            raise HandConfigError(f"{where}: {key} must be a non-empty string")
    if "ssh" not in table:
        raise HandConfigError(f'{where} needs ssh = "user@host[:port]"')
    try:
        target = parse_remote_target(table["ssh"])
    except RemoteTargetError as exc:
        raise HandConfigError(f"{where}: ssh: {exc}") from None
    if target.path is not None:
        raise HandConfigError(f"{where}: ssh names no directory; put it in cwd = {target.path!r}")
    cwd = table.get("cwd")
    if cwd is not None and not cwd.startswith("/"):
        raise HandConfigError(f"{where}: cwd must be an absolute path on the hand, got {cwd!r}")
    command = table.get("command", DEFAULT_HAND_COMMAND)
    try:
        shlex.split(command)
    except ValueError as exc:
        raise HandConfigError(f"{where}: command: {exc}") from None
    identity = table.get("identity")
    return HandConfig(
        name=name,
        host=target.host,
        user=target.user,
        port=target.port,
        cwd=cwd,
        command=command,
        known_hosts=os.path.expanduser(table.get("known_hosts", DEFAULT_KNOWN_HOSTS)),
        identity=os.path.expanduser(identity) if identity else None,
    )
