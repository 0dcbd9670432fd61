"""Every tool result reaches the model capped: at most ``max_lines`` lines and ``max_bytes``
UTF-8 bytes of text (by default the built-in tools' 2000 lines / 50 KiB).

A tool that returns a 5 MB string would otherwise send it whole, and every ``after_tool_call``
hook (the gate's redaction) would work through all of it first. The cut keeps the beginning and
ends with a notice saying what was cut. A result within the caps — nearly every result — costs
one pass over the lengths of its text blocks. Tools that cut their own output, with notices
that say how to get the rest (the product's tools), set :data:`CAPS_OWN_RESULT` in their
metadata and are left alone.
"""

from __future__ import annotations

from tether.ai import ImageContent, TextContent

from ._truncate import format_size, truncate_head
from ._types import AgentToolResult

__all__ = ["CAPS_OWN_RESULT", "cap_result"]

CAPS_OWN_RESULT = "caps_own_result"
"""``AgentTool.metadata`` key: true when the tool keeps its own results within the caps."""


def cap_result(
    result: AgentToolResult, max_lines: int | None, max_bytes: int | None
) -> AgentToolResult:
    """``result`` with its text cut to the caps (``None``: no cap), or ``result`` itself when
    it fits. Image blocks are kept; text blocks after the cut are dropped."""
    lines = max_lines if max_lines is not None else -1
    size = max_bytes if max_bytes is not None else -1
    chars = 0
    for block in result.content:
        if isinstance(block, TextContent):
            chars += len(block.text)
    # A text has at most one line per character and four bytes per character.
    if (lines < 0 or chars <= lines) and (size < 0 or chars * 4 <= size):
        return result
    return _cut(result, max_lines, max_bytes)


def _cut(result: AgentToolResult, max_lines: int | None, max_bytes: int | None) -> AgentToolResult:
    lines_left = max_lines if max_lines is not None else _UNLIMITED
    bytes_left = max_bytes if max_bytes is not None else _UNLIMITED
    content: list[TextContent | ImageContent] = []
    total_lines = total_bytes = shown_lines = shown_bytes = 0
    cut = False
    for block in result.content:
        if not isinstance(block, TextContent):
            content.append(block)
            continue
        text = block.text
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        total_lines += count
        total_bytes += size
        if cut:
            continue
        if count <= lines_left and size <= bytes_left:
            content.append(block)
            lines_left -= count
            bytes_left -= size
            shown_lines += count
            shown_bytes += size
            continue
        cut = True
        kept = _head(text, lines_left, bytes_left)
        kept_size = len(kept.encode("utf-8"))
        shown_lines += kept.count("\n") + (1 if kept else 0)
        shown_bytes += kept_size
        if kept:
            content.append(TextContent(kept))
    if not cut:
        return result
    notice = TextContent(
        f"[Output capped at {_caps(max_lines, max_bytes)}: showing {shown_lines:,} of "
        f"{total_lines:,} lines ({format_size(shown_bytes)} of {format_size(total_bytes)}). "
        "Ask the tool for less to see the rest, e.g. a narrower query, a range or a limit.]"
    )
    if content and isinstance(content[-1], TextContent):
        content[-1] = TextContent(f"{content[-1].text}\n\n{notice.text}")
    else:
        content.append(notice)
    return AgentToolResult(content, result.details, result.terminate, result.added_tool_names)


_UNLIMITED = 1 << 62


def _head(text: str, max_lines: int, max_bytes: int) -> str:
    """The first whole lines within both caps; the start of the first line when it alone is
    over the byte cap (a single huge line still shows its beginning)."""
    if max_lines <= 0 or max_bytes <= 0:
        return ""
    cut = truncate_head(text, max_lines, max_bytes)
    if cut.first_line_exceeds_limit:
        return text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return cut.content


def _caps(max_lines: int | None, max_bytes: int | None) -> str:
    caps = []
    if max_lines is not None:
        caps.append(f"{max_lines:,} lines")
    if max_bytes is not None:
        caps.append(format_size(max_bytes))
    return " / ".join(caps)
