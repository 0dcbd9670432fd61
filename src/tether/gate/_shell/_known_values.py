"""Expansions whose value is known before the script runs, beyond a plain ``$x``.

A red team spelled the home as ``${HOME%/}``, ``${HOME/x/y}`` and ``$(printf '/%s' root)``, and
``~/.ssh/id_rsa`` as ``$(printf '/root/.ssh/id_%s' rsa)``: each was ``approve`` where ``rm -rf
~`` and ``cat ~/.ssh/id_rsa`` are denied, because any operator or substitution made the word
unknown. :func:`operated` gives bash's value of ``${NAME%PAT}``, ``%%``, ``#``, ``##``,
``/PAT/REP``, ``//``, ``/#``, ``/%``, ``:-``, ``-``, ``:+``, ``+`` and ``:OFFSET[:LENGTH]``
when NAME is set by the script (or is the home) and the words are known; :func:`printed`
what a substitution ``$(echo ...)`` or ``$(printf ...)`` of literal words prints (trailing
newlines removed, as bash does). Anything else stays unknown (``None``), and the walk judges it
as before.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from ._parse import decode_escapes

__all__ = ["closing", "operated", "printed"]

_OPERATOR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(%%|%|##|#|//|/#|/%|/|:-|-|:\+|\+|:)(.*)", re.S)
_UNKNOWN = re.compile(r"[$`\\\"']")
_SHELL_SYNTAX = re.compile(r"[$`;&|<>(){}*?\[\]~\\\n]")
_DIRECTIVE = re.compile(r"%(%|([-+ #0]*)(\d*)(?:\.(\d+))?[sbdiqc])")


def _pattern(pattern: str) -> re.Pattern[str]:
    """A bash glob pattern (``*``, ``?``, ``[...]``) as a regular expression."""
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        end = pattern.find("]", index + 2) if char == "[" else -1
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif end > 0:
            body = pattern[index + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out), re.S)


def _removed(value: str, operator: str, pattern: str) -> str:
    regex = _pattern(pattern)
    ends = range(len(value) + 1)
    if operator in ("#", "##"):
        order = ends if operator == "#" else reversed(ends)
        cut = next((i for i in order if regex.fullmatch(value[:i])), None)
        return value if cut is None else value[cut:]
    order = reversed(ends) if operator == "%" else ends
    cut = next((i for i in order if regex.fullmatch(value[i:])), None)
    return value if cut is None else value[:cut]


def _replaced(value: str, operator: str, word: str) -> str:
    pattern, _, replacement = word.partition("/")
    regex = _pattern(pattern).pattern
    if operator == "/#":
        regex = "^(?:" + regex + ")"
    elif operator == "/%":
        regex = "(?:" + regex + ")$"
    count = 0 if operator == "//" else 1

    def substituted(match: re.Match[str]) -> str:  # bash 5.2: & is the match, \& an ampersand
        return re.sub(r"\\&|&", lambda m: match[0] if m[0] == "&" else "&", replacement)

    return re.sub(regex, substituted, value, count=count, flags=re.S) if pattern else value


def operated(body: str, lookup: Callable[[str], str | None]) -> str | None:
    """The value of ``${body}`` where ``body`` applies an operator to a known variable, or
    ``None`` when that depends on run time (an unknown variable, a quoted or expanding word)."""
    match = _OPERATOR.fullmatch(body)
    if match is None or _UNKNOWN.search(match.group(3)):
        return None
    name, operator, word = match.groups()
    value = lookup(name)
    if value is None:  # not set by the script: the environment may hold anything
        return None
    if operator in (":-", "-", ":+", "+"):
        unset = operator.startswith(":") and not value
        if operator.endswith("-"):
            return word if unset else value
        return "" if unset else word
    if operator in ("%", "%%", "#", "##"):
        return _removed(value, operator, word)
    if operator.startswith("/"):
        return _replaced(value, operator, word)
    offset, _, length = word.partition(":")
    if not re.fullmatch(r"\s*\d+\s*", offset) or (length and not re.fullmatch(r"\d+", length)):
        return None
    start = int(offset)
    return value[start : start + int(length)] if length else value[start:]


def closing(text: str, start: int) -> int | None:
    """The index of the ``)`` that closes the substitution whose text begins at ``start``."""
    depth, index = 1, start
    while index < len(text):
        char = text[index]
        if char == "'":
            index = text.find("'", index + 1)
            if index < 0:
                return None
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0:
                return index
        index += 1
    return None


def _printf(words: list[str]) -> str:
    """bash's ``printf FORMAT ARGS`` for ``%s``, ``%b``, ``%d``, ``%c``, ``%q`` and ``%%``, the
    format used again while arguments are left."""
    if not words:
        return ""
    words = words[1:] if words[:1] == ["--"] else words
    if not words:
        return ""
    form, args = decode_escapes(words[0]), list(words[1:])
    out: list[str] = []
    while True:
        used, at = 0, 0
        for match in _DIRECTIVE.finditer(form):
            out.append(form[at : match.start()])
            at = match.end()
            if match.group(1) == "%":
                out.append("%")
                continue
            argument = args[used] if used < len(args) else ""
            used += 1
            text, stop = _formatted(match, argument)
            out.append(text)
            if stop:  # \c in a %b argument ends all output
                return "".join(out)
        out.append(form[at:])
        args = args[used:]
        if not args or not used:
            return "".join(out)


def _formatted(match: re.Match[str], argument: str) -> tuple[str, bool]:
    r"""One directive's text, and whether it ends the output (``\c`` in a ``%b`` argument)."""
    flags, width, precision = match.group(2) or "", match.group(3), match.group(4)
    kind = match.group(1)[-1]
    stop = kind == "b" and "\\c" in argument
    if kind == "b":
        argument = decode_escapes(argument.partition("\\c")[0])
    elif kind == "c":
        argument = argument[:1]
    if precision is not None and kind in "sb":
        argument = argument[: int(precision)]
    if width:
        argument = argument.ljust(int(width)) if "-" in flags else argument.rjust(int(width))
    return argument, stop


def printed(command: str) -> str | None:
    """What ``$(command)`` gives when it is ``echo`` or ``printf`` of literal words."""
    unquoted = re.sub(r"'[^']*'", "", command)
    if _SHELL_SYNTAX.search(unquoted) or '"' in unquoted:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] not in ("echo", "printf"):
        return None
    if words[0] == "printf":
        return _printf(words[1:]).rstrip("\n")
    flags = ""
    while len(words) > 1 and re.fullmatch(r"-[neE]+", words[1]):
        flags += words.pop(1)
    text = " ".join(words[1:])
    if "e" in flags and "\\c" in text:  # echo -e stops at \c, before its newline
        return decode_escapes(text.partition("\\c")[0])
    return (decode_escapes(text) if "e" in flags else text).rstrip("\n")
