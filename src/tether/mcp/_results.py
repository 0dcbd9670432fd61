"""A foreign tool's result as tether's: capped, marked as untrusted data, images passed through.

Text (and text resources) are joined, cut to the pipeline's caps and wrapped in the session's
untrusted-output boundary, so nothing a server returns reads as an instruction. Images pass
through up to a size cap; audio and binary resources are named, not inlined. Structured content
(already checked against the tool's output schema by the SDK) is shown as JSON when the server
sent no text.
"""

from __future__ import annotations

import json
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
from tether.gate import UntrustedBoundary

if TYPE_CHECKING:
    import mcp_types

__all__ = ["MAX_IMAGE_BYTES", "to_agent_result"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Of one image's base64 data; a bigger one is named instead of passed on."""


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
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=1))
    text = _capped("\n".join(texts))
    marked = boundary.wrap(f'[output of MCP server "{server}"]\n{text}')
    if result.is_error:
        raise ToolError(marked)
    return AgentToolResult([TextContent(marked), *images])


def _capped(text: str) -> str:
    cut = truncate_head(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
    if not cut.truncated:
        return text
    return f"{cut.content}\n[output cut to {cut.output_lines} lines of {cut.total_lines}]"
