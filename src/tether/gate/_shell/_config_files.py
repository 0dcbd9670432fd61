"""The options curl reads from a config file whose text the script itself supplies.

``curl -K FILE`` (``--config``) reads one option a line, as curl 7.88 reads it: a name with or
without its dashes, then, after spaces, ``=`` or ``:``, a value (``"..."`` with backslash
escapes). When that text is in the script — ``-K -`` fed a here-string or a pipe of literal
text, ``-K <(echo ...)`` — its options are the command line's too: ``curl -K - URL <<<
'output = ~/.bashrc'`` writes the startup file ``curl -o ~/.bashrc URL`` does, which was
``approve`` where that is denied. A config file in the workspace is not read: the script may
write it before curl runs. (wget 1.21's ``--config`` reads a regular file only: a pipe or a
process substitution ends it with an error.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._getopt import read_options
from ._written_files import WRITERS

__all__ = ["CONFIG_READERS", "config_files", "config_options"]

CONFIG_READERS = frozenset({"curl"})
_CURL_LINE = re.compile(r"\s*([^\s=:]+)[\s=:]*(.*)")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "v": "\v"}


def config_files(name: str, values: Sequence[str | None]) -> list[str | None]:
    """The config files ``name`` (one of :data:`CONFIG_READERS`) is told to read."""
    return read_options(WRITERS[name], values).values("K")


def _curl_value(text: str) -> str:
    """A curl config value: quoted with backslash escapes, or up to the first space."""
    if not text.startswith('"'):
        return text.split(maxsplit=1)[0] if text.split() else ""
    value: list[str] = []
    at = 1
    while at < len(text) and text[at] != '"':
        if text[at] == "\\" and at + 1 < len(text):
            at += 1
            value.append(_ESCAPES.get(text[at], text[at]))
        else:
            value.append(text[at])
        at += 1
    return "".join(value)


def config_options(name: str, text: str) -> list[str]:
    """The command-line words the config ``text`` of ``name`` stands for."""
    words: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _CURL_LINE.match(stripped)
        if match is None:
            continue
        option, rest = match.groups()
        words.append(option if option.startswith("-") else f"--{option}")
        if rest:
            words.append(_curl_value(rest))
    return words
