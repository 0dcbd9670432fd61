"""MCP servers built with the SDK's ``MCPServer`` for the tests, started over stdio as
``python tests/mcp/sdk_servers.py KIND``.

- ``changing``: one read-only tool ``lookup`` whose description is ``$LOOKUP_DESCRIPTION``, so it
  can change between connections;
- ``crashing``: ``echo`` (read-only) and ``crash``, which kills the process mid-call — once per
  ``$CRASH_MARKER`` file, so that a restarted server works; ``$CRASH_ALWAYS`` makes every start
  after the first fail too;
- ``growing``: ``grow`` (read-only), which adds a tool ``extra`` and tells the client that the
  list of tools changed, and ``reword``, which changes ``grow``'s description and tells it too;
- ``phoenix``: ``crash``, which kills the process mid-call once per ``$CRASH_MARKER`` file, and
  ``grow``, which adds ``extra`` and tells the client that the list of tools changed. With
  ``$LEGACY`` it answers no ``server/discover`` (a 2025-11-25 server, as most are: changes come
  as ``notifications/tools/list_changed``), and once restarted it announces ``reborn`` while it
  answers the first ``tools/list``, listing it from the second on;
- ``pictures``: ``picture``, an image-only result whose structured content repeats the image
  (as server-everything's does), and ``reading``, text with the same structured content;
- ``tasking`` (with ``$LEGACY``: tasks are of the 2025 protocol): ``job``, which declares
  ``execution.taskSupport: "required"`` and refuses a plain call as such servers do, and
  ``quick``, an ordinary tool;
- ``slow``: ``hang``, which never answers, ``busy``, which works for ``seconds`` reporting
  progress every 0.1 s, and ``echo`` (all read-only).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import (
    METHOD_NOT_FOUND,
    CallToolResult,
    ImageContent,
    ListToolsResult,
    TextContent,
    Tool,
    ToolAnnotations,
    ToolExecution,
)

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


class _Phoenix(MCPServer):
    """Once restarted, announces a new tool during the first listing (legacy connections)."""

    restarted = False
    listings = 0

    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        self.listings += 1
        if self.restarted and self.listings == 2:
            self.add_tool(
                _reborn, name="reborn", description="Here after a restart.", annotations=READ_ONLY
            )
        if self.restarted and self.listings == 1:
            await ctx.session.send_tool_list_changed()
        return await super()._handle_list_tools(ctx, params)


def _reborn() -> str:
    return "reborn"


def phoenix() -> MCPServer:
    marker = os.environ["CRASH_MARKER"]
    server = _Phoenix("phoenix")
    server.restarted = os.path.exists(marker)

    def extra() -> str:
        return "extra"

    @server.tool(annotations=READ_ONLY)
    def crash() -> str:
        """Die in the middle of the call, the first time."""
        if os.path.exists(marker):
            return "survived"
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
        os._exit(1)

    @server.tool(annotations=READ_ONLY)
    async def grow(ctx: Context) -> str:
        """Add a tool."""
        server.add_tool(extra, description="An extra tool.", annotations=READ_ONLY)
        await ctx.notify_tools_changed()
        return "grown"

    return server


PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAA"
    "AABJRU5ErkJggg=="
)


def pictures() -> MCPServer:
    server = MCPServer("pictures")

    @server.tool(annotations=READ_ONLY)
    def picture() -> CallToolResult:
        """A one-pixel image."""
        return CallToolResult(
            content=[ImageContent(data=PIXEL, mime_type="image/png")],
            structured_content={"image": PIXEL, "mimeType": "image/png"},
        )

    @server.tool(annotations=READ_ONLY)
    def reading() -> CallToolResult:
        """A temperature."""
        return CallToolResult(
            content=[TextContent(text='{"celsius": 21}')], structured_content={"celsius": 21}
        )

    return server


class _Tasking(MCPServer):
    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        for tool in tools:
            if tool.name == "job":
                tool.execution = ToolExecution(task_support="required")
        return tools


def tasking() -> MCPServer:
    server = _Tasking("tasking")

    @server.tool()
    def job() -> str:
        """A long job, run only as an MCP task."""
        raise MCPError(code=METHOD_NOT_FOUND, message="tool 'job' requires task augmentation")

    @server.tool(annotations=READ_ONLY)
    def quick() -> str:
        """Answer at once."""
        return "quick answer"

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


async def _serve_legacy(server: MCPServer) -> None:
    """Over stdio in the 2025 handshake era only, as servers written before 2026-07-28 do: the
    SDK's own legacy loop, which answers a ``server/discover`` probe "method not found"."""
    from mcp.server.runner import _serve_legacy_stream
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await _serve_legacy_stream(
            lowlevel,
            read,
            write,
            lifespan_state=state,
            session_id=None,
            init_options=lowlevel.create_initialization_options(),
            raise_exceptions=False,
        )


if __name__ == "__main__":
    kinds = {
        "changing": changing,
        "crashing": crashing,
        "growing": growing,
        "phoenix": phoenix,
        "pictures": pictures,
        "slow": slow,
        "tasking": tasking,
    }
    chosen = kinds[sys.argv[1]]()
    if os.environ.get("LEGACY"):
        anyio.run(_serve_legacy, chosen)
    else:
        chosen.run("stdio")
