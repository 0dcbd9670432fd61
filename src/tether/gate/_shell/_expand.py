"""What bash makes of one word when everything in it is known: the fields it expands to.

:func:`expand_word` follows bash's order — brace expansion (nested, lists and sequences), tilde
expansion (``~``, ``~/``, ``~+``, ``~-``, ``~user``), parameter expansion of known variables
(``$x``, ``${x}``), ``$'...'`` and ``$"..."`` quoting, word splitting of unquoted expansions on
``IFS``, pathname expansion of absolute globs against the real filesystem, then quote removal —
and gives ``None`` as soon as anything depends on run time (an unknown variable, arithmetic, a
substitution other than ``echo``/``printf`` of literal words, an operator on an unknown value:
:mod:`._known_values`). The deny rules judge the expanded reading of each command, so
``cat {.e,}nv``, ``x='-rf /'; rm $x`` and ``cat /???/sh?dow`` are judged as bash would run them.
"""

from __future__ import annotations

import glob
import itertools
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ._budget import bounded_glob
from ._known_values import closing, operated, printed
from ._parse import decode_escapes

__all__ = ["Environment", "brace_expand", "expand_word"]

_MAX_FIELDS = 256
_MAX_GLOB_MATCHES = 64
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
_DEFAULT_IFS = " \t\n"


@dataclass(frozen=True, slots=True)
class Environment:
    """What is known when a word expands: variables, home, the working directories."""

    home: str
    variables: Mapping[str, str] = field(default_factory=dict)
    pwd: str | None = None
    oldpwd: str | None = None
    local: bool = True
    """Whether the script runs on this machine: only then do globs and ``~user`` expand here."""

    def lookup(self, name: str) -> str | None:
        if name in self.variables:
            return self.variables[name]
        return {"HOME": self.home, "PWD": self.pwd, "OLDPWD": self.oldpwd}.get(name)


# --- brace expansion -----------------------------------------------------------------------


def _skip_quoted(text: str, index: int) -> int:
    """The index after the quoted part or escape that starts at ``index``."""
    char = text[index]
    if char == "\\":
        return index + 2
    if char == "'" or text.startswith("$'", index):
        start = index + (2 if char == "$" else 1)
        while start < len(text) and text[start] != "'":
            start += 2 if char == "$" and text[start] == "\\" else 1
        return start + 1
    if char == '"' or text.startswith('$"', index):
        start = index + (2 if char == "$" else 1)
        while start < len(text) and text[start] != '"':
            start += 2 if text[start] == "\\" else 1
        return start + 1
    if text.startswith("${", index):
        depth, start = 1, index + 2
        while start < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[start], 0)
            start += 1
        return start
    return index + 1


def _quoting(text: str, index: int) -> bool:
    return text[index] in "\\'\"" or text.startswith(("$'", '$"', "${"), index)


def _brace_at(text: str, start: int) -> tuple[int, list[str]] | None:
    """For the ``{`` at ``start``: the index of its ``}`` and its alternatives, when valid."""
    depth, index, commas = 0, start + 1, [start]
    while index < len(text):
        char = text[index]
        if _quoting(text, index):
            index = _skip_quoted(text, index)
            continue
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "}":
            body = text[start + 1 : index]
            if len(commas) > 1:
                cuts = [*commas, index]
                return index, [text[a + 1 : b] for a, b in itertools.pairwise(cuts)]
            sequence = _sequence(body)
            return (index, sequence) if sequence is not None else None
        elif char == "," and not depth:
            commas.append(index)
        index += 1
    return None


def _sequence(body: str) -> list[str] | None:
    match = _SEQUENCE.match(body)
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text and int(step_text) else 1
    if first.lstrip("-").isdigit() != last.lstrip("-").isdigit():
        return None
    if first.lstrip("-").isdigit():
        a, b = int(first), int(last)
        padded = re.match(r"-?0\d", first) or re.match(r"-?0\d", last)
        width = max(len(first), len(last)) if padded else 0
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(numbers) > _MAX_FIELDS:
            return None
        return [str(n).zfill(width) if width and n >= 0 else str(n) for n in numbers]
    a, b = ord(first), ord(last)
    codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
    return [chr(c) for c in codes]


