"""How a run gets its hands: the configured ones, ``--hand NAME``, and ``--remote`` through a hand.

``--remote user@host:/path`` first asks the host for a hand (``tether hand --stdio`` there); when
one answers, the tools run through it (both gates judge), else bare SSH operations run them with
a notice on stderr. The current hand is a ``custom`` session entry (``custom_type = "hand"``), so
a resumed session targets the same hand again (connecting it at the first request).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tether.gate import Approver, Gate
from tether.session import CustomEntry, Session

from ._errors import RunSetupError

if TYPE_CHECKING:
    from tether.remote import HandConfig, Hands, SSHOperations

__all__ = ["HAND_ENTRY", "open_hands", "remote_hand", "session_hand"]

HAND_ENTRY = "hand"
REMOTE_HAND = "remote"
"""The name of the hand ``--remote`` runs through."""


def remote_hand(operations: SSHOperations, cwd: str, tools: Sequence[str]) -> HandConfig | None:
    """The hand ``--remote`` runs through, or ``None`` (said on stderr) when none answers."""
    from tether.remote import DEFAULT_HAND_COMMAND, HandConfig, probe_hand

    connection = operations.connection
    config = HandConfig(
        name=REMOTE_HAND,
        host=connection.host,
        user=connection.user,
        port=connection.port,
        cwd=cwd,
        command=f"{DEFAULT_HAND_COMMAND} --tools {','.join(tools)}",
        known_hosts=connection.known_hosts,
        identity=connection.client_keys[0] if connection.client_keys else None,
    )
    problem = probe_hand(config)
    if problem is None:
        return config
    sys.stderr.write(
        f"tether: --remote: no tether hand answered on {operations.address} ({problem}); the "
        "tools run there over bare SSH, governed by this side's gate only\n"
    )
    return None


def open_hands(
    *,
    hand: str | None,
    remote: HandConfig | None,
    replaces: Sequence[str],
    gate: Gate,
    approver: Approver | None,
    no_approver_hint: str | None,
    session: Session | None,
) -> Hands | None:
    """The run's hands (``None`` when there are none), the current one chosen by ``--hand``,
    else ``--remote``'s, else the session's."""
    from tether.remote import HandConfigError, Hands, load_hand_configs

    try:
        configs = load_hand_configs()
    except HandConfigError as exc:
        raise RunSetupError(str(exc)) from None
    if hand is not None and hand not in configs:
        known = ", ".join(configs) or "none is configured in config.toml [hands.NAME]"
        raise RunSetupError(f"--hand {hand}: no such hand (hands: {known})")
    if remote is not None:
        configs[remote.name] = remote
    if not configs:
        return None

    def record(name: str) -> None:
        if session is not None:
            session.append(CustomEntry(custom_type=HAND_ENTRY, data={"name": name}))

    hands = Hands(
        configs,
        replaces=replaces,
        gate=gate,
        approver=approver,
        no_approver_hint=no_approver_hint,
        on_select=record,
    )
    resumed = session_hand(session) if session is not None else None
    chosen = hand or (remote.name if remote is not None else None)
    if chosen is None and resumed in configs:
        chosen = resumed
    if chosen is not None:
        hands.current = chosen
        if chosen != resumed:
            record(chosen)
    return hands


def session_hand(session: Session) -> str | None:
    """The hand the session's branch last made current."""
    for entry in reversed(session.path_to()):
        if isinstance(entry, CustomEntry) and entry.custom_type == HAND_ENTRY:
            data = entry.data
            name = data.get("name") if isinstance(data, dict) else None
            return name if isinstance(name, str) else None
    return None
