"""MCP servers built with the SDK's ``MCPServer`` for the tests, started over stdio as
``python tests/mcp/sdk_servers.py KIND``.

- ``changing``: one read-only tool ``lookup`` whose description is ``$LOOKUP_DESCRIPTION``, so it
  can change between connections;
- ``crashing``: ``echo`` (read-only) and ``crash``, which kills the process mid-call — once per
  ``$CRASH_MARKER`` file, so that a restarted server works; ``$CRASH_ALWAYS`` makes every start
  after the first fail too;
- ``growing``: ``grow`` (read-only), which adds a tool ``extra`` and tells the client that the
  list of tools changed, and ``reword``, which changes ``grow``'s description and tells it too;
- ``slow``: ``hang``, which never answers, ``busy``, which works for ``seconds`` reporting
  progress every 0.1 s, and ``echo`` (all read-only).
"""

from __future__ import annotations

import os
import sys
import time

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)


def changing() -> MCPServer:
    server = MCPServer("changing")

    def lookup(key: str) -> str:
        return f"value of {key}"

    server.add_tool(
        lookup,
        description=os.environ.get("LOOKUP_DESCRIPTION", "Look a key up."),
        annotations=READ_ONLY,
    )
    return server


def crashing() -> MCPServer:
    marker = os.environ["CRASH_MARKER"]
    if os.environ.get("CRASH_ALWAYS") and os.path.exists(marker):
        sys.exit(3)
    server = MCPServer("crashing")

    @server.tool(annotations=READ_ONLY)
    def echo(text: str) -> str:
        """Return the text."""
        return f"echo: {text}"

    @server.tool(annotations=READ_ONLY)
    def crash() -> str:
        """Die in the middle of the call."""
        with open(marker, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(0.2)
        os._exit(1)

    return server


def growing() -> MCPServer:
    server = MCPServer("growing")

    def extra() -> str:
        return "extra"

    async def grow(ctx: Context) -> str:
        """Add a tool."""
        server.add_tool(extra, description="An extra tool.", annotations=READ_ONLY)
        await ctx.notify_tools_changed()
        return "grown"

    async def reword(ctx: Context) -> str:
        """Change grow's description."""
        server.remove_tool("grow")
        server.add_tool(grow, description="Add a tool (reworded).", annotations=READ_ONLY)
        await ctx.notify_tools_changed()
        return "reworded"

    server.add_tool(grow, annotations=READ_ONLY)
    server.add_tool(reword, annotations=READ_ONLY)
    return server


def slow() -> MCPServer:
    server = MCPServer("slow")

    @server.tool(annotations=READ_ONLY)
    async def hang() -> str:
        """Never answer."""
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool(annotations=READ_ONLY)
    async def busy(seconds: float, ctx: Context) -> str:
        """Work for a while, saying so."""
        steps = int(seconds * 10)
        for step in range(steps):
            await ctx.report_progress(step, steps, "working")
            await anyio.sleep(0.1)
        return "done"

    @server.tool(annotations=READ_ONLY)
    def echo(text: str) -> str:
        """Return the text."""
        return f"echo: {text}"

    return server


if __name__ == "__main__":
    kinds = {"changing": changing, "crashing": crashing, "growing": growing, "slow": slow}
    kinds[sys.argv[1]]().run("stdio")
