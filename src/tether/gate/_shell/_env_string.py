"""``env -S STRING`` split as GNU env (coreutils 9) splits it.

env's ``-S``/``--split-string`` has its own small syntax, not the shell's and not
``str.split``'s: single and double quotes, ``\\_`` (a separator outside double quotes, a space
inside them), ``\\t``/``\\n``/..., ``#`` at the start of a word ending the string, ``\\c``
ending it too, and ``${NAME}`` replaced by the variable's value. ``env -S 'rm\\_-rf\\_/'`` runs
``rm -rf /``: a reader that split on blanks saw one odd command name.
"""

from __future__ import annotations

import re

__all__ = ["split_env_string"]

_SPACES = " \t\n\v\f\r"
_ESCAPES = {'"': '"', "#": "#", "$": "$", "'": "'", "\\": "\\",
            "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}  # fmt: skip
_VARIABLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def split_env_string(text: str) -> tuple[str, ...] | str:
    """The words env makes of ``text``, or why they cannot be told here (a ``${NAME}``, whose
    value is env's environment's, or a string env refuses)."""
    splitter = _Splitter()
    index = 0
    while index < len(text):
        char, escaped = text[index], text[index + 1 : index + 2]
        index += 1
        quoted = splitter.single or splitter.double
        if char == "'" and not splitter.double:
            splitter.single = not splitter.single
            splitter.start()
        elif char == '"' and not splitter.single:
            splitter.double = not splitter.double
            splitter.start()
        elif char in _SPACES and not quoted:
            splitter.separated = True
        elif char == "#" and splitter.separated and not quoted:
            return tuple(splitter.words)
        elif char == "\\" and not (splitter.single and escaped not in ("\\", "'")):
            index += 1
            if escaped == "_" and not splitter.double:
                splitter.separated = True
            elif escaped == "c" and not splitter.double:
                return tuple(splitter.words)
            elif escaped in _ESCAPES or escaped == "_":
                splitter.add(_ESCAPES.get(escaped, " "))
            else:
                return "env -S: a backslash env refuses"
        elif char == "$" and not splitter.single:
            if _VARIABLE.match(text, index - 1):
                return "env -S: it expands a variable of env's environment"
            return "env -S: a `$` env refuses"
        else:
            splitter.add(char)
    if splitter.single or splitter.double:
        return "env -S: a quote is not closed"
    return tuple(splitter.words)


class _Splitter:
    def __init__(self) -> None:
        self.words: list[str] = []
        self.separated = True
        self.single = False
        self.double = False

    def start(self) -> None:
        """A new word begins, if the last character was a separator."""
        if self.separated:
            self.words.append("")
            self.separated = False

    def add(self, char: str) -> None:
        self.start()
        self.words[-1] += char
