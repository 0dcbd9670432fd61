"""Bash scripts as data: every simple command a script would run, found with tree-sitter-bash.

:class:`ShellParser` walks the whole syntax tree — lists, pipelines, subshells, compound and
function bodies, command and process substitutions, heredocs, assignment values — and returns a
flat :class:`Script` in execution order (substitutions before the command that uses them). Each
word keeps its source text and, when nothing in it expands at run time, its literal value with
quotes, backslashes and ``$'...'`` escapes resolved (``r''m`` and ``\\rm`` are both ``rm``);
``$HOME``/``${HOME}`` count as the literal ``~`` so home-directory targets stay visible.
What one command is judged with — its values, options, paths and display — is in :mod:`._call`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from ._budget import check_tree, spend_nodes

__all__ = [
    "Assignment", "Command", "Redirect", "Script", "ShellParser", "Word", "decode_escapes",
]  # fmt: skip

_LANGUAGE = Language(tree_sitter_bash.language())
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_MAX_LOOP_VALUES = 8
_HOME = re.compile(r"\$HOME|\$\{HOME(:?[-=?][^}]*)?\}")  # $HOME, ${HOME}, ${HOME:?} ...


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word: its source text and, when it is a literal, its value."""

    raw: str
    value: str | None
    substitutions: tuple[Command, ...] = ()
    """Commands that run inside ``$(...)``, backticks or ``<(...)`` within this word."""


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    value: Word


@dataclass(frozen=True, slots=True)
class Redirect:
    operator: str
    """As written: ``>``, ``>>``, ``<``, ``&>``, ``>&``, ``<<``, ``<<<`` ..."""
    target: Word | None
    """The file, fd number or here-string; ``None`` for heredocs."""
    body: Word | None = None
    """A heredoc's text (literal when the heredoc expands nothing)."""


@dataclass(frozen=True, slots=True)
class Command:
    """A simple command; ``name is None`` for a bare assignment or a redirection alone."""

    name: Word | None
    args: tuple[Word, ...]
    assignments: tuple[Assignment, ...]
    redirects: tuple[Redirect, ...]
    pipeline: int
    """Id of the pipeline the command is a stage of, or -1."""
    stage: int
    nested: bool
    """Runs inside a substitution (its output becomes part of another command)."""
    fed_from: tuple[int, int] | None = None
    """The stage of an enclosing pipeline whose input this first stage reads
    (``echo x | (cat | bash)``: ``cat`` reads what stage 1 of the outer pipeline is fed)."""


@dataclass(frozen=True, slots=True)
class Script:
    commands: tuple[Command, ...]
    error: bool
    """The text did not parse cleanly (ERROR or MISSING nodes)."""
    fork_bombs: tuple[str, ...]
    """Functions that call themselves in a pipeline or in the background."""
    root: Node | None = field(default=None, compare=False)
    """The syntax tree (of the script's ASCII twin: byte offsets are the source's)."""
    source: bytes = field(default=b"", compare=False)


class _Context(NamedTuple):
    pipeline: int = -1
    stage: int = 0
    nested: bool = False
    functions: tuple[str, ...] = ()
    background: bool = False
    redirects: tuple[Redirect, ...] = ()
    args: tuple[Word, ...] = ()
    """Arguments written after a heredoc marker (``cat <<EOF file``): the command's own."""
    feeds: tuple[int, int] | None = None
    """The enclosing pipeline's stage whose input a first stage reads (:attr:`Command.fed_from`)."""


@dataclass(slots=True)
class _Extras:
    """What a command's redirections carry besides themselves."""

    redirects: list[Redirect] = field(default_factory=list)
    continuations: list[Node] = field(default_factory=list)
    """Statements tree-sitter nests in a heredoc redirect (``cat <<EOF | sh``, ``<<EOF && x``)."""
    arguments: list[Word] = field(default_factory=list)