def brace_expand(text: str) -> list[str] | None:
    """``text`` (one word as written) after bash's brace expansion; ``None``: too many."""
    index = 0
    while index < len(text):
        if _quoting(text, index):
            index = _skip_quoted(text, index)
            continue
        if text[index] == "{" and text[index - 1 : index] != "$":
            found = _brace_at(text, index)
            if found is not None:
                end, alternatives = found
                head, tail = text[:index], text[end + 1 :]
                results: list[str] = []
                for alternative in alternatives:
                    expanded = brace_expand(head + alternative + tail)
                    if expanded is None or len(results) + len(expanded) > _MAX_FIELDS:
                        return None
                    results.extend(expanded)
                return results
        index += 1
    return [text]


# --- one brace-expanded word -----------------------------------------------------------------

# A piece of a word: its text, whether it is quoted, whether it came from an expansion.
_Piece = tuple[str, bool, bool]


def _pieces(text: str, env: Environment) -> list[_Piece] | None:
    pieces: list[_Piece] = []
    index = _tilde(text, env, pieces)
    if index is None:
        return None
    while index < len(text):
        char = text[index]
        if char == "\\":
            if index + 1 < len(text) and text[index + 1] != "\n":
                pieces.append((text[index + 1], True, False))
            index += 2
        elif char == "'":
            end = text.find("'", index + 1)
            if end < 0:
                return None
            pieces.append((text[index + 1 : end], True, False))
            index = end + 1
        elif text.startswith("$'", index):
            end = _skip_quoted(text, index)
            if end > len(text):
                return None
            decoded = decode_escapes(text[index + 2 : end - 1]).partition("\x00")[0]
            pieces.append((decoded, True, False))
            index = end
        elif char == '"' or text.startswith('$"', index):
            end = _skip_quoted(text, index)
            inner = text[index + (2 if char == "$" else 1) : end - 1]
            quoted = _double_quoted(inner, env)
            if quoted is None or end > len(text):
                return None
            pieces.append((quoted, True, False))
            index = end
        elif char == "`" or text.startswith("$(", index):
            found = _substitution(text, index)
            if found is None:
                return None
            value, index = found
            pieces.append((value, False, True))
        elif char == "$":
            found = _parameter(text, index, env)
            if found is None:
                return None
            value, index = found
            pieces.append((value, False, True))
        else:
            pieces.append((char, False, False))
            index += 1
    return pieces


def _tilde(text: str, env: Environment, pieces: list[_Piece]) -> int | None:
    if not text.startswith("~"):
        return 0
    end = text.find("/")
    prefix = text[1 : end if end >= 0 else len(text)]
    if any(c in prefix for c in "\\'\"$`"):
        return 0
    if prefix == "":
        value: str | None = env.home
    elif prefix == "+":
        value = env.pwd
    elif prefix == "-":
        value = env.oldpwd
    elif _NAME.fullmatch(prefix.replace("-", "_").replace(".", "_")):
        if not env.local:
            return None  # another host's users
        expanded = posixpath.expanduser("~" + prefix)
        value = None if expanded.startswith("~") else expanded
        if value is None:
            return 0
    else:
        return 0
    if value is None:
        return None
    pieces.append((value, True, False))
    return 1 + len(prefix)


def _substitution(text: str, index: int) -> tuple[str, int] | None:
    """What the ``$(...)`` or backquoted substitution at ``index`` prints, when known
    (:func:`~._known_values.printed`), and where it ends."""
    if text.startswith("$((", index):
        return None
    if text[index] == "`":
        end = text.find("`", index + 1)
        inner = text[index + 1 : end] if end > 0 and "\\" not in text[index:end] else None
    else:
        end = closing(text, index + 2) or -1
        inner = text[index + 2 : end] if end > 0 else None
    value = printed(inner) if inner is not None else None
    return None if value is None else (value, end + 1)


