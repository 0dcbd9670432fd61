"""The options curl and ssh read from a config file whose text the script itself supplies.

``curl -K FILE`` (``--config``) reads one option a line, as curl 7.88 reads it: a name with or
without its dashes, then, after spaces, ``=`` or ``:``, a value (``"..."`` with backslash
escapes). When that text is in the script — ``-K -`` fed a here-string or a pipe of literal
text, ``-K <(echo ...)`` — its options are the command line's too: ``curl -K - URL <<<
'output = ~/.bashrc'`` writes the startup file ``curl -o ~/.bashrc URL`` does, which was
``approve`` where that is denied. A config file in the workspace is not read: the script may
write it before curl runs. (wget 1.21's ``--config`` reads a regular file only: a pipe or a
process substitution ends it with an error.) ``ssh -F /dev/stdin HOST <<< 'ProxyCommand
CMD'`` runs CMD here as ``ssh -o ProxyCommand=CMD HOST`` does: each ``Keyword value`` line is
read as that ``-o`` (ssh takes neither ``-`` nor a process substitution, whose descriptor it
closes).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from ._getopt import read_options
from ._written_files import WRITERS

__all__ = ["CONFIG_READERS", "config_files", "config_options"]

CONFIG_READERS = frozenset({"curl", "ssh"})
SSH_CLIENTS = frozenset({"ssh"})
"""Programs that use the keys they are given; of their arguments only a config is read."""


def ssh_configs(values: Sequence[str | None]) -> tuple[str | None, ...]:
    """The config files ``ssh -F FILE`` (``-FFILE``) reads."""
    following = itertools.pairwise((*values, None))
    return tuple(after if value == "-F" else (value or "")[2:] for value, after in following
                 if value is not None and value.startswith("-F"))  # fmt: skip


_CURL_LINE = re.compile(r"\s*([^\s=:]+)[\s=:]*(.*)")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "v": "\v"}


def config_files(name: str, values: Sequence[str | None]) -> list[str | None]:
    """The config files ``name`` (one of :data:`CONFIG_READERS`) is told to read."""
    if name in SSH_CLIENTS:
        return list(ssh_configs(values))
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
        if name in SSH_CLIENTS:
            keyword, _, value = stripped.replace("=", " ", 1).partition(" ")
            words += ["-o", f"{keyword}={value.strip()}"]
            continue
        match = _CURL_LINE.match(stripped)
        if match is None:
            continue
        option, rest = match.groups()
        words.append(option if option.startswith("-") else f"--{option}")
        if rest:
            words.append(_curl_value(rest))
    return words
