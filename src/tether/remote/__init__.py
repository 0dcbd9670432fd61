"""Remote hands: the same tools on another host, over SSH (``pip install 'tether[ssh]'``).

:class:`SSHOperations` implements every protocol of :mod:`tether.tools.operations` over one
asyncssh connection, so ``create_coding_tools(cwd, operations=SSHOperations(host))`` runs the
read, write, edit, ls, bash, grep and find tools there. asyncssh is imported on first connect.

A *hand* is ``tether hand --stdio`` on the other host, with its own catalog and its own, final
gate (:func:`serve_hand`); :class:`HandClient` drives one, :class:`Hands` the configured ones
(``[hands.NAME]`` of ``config.toml``, :func:`load_hand_configs`), and :func:`mind_tools` gives
the model ``list_hands``, ``select_hand`` and ``use_hand``.
"""

from ._connection import HostKeyMismatchError, RemoteConnectionError
from ._hand import serve_hand, serve_hand_on_stdio
from ._hand_client import HandClient
from ._hands import Hands, HandStatus, probe_hand
from ._hands_config import DEFAULT_HAND_COMMAND, HandConfig, HandConfigError, load_hand_configs
from ._mind_tools import MIND_TOOL_NAMES, mind_tools
from ._operations import SSHOperations
from ._target import RemoteTarget, RemoteTargetError, open_remote_workspace, parse_remote_target

__all__ = [
    "DEFAULT_HAND_COMMAND",
    "MIND_TOOL_NAMES",
    "HandClient",
    "HandConfig",
    "HandConfigError",
    "HandStatus",
    "Hands",
    "HostKeyMismatchError",
    "RemoteConnectionError",
    "RemoteTarget",
    "RemoteTargetError",
    "SSHOperations",
    "load_hand_configs",
    "mind_tools",
    "open_remote_workspace",
    "parse_remote_target",
    "probe_hand",
    "serve_hand",
    "serve_hand_on_stdio",
]