def _parameter(text: str, index: int, env: Environment) -> tuple[str, int] | None:
    """The value of the parameter at ``index`` (``$x``, ``${x}``, ``${x%/}``) and its end."""
    if text.startswith("${", index):
        end = text.find("}", index)
        name = text[index + 2 : end] if end > 0 else ""
        if not _NAME.fullmatch(name):
            value = operated(name, env.lookup) if name else None
            return None if value is None else (value, end + 1)
        after = end + 1
    else:
        match = _NAME.match(text, index + 1)
        if match is None:
            return ("$", index + 1) if index + 1 >= len(text) else None
        name, after = match.group(0), match.end()
    value = env.lookup(name)
    return None if value is None else (value, after)


def _double_quoted(inner: str, env: Environment) -> str | None:
    out: list[str] = []
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" and index + 1 < len(inner) and inner[index + 1] in '$`"\\\n':
            if inner[index + 1] != "\n":
                out.append(inner[index + 1])
            index += 2
        elif char == "`" or inner.startswith("$(", index):
            found = _substitution(inner, index)
            if found is None:
                return None
            value, index = found
            out.append(value)
        elif char == "$" and index + 1 < len(inner) and (inner[index + 1] in "{_" or
                                                         inner[index + 1].isalpha()):  # fmt: skip
            found = _parameter(inner, index, env)
            if found is None:
                return None
            value, index = found
            out.append(value)
        elif char == "$" and index + 1 < len(inner) and inner[index + 1] not in " \t\n":
            return None
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _split(pieces: list[_Piece], ifs: str) -> list[list[tuple[str, bool]]]:
    """Fields of characters with whether each is quoted (glob characters in quotes are not)."""
    fields: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    content = pending = False
    for text, quoted, expanded in pieces:
        if quoted or not expanded:
            current.extend((c, quoted) for c in text)
            content = content or quoted or bool(text)
            pending = pending and not text
            continue
        for char in text:
            if char not in ifs:
                current.append((char, False))
                content, pending = True, False
            elif char in " \t\n":
                if content:
                    fields.append(current)
                    current, content, pending = [], False, True
            elif pending:
                pending = False
            else:
                fields.append(current)
                current, content = [], False
    if content:
        fields.append(current)
    return fields


def _glob(field_chars: list[tuple[str, bool]], local: bool) -> list[str]:
    """The paths a glob matches here; on another host (``local`` false) the pattern itself,
    which the rules read as a glob."""
    text = "".join(c for c, _ in field_chars)
    active = any(c in "*?[" and not quoted for c, quoted in field_chars)
    if not active or not text.startswith("/") or not local:
        return [text]
    pattern = "".join(c if not quoted else glob.escape(c) for c, quoted in field_chars)
    matches = bounded_glob(pattern, _MAX_GLOB_MATCHES)
    return matches or [text]


def expand_word(raw: str, env: Environment, *, split: bool = True) -> list[str] | None:
    """The fields bash expands the word ``raw`` (as written) into, or ``None`` when that depends
    on run time. ``split=False``: an assignment value (one field, no splitting or globs)."""
    words = brace_expand(raw) if split else [raw]
    if words is None:
        return None
    ifs = env.variables.get("IFS", _DEFAULT_IFS)
    fields: list[str] = []
    for word in words:
        pieces = _pieces(word, env)
        if pieces is None:
            return None
        if not split:
            fields.append("".join(text for text, _, _ in pieces))
            continue
        for chars in _split(pieces, ifs):
            fields.extend(_glob(chars, env.local))
        if len(fields) > _MAX_FIELDS:
            return None
    return fields
