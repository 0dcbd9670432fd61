"""Remote hands: the same tools on another host, over SSH (``pip install 'tether[ssh]'``).

:class:`SSHOperations` implements every protocol of :mod:`tether.tools.operations` over one
asyncssh connection, so ``create_coding_tools(cwd, operations=SSHOperations(host))`` runs the
read, write, edit, ls, bash, grep and find tools there. asyncssh is imported on first connect.
"""

from ._connection import HostKeyMismatchError, RemoteConnectionError
from ._hand import serve_hand, serve_hand_on_stdio
from ._hand_client import HandClient
from ._operations import SSHOperations
from ._target import RemoteTarget, RemoteTargetError, open_remote_workspace, parse_remote_target

__all__ = [
    "HandClient",
    "HostKeyMismatchError",
    "RemoteConnectionError",
    "RemoteTarget",
    "RemoteTargetError",
    "SSHOperations",
    "open_remote_workspace",
    "parse_remote_target",
    "serve_hand",
    "serve_hand_on_stdio",
]
