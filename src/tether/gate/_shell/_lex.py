"""Bash's own reading of a script's words, for the deny rules: a small lexer faithful to bash.

tree-sitter-bash and bash part ways on a few characters — tree-sitter reads CR, VT, FF, NBSP
and an escaped blank as blanks, starts a comment at any ``#`` after them, keeps backslash-newline
inside the tree and recovers from parse errors by skipping text — and a payload hidden in that
gap is invisible to rules that walk the tree. :func:`as_bash_reads_it` splits the whole text as bash
does — backslash-newline removed outside single quotes, quoting (``'…'``, ``"…"``, ``\\x``),
blanks are only space and tab, a comment starts only at the start of a word, CR and every other
character are word characters, heredoc bodies skipped as bash skips them, ``$(…)``, backticks
and ``<(…)``/``>(…)`` lexed as scripts of their own — and spells the tokens again in a form on
which tree-sitter agrees with bash: a text the deny rules can judge like any other.
"""

from __future__ import annotations

import re

from ._budget import MAX_DEPTH, TooComplex

__all__ = ["as_bash_reads_it", "bash_commands", "differs_from_the_parser"]

_SEPARATORS = frozenset(";&|")
_PARENTHESES = frozenset("()")
_SAFE = frozenset(chr(c) for c in range(0x21, 0x7F)) - frozenset("#'\"\\`$;&|()<> ")
_SAFE_RUN = re.compile("[" + re.escape("".join(sorted(_SAFE))) + "]+")  # taken whole, not by char


def _end_of_plain(text: str, start: int) -> int:
    """Where the run of plain word characters that starts at ``start`` ends."""
    run = _SAFE_RUN.match(text, start)
    return run.end() if run else start + 1


def differs_from_the_parser(text: str) -> bool:
    """Whether ``text`` holds something tree-sitter may read otherwise than bash: a CR or another
    character outside printable ASCII, a ``#``, a backslash before a newline or a blank."""
    if "#" in text or "\\\n" in text or "\\ " in text or "\\\t" in text:
        return True
    return any(not (" " <= c <= "~" or c in "\t\n") for c in text)


def as_bash_reads_it(text: str) -> str:
    """``text`` re-spelled token by token as bash splits it, in a form tree-sitter reads the
    same way: comments, line continuations and heredoc bodies gone (a heredoc reads
    ``/dev/null``), every character bash takes as part of a word but tree-sitter might not
    (``#`` inside a word, CR, VT, NBSP, an escaped blank) single-quoted, substitutions
    re-spelled inside."""
    lexer = _Lexer(text)
    lexer.run()
    return lexer.spelled()


_RESERVED = frozenset({"!", "{", "}", "do", "done", "then", "else", "elif", "fi", "esac"})


def bash_commands(text: str) -> list[str]:
    """The top-level commands of ``text`` as bash splits it, each re-spelled as by
    :func:`as_bash_reads_it`, without repeats: the pieces a list separator (``;``, ``&``,
    ``&&``, ``||``, a newline) ends — a pipeline stays whole —, leading reserved words dropped."""
    lexer = _Lexer(text)
    lexer.run()
    commands: dict[str, None] = {}
    words: list[str] = []
    for token in [*lexer.tokens, ";"]:
        if token == "\n" or (token.strip(";&|") == "" and token not in ("|", "|&")):
            while words and words[0] in _RESERVED:
                words.pop(0)
            if words:
                commands.setdefault(" ".join(words))
            words = []
        else:
            words.append(token)
    return list(commands)


