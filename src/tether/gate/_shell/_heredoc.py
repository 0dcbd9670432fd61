"""Heredocs as bash reads them, checked against tree-sitter's reading.

Bash ends a heredoc at the first line equal to its delimiter after quote removal (``<<$'EOF'``
and ``<<'E'OF`` end at ``EOF``) and expands the body whenever the delimiter has no quoting at
all (``<<$(EOF)`` expands). tree-sitter-bash sometimes disagrees on both; what it takes for a
heredoc body may then be commands bash runs. :func:`heredoc_disagreements` gives, for each
heredoc where the readings differ, the shell text bash would run that the tree hides.
"""

from __future__ import annotations

import re

from tree_sitter import Node

__all__ = ["heredoc_disagreements"]

_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")


def _delimiter(raw: str) -> tuple[str, bool]:
    """The delimiter bash compares lines with, and whether any of it was quoted."""
    out: list[str] = []
    quoted = False
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            out.append(raw[index + 1])
            quoted, index = True, index + 2
        elif char in "'\"" or (char == "$" and raw[index + 1 : index + 2] in ("'", '"')):
            start = index + (2 if char == "$" else 1)
            close = raw[start - 1]
            end = raw.find(close, start)
            end = len(raw) if end < 0 else end
            out.append(raw[start:end])
            quoted, index = True, end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out), quoted


def _heredocs(root: Node) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_redirect":
            found.append(node)
        stack.extend(node.children)
    return found


def heredoc_disagreements(root: Node, source: bytes) -> list[str]:
    """Shell text bash runs that tree-sitter reads as (or inside) a heredoc body."""
    hidden: list[str] = []
    text = source.decode("utf-8", "replace") if source.isascii() else None
    if text is None:  # offsets are bytes; only ASCII scripts are compared character-wise
        return hidden
    for node in _heredocs(root):
        kinds = {child.type: child for child in node.children}
        start, body = kinds.get("heredoc_start"), kinds.get("heredoc_body")
        end = kinds.get("heredoc_end")
        if start is None:
            continue
        delimiter, quoted = _delimiter(text[start.start_byte : start.end_byte])
        strip_tabs = "<<-" in kinds
        body_start = body.start_byte if body is not None else text.find("\n", start.end_byte) + 1
        tree_end = end.start_byte if end is not None else node.end_byte
        position = body_start
        bash_end = -1
        while 0 < position <= len(text):
            newline = text.find("\n", position)
            line = text[position : newline if newline >= 0 else len(text)]
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                bash_end = newline + 1 if newline >= 0 else len(text)
                break
            if newline < 0:
                break
            position = newline + 1
        if bash_end >= 0 and position != tree_end:
            hidden.append(text[bash_end:])
        body_text = text[body_start:tree_end]
        tree_expands = body is not None and any(c.type != "heredoc_content" for c in body.children)
        if not quoted and not tree_expands:
            hidden += [a or b for a, b in _SUBSTITUTION.findall(body_text) if (a or b).strip()]
    return hidden
