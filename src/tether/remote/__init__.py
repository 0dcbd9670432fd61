"""Remote hands: the same tools on another host, over SSH (``pip install 'tether[ssh]'``).

:class:`SSHOperations` implements every protocol of :mod:`tether.tools.operations` over one
asyncssh connection, so ``create_coding_tools(cwd, operations=SSHOperations(host))`` runs the
read, write, edit, ls, bash, grep and find tools there. asyncssh is imported on first connect.
"""

from ._connection import HostKeyMismatchError, RemoteConnectionError
from ._operations import SSHOperations

__all__ = ["HostKeyMismatchError", "RemoteConnectionError", "SSHOperations"]