class _Lexer:
    def __init__(self, text: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"substitutions nested more than {MAX_DEPTH} deep")
        self._depth = depth
        self._text = text
        self._index = 0
        self._tokens: list[str] = []
        self._word: list[str] | None = None
        self._heredocs: list[tuple[str, bool]] = []

    @property
    def tokens(self) -> list[str]:
        return self._tokens

    def spelled(self) -> str:
        return " ".join(self._tokens).replace(" \n ", "\n")

    def run(self) -> None:
        text = self._text
        while self._index < len(text):
            char = text[self._index]
            if char in _SAFE:  # most of a script: a run of plain word characters, taken whole
                end = _end_of_plain(text, self._index)
                self._append(text[self._index : end])
                self._index = end
            elif char in " \t":
                self._end_word()
                self._index += 1
            elif char == "\\":
                self._backslash()
            elif char == "'":
                end = text.find("'", self._index + 1)
                end = len(text) if end < 0 else end + 1
                self._append(text[self._index : end])
                self._index = end
            elif char == '"':
                self._double_quoted()
            elif char == "$" and text[self._index + 1 : self._index + 2] == "(":
                self._append("$(" + self._substitution(self._index + 2) + ")")
            elif char == "`":
                end = _closing_backquote(text, self._index + 1)
                self._append("$(" + self._respelled(text[self._index + 1 : end]) + ")")
                self._index = end + 1
            elif char == "#" and self._word is None:
                newline = text.find("\n", self._index)
                self._index = len(text) if newline < 0 else newline
            elif char in "<>" and text[self._index + 1 : self._index + 2] == "(":
                self._end_word()
                self._append(char + "(" + self._substitution(self._index + 2) + ")")
            elif char in "<>":
                self._redirection()
            elif char in _SEPARATORS:
                self._end_word()
                start = self._index
                while self._index < len(text) and text[self._index] in _SEPARATORS:
                    self._index += 1
                self._tokens.append(text[start : self._index])
            elif char in _PARENTHESES or char == "\n":
                self._end_word()
                self._tokens.append(char)
                self._index += 1
                if char == "\n":
                    self._skip_heredoc_bodies()
            else:
                self._append("$" if char == "$" else "'" + char + "'")
                self._index += 1
        self._end_word()

    # --- words --------------------------------------------------------------------------------

    def _append(self, part: str) -> None:
        if self._word is None:
            self._word = []
        self._word.append(part)

    def _end_word(self) -> None:
        if self._word is not None:
            self._tokens.append("".join(self._word))
            self._word = None

    def _backslash(self) -> None:
        text, index = self._text, self._index
        escaped = text[index + 1 : index + 2]
        self._index += 2
        if escaped == "\n":  # a line continuation: gone before words form
            return
        self._append("\\'" if escaped == "'" else "'" + escaped + "'" if escaped else "\\")

    def _double_quoted(self) -> None:
        text = self._text
        parts = ['"']
        index = self._index + 1
        while index < len(text) and text[index] != '"':
            char = text[index]
            if char == "\\" and text[index + 1 : index + 2] == "\n":
                index += 2
            elif char == "\\":
                parts.append(text[index : index + 2])
                index += 2
            elif char == "$" and text[index + 1 : index + 2] == "(":
                end = _closing(text, index + 2)
                parts.append("$(" + self._respelled(text[index + 2 : end]) + ")")
                index = end + 1
            elif char == "`":
                end = _closing_backquote(text, index + 1)
                parts.append("$(" + self._respelled(text[index + 1 : end]) + ")")
                index = end + 1
            else:
                parts.append(char)
                index += 1
        parts.append('"')
        self._append("".join(parts))
        self._index = index + 1

    def _substitution(self, start: int) -> str:
        """``$(…)``, ``<(…)``, ``>(…)``: the inner text, re-spelled as a script of its own."""
        end = _closing(self._text, start)
        self._index = end + 1
        return self._respelled(self._text[start:end])

    def _respelled(self, inner: str) -> str:
        lexer = _Lexer(inner, self._depth + 1)
        lexer.run()
        return lexer.spelled()

    # --- redirections and heredocs -------------------------------------------------------------

    def _redirection(self) -> None:
        """The operator (with its descriptor) is a token of its own; ``<<`` (not ``<<<``) becomes
        ``</dev/null`` and queues its body, which bash reads after the next newline."""
        text = self._text
        digits = self._word is not None and all(part.isdigit() for part in self._word)
        descriptor = "".join(self._word or []) if digits else ""
        if digits:
            self._word = None
        self._end_word()
        start = self._index
        while self._index < len(text) and text[self._index] in "<>&|-":
            if text[self._index] == "-" and text[start : self._index] != "<<":
                break
            self._index += 1
        operator = text[start : self._index]
        if not operator.startswith("<<") or operator.startswith("<<<"):
            self._tokens.append(descriptor + operator)
            return
        while self._index < len(text) and text[self._index] in " \t":
            self._index += 1
        delimiter_start = self._index
        while self._index < len(text) and text[self._index] not in " \t\n;&|()<>":
            self._index += 2 if text[self._index] == "\\" else 1
        raw = text[delimiter_start : self._index]
        delimiter = raw.replace("\\", "").replace("'", "").replace('"', "")
        self._heredocs.append((delimiter, operator == "<<-"))
        self._tokens.append(descriptor + "</dev/null")  # where the body would be read from

    def _skip_heredoc_bodies(self) -> None:
        text = self._text
        for delimiter, strip_tabs in self._heredocs:
            while self._index < len(text):
                newline = text.find("\n", self._index)
                end = len(text) if newline < 0 else newline
                line = text[self._index : end]
                self._index = end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self._heredocs = []


def _closing(text: str, start: int) -> int:
    """The index of the ``)`` that closes a ``(`` just before ``start`` (quotes respected), or
    the end of the text."""
    depth = 1
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = text.find("'", index + 1)
            index = len(text) if end < 0 else end + 1
            continue
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
            index += 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return len(text)


def _closing_backquote(text: str, start: int) -> int:
    index = start
    while index < len(text) and text[index] != "`":
        index += 2 if text[index] == "\\" else 1
    return min(index, len(text))
