"""MCP both ways, through the official ``mcp`` SDK (the ``tether[mcp]`` extra).

- Server: :func:`serve` publishes the governed coding tools (``tether mcp serve``); every call
  passes tether's own validation and gate (:func:`build_server`), and the host's confirmation is
  never an approval. Over HTTP every request needs the bearer token kept in :func:`token_path`.
- Client: :class:`McpClients` connects the servers of ``config.toml``
  (:func:`load_server_configs`) and turns their tools into governed tools ``mcp__SERVER__TOOL``
  whose definitions are pinned by digest (:class:`PinStore`); ``tether mcp list`` and
  ``tether mcp accept`` (:func:`print_server_list`, :func:`accept_tools`) show and accept them.
  Each server has a ``startup_timeout`` and a ``request_timeout``; one that does not answer in
  time is named with the reason, and every stdio server is stopped with its whole process tree.

The SDK is imported only when a server or connection starts, so importing this package is cheap.
"""

from ._annotations import READ_ONLY_TOOLS, annotations_for
from ._client import (
    McpClients,
    ServerState,
    connect_configured_servers,
    tool_definition,
    tool_name_for,
)
from ._commands import accept_tools, print_server_list
from ._config import (
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    McpConfigError,
    McpServerConfig,
    Trust,
    config_path,
    load_server_configs,
)
from ._connection import ServerConnection, ServerGone
from ._http_auth import McpTokenError, token_path
from ._pins import PinCheck, PinStatus, PinStore, definition_digest
from ._results import MAX_IMAGE_BYTES, result_body, to_agent_result
from ._serve import HEARTBEAT_ENV, HTTP_HOST, HTTP_PATH, governed_tools, serve, serve_tools
from ._server import (
    HEARTBEAT_S,
    NO_APPROVAL_CHANNEL,
    NO_APPROVAL_CHANNEL_FORCED,
    build_server,
    to_call_result,
)
from ._stdio import malformed_request_reply

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_STARTUP_TIMEOUT",
    "HEARTBEAT_ENV",
    "HEARTBEAT_S",
    "HTTP_HOST",
    "HTTP_PATH",
    "MAX_IMAGE_BYTES",
    "NO_APPROVAL_CHANNEL",
    "NO_APPROVAL_CHANNEL_FORCED",
    "READ_ONLY_TOOLS",
    "McpClients",
    "McpConfigError",
    "McpServerConfig",
    "McpTokenError",
    "PinCheck",
    "PinStatus",
    "PinStore",
    "ServerConnection",
    "ServerGone",
    "ServerState",
    "Trust",
    "accept_tools",
    "annotations_for",
    "build_server",
    "config_path",
    "connect_configured_servers",
    "definition_digest",
    "governed_tools",
    "load_server_configs",
    "malformed_request_reply",
    "print_server_list",
    "result_body",
    "serve",
    "serve_tools",
    "to_agent_result",
    "to_call_result",
    "token_path",
    "tool_definition",
    "tool_name_for",
]
