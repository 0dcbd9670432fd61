"""A foreign tool's result as tether's: capped, marked as untrusted data, images passed through.

Text (and text resources) are joined, cut to the pipeline's caps and wrapped in the session's
untrusted-output boundary, so nothing a server returns reads as an instruction. Images pass
through up to a size cap; audio and binary resources are named, not inlined. Structured content
(already checked against the tool's output schema by the SDK) is shown as JSON only when the
server sent no content at all: a server that sends content carries its structured result there
too (the spec asks it to), so an image result is an image block and nothing else, never its
base64 data again as text.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from tether.agent import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    AgentToolResult,
    ToolError,
    format_size,
    truncate_head,
)
from tether.ai import ImageContent, TextContent
from tether.gate import UntrustedBoundary, unwrap_untrusted

if TYPE_CHECKING:
    import mcp_types

__all__ = ["MAX_IMAGE_BYTES", "result_body", "to_agent_result"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Of one image's base64 data; a bigger one is named instead of passed on."""

_LABEL = re.compile(r'\[output of MCP server "[A-Za-z0-9_-]{1,32}"\]')


def to_agent_result(
    result: mcp_types.CallToolResult, boundary: UntrustedBoundary, server: str
) -> AgentToolResult:
    """The result as tether's; raises :class:`ToolError` (same marking) when ``isError``."""
    import mcp_types as types

    texts: list[str] = []
    images: list[TextContent | ImageContent] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ImageContent):
            if len(block.data) <= MAX_IMAGE_BYTES:
                images.append(ImageContent(block.data, block.mime_type))
            else:
                size = format_size(len(block.data))
                texts.append(f"[an image of {size} was left out: over the size cap]")
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                texts.append(resource.text)
            else:
                texts.append(f"[binary resource {resource.uri} left out]")
        elif isinstance(block, types.ResourceLink):
            texts.append(f"[resource link: {block.uri}]")
        else:
            texts.append(f"[{block.type} content left out]")
    if not result.content and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=1))
    if images and not texts and not result.is_error:
        return AgentToolResult(list(images))
    text = _capped("\n".join(texts))
    marked = boundary.wrap(f"{_output_label(server)}\n{text}")
    if result.is_error:
        raise ToolError(marked)
    return AgentToolResult([TextContent(marked), *images])


def _output_label(server: str) -> str:
    """The line that opens a server's output inside the fence, naming where it came from."""
    return f'[output of MCP server "{server}"]'


def result_body(text: str) -> str:
    """What a server said in a result's text: without the untrusted-output fence and the line
    naming the server (a one-line summary for a person shows the output itself)."""
    lines = unwrap_untrusted(text).split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and _LABEL.fullmatch(lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def _capped(text: str) -> str:
    cut = truncate_head(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
    if not cut.truncated:
        return text
    return f"{cut.content}\n[output cut to {cut.output_lines} lines of {cut.total_lines}]"
