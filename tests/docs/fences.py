"""The fenced code blocks of a Markdown page, found the way Markdown finds them.

A block opens with three or more backticks and an info string (```` ```python ````) and closes
with a line of at least as many backticks and nothing else, so a ```` ````console ```` block
may hold the ``` lines of pasted program output. A block indented in a list keeps its code
without the indentation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPENING = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Fence:
    info: str
    """The language after the backticks (``python``, ``console``, empty)."""
    line: int
    """The 1-based line of the block's first line of code."""
    code: str
    before: str
    """The text between the previous block (or the page's start) and this one."""


def fenced_blocks(text: str) -> list[Fence]:
    lines = text.splitlines(keepends=True)
    blocks = []
    prose_start = 0
    index = 0
    while index < len(lines):
        opening = OPENING.match(lines[index].rstrip("\n"))
        if opening is None:
            index += 1
            continue
        closing = re.compile(rf"^ *`{{{len(opening['fence'])},}}\s*$")
        indent = len(opening["indent"])
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        blocks.append(
            Fence(
                info=opening["info"].strip(),
                line=index + 2,
                code="".join(line[indent:] for line in lines[index + 1 : end]),
                before="".join(lines[prose_start:index]),
            )
        )
        index = end + 1
        prose_start = index
    return blocks