class ShellParser:
    """One tree-sitter parser; not thread-safe, so each owner builds its own."""

    def __init__(self) -> None:
        self._parser = Parser(_LANGUAGE)

    def parse(self, text: str) -> Script:
        source = text.encode("utf-8", "surrogatepass")
        # tree-sitter-bash's scanner passes non-ASCII lookahead to ctype functions (undefined
        # behaviour; `{` + U+E0000 segfaults), so it parses an ASCII twin of the script: each
        # byte >= 0x80 becomes `X`, word-like as the character is to bash, and never part of a
        # (lowercase) keyword. Offsets are unchanged: words are still read from the original.
        tree = self._parser.parse(source if source.isascii() else source.translate(_ASCII_TWIN))
        check_tree(tree.root_node)  # the walk recurses: too deep a tree is too complex
        walk = _Walk(source)
        walk.visit(tree.root_node, _Context())
        error = walk.error or tree.root_node.has_error
        return Script(tuple(walk.commands), error, tuple(walk.fork_bombs), tree.root_node, source)


_ASCII_TWIN = bytes(range(128)) + b"X" * 128


def _body_type(node: Node) -> str | None:
    body = node.child_by_field_name("body")
    return body.type if body is not None else None


class _Walk:
    def __init__(self, source: bytes) -> None:
        self._source = source
        self.commands: list[Command] = []
        self.error = False
        self.fork_bombs: list[str] = []
        self._pipelines = 0

    def _text(self, node: Node) -> str:
        return self._source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _new_pipeline(self) -> int:
        self._pipelines += 1
        return self._pipelines

    def visit(self, node: Node, ctx: _Context) -> None:
        spend_nodes()
        if not node.is_named:
            if node.is_missing:
                self.error = True
            return
        kind = node.type
        if kind == "command":
            self._command(node, ctx)
        elif kind == "redirected_statement":
            self._redirected(node, ctx)
        elif kind == "pipeline":
            feeds = (ctx.pipeline, ctx.stage) if ctx.pipeline >= 0 else None
            self._pipeline(node, ctx._replace(feeds=feeds), self._new_pipeline(), 0)
        elif kind in _SUBSTITUTIONS:
            inner = _Context(nested=True, functions=ctx.functions)
            for child in node.children:
                if child.type == "file_redirect":  # $(<file) reads the file
                    redirect = self._redirect(child, inner, _Extras())
                    self._emit(None, (), (), inner._replace(redirects=(redirect,)))
                else:
                    self.visit(child, inner)
        elif kind == "function_definition":
            self._function(node, ctx)
        elif kind == "variable_assignment":
            self._emit(None, (), (self._assignment(node, ctx),), ctx)
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node, ctx)
        elif kind == "test_command":
            start = len(self.commands)
            self._children(node, ctx)
            self._emit(Word("[[", "[["), self._quoted_words(node), (), ctx, at=start)
        elif kind == "for_statement":
            self._for(node, ctx)
        elif kind == "comment":
            return
        else:
            if kind == "ERROR" or node.is_missing:
                self.error = True
            self._children(node, ctx)

    def _for(self, node: Node, ctx: _Context) -> None:
        """``for NAME in WORDS; do BODY; done``: the body once after each distinct value is
        assigned (so ``for d in ~; do rm -rf $d; done`` is judged as ``rm -rf ~``), or once when
        it does not mention ``NAME`` (nested loops do not multiply)."""
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        indices = range(node.child_count)
        values = [node.children[i] for i in indices if node.field_name_for_child(i) == "value"]
        if variable is None or body is None or not values or len(values) > _MAX_LOOP_VALUES:
            self._children(node, ctx)
            return
        name = self._text(variable)
        if not re.search(rf"\${{?{re.escape(name)}\b", self._text(body)):
            self._emit(None, (), (Assignment(name, self.word(values[0], ctx)),), ctx)
            self.visit(body, ctx)
            return
        for raw in dict.fromkeys(self._text(value) for value in values):
            value = next(v for v in values if self._text(v) == raw)
            self._emit(None, (), (Assignment(name, self.word(value, ctx)),), ctx)
            self.visit(body, ctx)

    def _quoted_words(self, node: Node) -> tuple[Word, ...]:
        """The single-quoted words inside ``node`` (text ``[[`` evaluates: subscripts run)."""
        found: list[Word] = []
        stack = list(node.children)
        while stack:
            child = stack.pop()
            if child.type == "raw_string":
                found.append(Word(self._text(child), self._text(child)[1:-1]))
            elif child.type not in _SUBSTITUTIONS:
                stack.extend(child.children)
        return tuple(reversed(found))

    def _children(self, node: Node, ctx: _Context) -> None:
        children = node.children
        if b"&" not in self._source[node.start_byte : node.end_byte]:
            for child in children:
                self.visit(child, ctx)
            return
        for index, child in enumerate(children):
            background = index + 1 < len(children) and children[index + 1].type == "&"
            self.visit(child, ctx._replace(background=True) if background else ctx)

    def _pipeline(
        self, node: Node, ctx: _Context, pipeline: int, stage: int, tail: tuple[Redirect, ...] = ()
    ) -> int:
        """Visit the stages of ``node`` as stages ``stage``... of ``pipeline``; the last stage.

        ``tail``: redirections written after the whole pipeline, which apply to its last stage.
        """
        children = [c for c in node.children if c.type != "comment"]
        for index, child in enumerate(children):
            last = tail if index == len(children) - 1 else ()
            if child.type in ("|", "|&"):
                stage += 1
            elif child.type == "pipeline":
                stage = self._pipeline(child, ctx, pipeline, stage, last)
            elif child.type == "redirected_statement" and _body_type(child) == "pipeline":
                # tree-sitter reads `a | b 2>&1 | c` as `(a | b) 2>&1 | c`: one pipeline.
                extras = self._redirects(child, ctx)
                body = child.child_by_field_name("body")
                assert body is not None
                inner = ctx._replace(args=(*ctx.args, *extras.arguments))
                stage = self._pipeline(body, inner, pipeline, stage, (*extras.redirects, *last))
                for continuation in extras.continuations:
                    self.visit(continuation, ctx)
            else:
                inherited = (*ctx.redirects, *last) if last else ctx.redirects
                self.visit(child, _Context(pipeline, stage, ctx.nested, ctx.functions,
                                           ctx.background, inherited, ctx.args,
                                           ctx.feeds if stage == 0 else None))  # fmt: skip
        return stage

    def _redirects(self, node: Node, ctx: _Context) -> _Extras:
        extras = _Extras()
        for child in node.children:
            if child.type in _REDIRECTS:
                extras.redirects.append(self._redirect(child, ctx, extras))
        return extras

    def _redirected(self, node: Node, ctx: _Context) -> None:
        extras = self._redirects(node, ctx)
        redirects, continuations = extras.redirects, extras.continuations
        inherited = ctx._replace(
            redirects=(*ctx.redirects, *redirects), args=(*ctx.args, *extras.arguments)
        )
        body = node.child_by_field_name("body")
        piped = next((c for c in continuations if c.type == "pipeline"), None)
        if body is not None and body.type == "pipeline" and piped is None:
            inner = ctx._replace(args=inherited.args)
            self._pipeline(body, inner, self._new_pipeline(), 0, tuple(redirects))
        elif piped is not None:
            pipeline = self._new_pipeline()
            if body is not None:
                self.visit(body, inherited._replace(pipeline=pipeline, stage=0))
            self._pipeline(piped, ctx, pipeline, 0)
        elif body is not None:
            self.visit(body, inherited)
        else:
            self._emit(None, (), (), inherited)
        for continuation in continuations:
            if continuation is not piped:
                self.visit(continuation, ctx)

    def _redirect(self, node: Node, ctx: _Context, extras: _Extras) -> Redirect:
        if node.type == "heredoc_redirect":
            return self._heredoc(node, ctx, extras)
        operator = ""
        target: Word | None = None
        for child in node.children:
            kind = child.type
            if kind == "ERROR":
                self.error = True
            elif kind == "file_descriptor":
                continue
            elif not child.is_named and target is None:
                operator += kind
            elif child.is_named and target is None:
                target = self.word(child, ctx)
            elif child.is_named:
                self.word(child, ctx)
        return Redirect(operator, target)

    def _heredoc(self, node: Node, ctx: _Context, extras: _Extras) -> Redirect:
        """The heredoc, its body taken from the source: from the line after the marker to the
        delimiter line. (tree-sitter-bash sometimes reads a body line as arguments of the
        redirect, as with ``sh <<'EOF'`` followed by ``\\rm -rf /``.)"""
        operator, quoted, literal, newline, body_to = "<<", False, True, -1, node.end_byte
        start = len(self.commands)
        inner = ctx._replace(nested=True, pipeline=-1, args=())
        for index, child in enumerate(node.children):
            kind = child.type
            if kind in ("<<", "<<-"):
                operator = kind
            elif kind == "heredoc_start":
                quoted = any(mark in self._text(child) for mark in "'\"\\")
                found = self._source.find(b"\n", child.end_byte)
                newline = found if found >= 0 else node.end_byte
            elif kind == "heredoc_end":
                body_to = child.start_byte
            elif kind == "heredoc_body":
                literal = literal and all(c.type == "heredoc_content" for c in child.children)
                self._children(child, inner)
            elif kind in _REDIRECTS:
                extras.redirects.append(self._redirect(child, ctx, extras))
            elif node.field_name_for_child(index) == "argument" and child.start_byte < newline:
                extras.arguments.append(self.word(child, ctx))
            elif node.field_name_for_child(index) == "argument":
                literal = False
                self.word(child, inner)
            elif child.is_named:
                extras.continuations.append(child)
        raw = self._source[newline + 1 : body_to].decode("utf-8", "replace") if newline >= 0 else ""
        value = raw if quoted or literal else None
        return Redirect(operator, None, Word(raw, value, tuple(self.commands[start:])))

    def _function(self, node: Node, ctx: _Context) -> None:
        name_node = node.child_by_field_name("name")
        name = self._text(name_node) if name_node is not None else ""
        inner = _Context(functions=(*ctx.functions, name), nested=ctx.nested)
        for child in node.children:
            if child is not name_node:
                self.visit(child, inner)

    def _declaration(self, node: Node, ctx: _Context) -> None:
        keyword = node.children[0]
        args: list[Word] = []
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                assignment = self._assignment(child, ctx)
                value = assignment.value.value
                literal = None if value is None else f"{assignment.name}={value}"
                args.append(Word(self._text(child), literal, assignment.value.substitutions))
            else:
                args.append(self.word(child, ctx))
        self._emit(Word(keyword.type, keyword.type), tuple(args), (), ctx)

    def _assignment(self, node: Node, ctx: _Context) -> Assignment:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        value = self.word(value_node, ctx) if value_node is not None else Word("", "")
        return Assignment(self._text(name_node) if name_node is not None else "", value)

    def _command(self, node: Node, ctx: _Context) -> None:
        name: Word | None = None
        args: list[Word] = []
        assignments: list[Assignment] = []
        extras = _Extras(list(ctx.redirects))
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                assignments.append(self._assignment(child, ctx))
            elif kind == "command_name":
                name = self.word(child.children[0] if child.child_count == 1 else child, ctx)
            elif kind in _REDIRECTS:
                extras.redirects.append(self._redirect(child, ctx, extras))
            elif kind != "comment":
                args.append(self.word(child, ctx))
        args += extras.arguments + list(ctx.args)
        redirects, continuations = extras.redirects, extras.continuations
        if (
            name is not None
            and name.value in ctx.functions
            and (ctx.pipeline >= 0 or ctx.background)
        ):
            self.fork_bombs.append(name.value)
        self._emit(name, tuple(args), tuple(assignments), ctx._replace(redirects=tuple(redirects)))
        for continuation in continuations:
            self.visit(continuation, ctx)

    def _emit(
        self,
        name: Word | None,
        args: tuple[Word, ...],
        assignments: tuple[Assignment, ...],
        ctx: _Context,
        at: int | None = None,
    ) -> None:
        command = Command(
            name, args, assignments, ctx.redirects, ctx.pipeline, ctx.stage, ctx.nested, ctx.feeds
        )
        self.commands.insert(len(self.commands) if at is None else at, command)

    def word(self, node: Node, ctx: _Context) -> Word:
        raw = self._text(node)
        if node.type == "word":
            unescaped = _unescape_word(raw)
            self.error = self.error or "\n" in unescaped  # no bash word holds a bare newline
            return Word(raw, unescaped)
        start = len(self.commands)
        return Word(raw, self._literal(node, ctx), tuple(self.commands[start:]))

    def _literal(self, node: Node, ctx: _Context) -> str | None:
        """The value of ``node`` when it is fixed text; visits substitutions either way."""
        kind = node.type
        if kind == "word":
            return _unescape_word(self._text(node))
        if kind == "raw_string":
            return self._text(node)[1:-1]
        if kind == "number":
            return self._text(node)
        if kind == "ansi_c_string":  # bash ends $'...' at an escaped NUL
            return decode_escapes(self._text(node)[2:-1]).partition("\x00")[0]
        if kind in _SUBSTITUTIONS:
            self.visit(node, ctx)
            return None
        if kind in ("simple_expansion", "expansion"):
            self._children(node, ctx._replace(nested=True, pipeline=-1))
            return "~" if _HOME.fullmatch(self._text(node)) else None
        if kind in ("string", "translated_string"):
            # tree-sitter leaves some text of a string out of its children (a newline between
            # two lines of content): it is part of the value all the same.
            parts: list[str | None] = []
            position = node.start_byte
            for child in node.children:
                if child.start_byte > position:
                    gap = self._source[position : child.start_byte]
                    parts.append(_unescape_double_quoted(gap.decode("utf-8", "replace")))
                parts.append(self._string_part(child, ctx))
                position = child.end_byte
            return None if None in parts else "".join(p for p in parts if p is not None)
        if kind in ("concatenation", "command_name"):
            parts = [self._literal(child, ctx) for child in node.children]
            return None if None in parts else "".join(p for p in parts if p is not None)
        if kind == "ERROR" or node.is_missing:
            self.error = True
        self._children(node, ctx._replace(nested=True, pipeline=-1))
        return None

    def _string_part(self, node: Node, ctx: _Context) -> str | None:
        kind = node.type
        if kind in ('"', "$"):
            return ""
        if kind == "string_content":
            return _unescape_double_quoted(self._text(node))
        return self._literal(node, ctx)


_WORD_ESCAPE = re.compile(r"\\(\n|.)", re.DOTALL)
_DQ_ESCAPE = re.compile(r"\\([\\\"$`\n])")
_ANSI_C_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_ANSI_C_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
    "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _unescape_word(text: str) -> str:
    if "\\" not in text:
        return text
    return _WORD_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_double_quoted(text: str) -> str:
    if "\\" not in text:
        return text
    return _DQ_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def decode_escapes(text: str) -> str:
    """Resolve backslash escapes as ``$'...'`` (and ``printf``, ``echo -e``) do."""

    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        head = code[0]
        if head in "xuU" and len(code) > 1:
            return chr(min(int(code[1:], 16), 0x10FFFF))
        if head in "xuU":  # no hex digit follows: bash keeps the text
            return "\\" + code
        if head.isdigit():
            return chr(int(code, 8) & 0xFF)
        if head == "c":
            return chr(ord(code[1]) & 0x1F)
        return _ANSI_C_SIMPLE.get(code, "\\" + code)

    return _ANSI_C_ESCAPE.sub(escape, text)
