"""``tether mcp list`` and ``tether mcp accept``: what the configured servers offer, and a
person's acceptance of their tools' current definitions."""

from __future__ import annotations

from typing import TextIO

from tether.gate import sanitize_for_display

from ._client import McpClients, tool_definition
from ._config import McpConfigError, load_server_configs
from ._pins import PinStore

__all__ = ["accept_tools", "print_server_list"]


def print_server_list(out: TextIO, *, pins: PinStore | None = None) -> int:
    """Every configured server: its state, then each tool with its pin status. Connecting is a
    use, so a server never seen before has its tools pinned now (trust on first use)."""
    configs = load_server_configs()
    if not configs:
        out.write("No MCP servers configured ([mcp.servers.NAME] in config.toml).\n")
        return 0
    clients = McpClients(configs, pins=pins, notify=lambda message: None)
    try:
        clients.connect()
        for name, state in clients.servers.items():
            config = state.config
            status = state.state if state.error is None else f"{state.state}: {state.error}"
            out.write(f"{name}  ({config.endpoint}; trust {config.trust})  {status}\n")
            for tool, listed in sorted(state.listed.items()):
                check = clients.pins.check(name, tool_definition(listed))
                pin = check.status if check.change is None else f"changed ({check.change})"
                read_only = bool(listed.annotations and listed.annotations.read_only_hint)
                hint = "  readOnlyHint" if read_only else ""
                out.write(f"  mcp__{name}__{sanitize_for_display(tool)}  {pin}{hint}\n")
            for shown, reason in sorted(state.left_out.items()):
                out.write(f"  mcp__{name}__{shown}  not offered: {reason}\n")
    finally:
        clients.close()
    return 0


def accept_tools(
    server: str, tool: str | None, out: TextIO, *, pins: PinStore | None = None
) -> int:
    """Pin the current definitions of ``server``'s tools (or only ``tool``); 1 when there was
    nothing to accept."""
    configs = [config for config in load_server_configs() if config.name == server]
    if not configs:
        raise McpConfigError(f'no MCP server "{server}" is configured')
    clients = McpClients(configs, pins=pins, notify=lambda message: None)
    try:
        clients.connect()
        state = clients.servers[server]
        if state.error is not None:
            raise McpConfigError(state.error)
        chosen = [t for name, t in state.listed.items() if tool is None or name == tool]
        if not chosen:
            raise McpConfigError(f'MCP server "{server}" offers no tool "{tool}"')
        definitions = [tool_definition(t) for t in chosen]
        changes = [clients.pins.check(server, d) for d in definitions]
        clients.pins.pin(server, definitions)
    finally:
        clients.close()
    for definition, check in zip(definitions, changes, strict=True):
        what = {"pinned": "unchanged", "new": "accepted (new)"}.get(check.status)
        what = what or f"accepted (changed: {check.change})"
        out.write(f"mcp__{server}__{definition['name']}  {what}\n")
    return 0
