"""The session-memory key of a bash script: its whole syntax tree, spelled canonically.

Allowing a script "for the session" must cover only scripts that do the same thing, so the key
keeps every piece of structure — lists, pipelines, control flow, functions, substitutions,
redirections, heredoc bodies — and only forgets spelling: a word bash expands nothing in is
written once, quoted canonically (``r''m`` and ``\\rm`` are ``rm``, ``"x"`` is ``x``), ``$x`` is
``${x}``, a system program's absolute path is its name, and blanks and newlines between
statements are one separator. A word that expands keeps its text: ``rm *`` and ``rm '*'`` differ.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex

from tree_sitter import Node

from ._allow import strict_literal

__all__ = ["session_key"]

_WORDS = frozenset({"word", "raw_string", "string", "concatenation", "number", "ansi_c_string",
                    "translated_string"})  # fmt: skip
_GLUED = frozenset({"concatenation", "string", "translated_string", "expansion",
                    "simple_expansion", "arithmetic_expansion", "variable_assignment",
                    "file_descriptor"})  # fmt: skip
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SYSTEM_BIN = frozenset({"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin"})
_PLAIN_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def session_key(root: Node, source: bytes) -> str:
    """The canonical text of the whole script under ``root``."""
    return _Renderer(source).render(root)


class _Renderer:
    def __init__(self, source: bytes) -> None:
        self._source = source

    def _text(self, node: Node) -> str:
        return self._source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    def render(self, node: Node, name: bool = False) -> str:
        kind = node.type
        text = self._text(node)
        if kind in _WORDS:
            value = strict_literal(text)
            if value is not None and text.startswith("~"):
                return text  # ~ expands, '~' does not: keep the spelling
            if value is not None:
                if name and posixpath.dirname(posixpath.normpath(value)) in _SYSTEM_BIN:
                    value = posixpath.basename(value)
                return shlex.quote(value)
        plain = _PLAIN_EXPANSION.fullmatch(text) if kind.endswith("expansion") else None
        if plain is not None and kind in ("simple_expansion", "expansion"):
            return "${" + plain.group(1) + "}"
        if kind in ("heredoc_body", "heredoc_content", "raw_string", "ansi_c_string"):
            return json.dumps(text) if kind.startswith("heredoc") else text
        if node.child_count == 0:
            return text
        if kind == "command_name":
            return "".join(self.render(child, name=True) for child in node.children)
        if kind in _GLUED:
            return "".join(self.render(child) for child in node.children)
        if kind in _REDIRECTS:  # 2>a is not 2 >a: descriptor and operator stay together
            children = list(node.children)
            split = 0
            while split < len(children) and (
                children[split].type == "file_descriptor" or not children[split].is_named
            ):
                split += 1
            operator = "".join(self._text(child) for child in children[:split])
            return " ".join([operator, *(self.render(child) for child in children[split:])])
        parts: list[str] = []
        previous: Node | None = None
        for child in node.children:
            if child.type == "comment":
                continue
            gap = self._source[previous.end_byte : child.start_byte] if previous else b""
            if b"\n" in gap.replace(b"\\\n", b"") and child.is_named:
                parts.append(";")
            parts.append(self.render(child))
            previous = child
        return " ".join(part for part in parts if part)
