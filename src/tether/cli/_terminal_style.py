"""How the interactive terminal turns text into what it prints: ANSI lines rendered by ``rich``,
or plain text on a dumb terminal (no escape codes at all, and ``rich`` never imported).

Every value shown here may come from a model or a tool, so it is turned into a ``rich`` ``Text``
(never parsed as markup) after :func:`tether.gate.sanitize_for_display` removed control and
escape sequences: a tool result cannot move the cursor or spoof a prompt.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable
from typing import Any

from tether.gate import sanitize_for_display

__all__ = ["Styler"]


class Styler:
    """Renders at the terminal's current width (``width()``), or as plain text when ``plain``."""

    def __init__(self, *, plain: bool, width: Callable[[], int]) -> None:
        self.plain = plain
        self.width = width

    def markdown(self, text: str) -> list[str]:
        """``text`` as Markdown, one string per terminal line (plain: the text's own lines)."""
        clean = _clean_block(text)
        if self.plain:
            return clean.split("\n")
        from rich.markdown import Markdown

        return self._render(Markdown(clean, code_theme="ansi_dark", hyperlinks=False))

    def line(self, text: str, style: str = "") -> str:
        """One line of ``text`` (cleaned, never parsed as markup) in ``style``."""
        clean = " ".join(sanitize_for_display(text).split("\n"))
        return clean if self.plain else self._styled(clean, style)

    def block(
        self,
        text: str,
        style: str = "",
        indent: str = "",
        first: str | None = None,
        *,
        prose: bool = False,
    ) -> list[str]:
        """Lines of ``text`` (cleaned), each prefixed by ``indent`` (the first by ``first``
        when given) and shown in ``style``; a line wider than the terminal is cut into pieces
        that each keep the indent — between words when ``prose``."""
        lines = _clean_block(text).split("\n")
        if not self.plain:
            room = max(10, self.width() - len(indent) - 1)
            if prose:
                lines = [piece for line in lines for piece in textwrap.wrap(line, room) or [""]]
            else:
                lines = [
                    line[i : i + room] for line in lines for i in range(0, len(line) or 1, room)
                ]
        prefixes = [indent] * len(lines)
        if first is not None:
            prefixes[0] = first
        if self.plain:
            return [prefix + line for prefix, line in zip(prefixes, lines, strict=True)]
        return [
            self._styled(prefix + line, style) for prefix, line in zip(prefixes, lines, strict=True)
        ]

    def diff(self, diff: str, indent: str = "  ") -> list[str]:
        """A unified diff, additions green and removals red."""
        shown = []
        for line in _clean_block(diff).split("\n"):
            if line.startswith("+") and not line.startswith("+++"):
                style = "green"
            elif line.startswith("-") and not line.startswith("---"):
                style = "red"
            elif line.startswith("@@"):
                style = "cyan"
            else:
                style = "dim"
            shown.append(indent + line if self.plain else self._styled(indent + line, style))
        return shown

    def join(self, parts: list[tuple[str, str]]) -> str:
        """Pieces of one line, each ``(text, style)``."""
        if self.plain:
            return "".join(sanitize_for_display(text) for text, _ in parts)
        from rich.text import Text

        line = Text()
        for text, style in parts:
            line.append(sanitize_for_display(text), style=style or None)
        return self._one_line(line)

    def _styled(self, text: str, style: str) -> str:
        from rich.text import Text

        return self._one_line(Text(text, style=style or ""))

    def _one_line(self, renderable: Any) -> str:
        from rich.console import Console

        out = io.StringIO()
        console = Console(
            file=out,
            force_terminal=True,
            color_system="standard",
            width=100_000,
            highlight=False,
            emoji=False,
            soft_wrap=True,
        )
        console.print(renderable, end="")
        return out.getvalue()

    def _render(self, renderable: Any) -> list[str]:
        from rich.console import Console

        out = io.StringIO()
        console = Console(
            file=out,
            force_terminal=True,
            color_system="standard",
            width=max(20, self.width()),
            highlight=False,
            emoji=False,
        )
        console.print(renderable)
        return [line.rstrip() for line in out.getvalue().rstrip("\n").split("\n")]


def _clean_block(text: str) -> str:
    """Each line cleaned on its own, so line breaks survive and everything else is safe."""
    lines = text.replace("\r\n", "\n").expandtabs(4).split("\n")
    return "\n".join(sanitize_for_display(line) for line in lines)
