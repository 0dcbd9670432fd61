"""Programs that edit the files they are given, and awk's own redirections.

A red team wrote ``~/.bashrc`` with ``printf 'a\\n...\\nw\\n' | ed -s ~/.bashrc``, ``vim -es -c
'norm Go...' -c wq ~/.bashrc``, ``perl -pi -e '...' ~/.bashrc`` and ``awk 'BEGIN { print "x" >>
"/root/.bashrc" }'``, each ``approve`` where ``echo x >> ~/.bashrc`` is denied. What each may
write: ``ed``'s file (its commands come from its input, where ``w`` is one letter away); the
files of ``vim``/``ex`` run with commands (``-c``, ``+CMD``, ``-S``, ``-s``: batch editing);
the files ``perl -i`` edits in place; and the literal files an awk program prints into
(``print > "F"``, ``>> "F"``, ``printf ... > "F"``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["EDITORS", "edited_files"]

Words = Sequence[str | None]

_VIM = frozenset({"vim", "vi", "nvim", "ex", "view", "vim.basic", "vim.tiny"})
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
EDITORS = frozenset({"ed", "perl"}) | _VIM | _AWK
_PERL_VALUED = "IMmdDxlC0"
"""perl switches whose value is the rest of their cluster."""
_AWK_REDIRECT = re.compile(r"""(?:print|printf)\b[^;}\n]*?>>?\s*"((?:[^"\\]|\\.)*)\"""")
_VIM_VALUED = frozenset({"-c", "-S", "--cmd", "-u", "-i", "-T", "-U", "-W", "-w", "-r"})
_AWK_VALUED = frozenset({"-v", "-F", "-f", "--file", "--assign", "--field-separator"})


def _operands(values: Words, valued: frozenset[str] = frozenset()) -> list[str | None]:
    operands: list[str | None] = []
    skip = False
    for value in values:
        if skip:
            skip = False
        elif value is not None and value.startswith(("-", "+")) and value not in ("-", "--"):
            skip = value in valued
        elif value != "--":
            operands.append(value)
    return operands


def _perl_in_place(values: Words) -> list[str | None]:
    """The files ``perl -i[EXT]`` edits: its operands, after the script file when no ``-e``."""
    in_place, code, index = False, False, 0
    while index < len(values) and (values[index] or "").startswith("-") and values[index] != "--":
        cluster = (values[index] or "")[1:]
        index += 1
        for at, letter in enumerate(cluster):
            if letter == "i":
                in_place = True
                break
            if letter in "eE":
                code, index = True, index + (at == len(cluster) - 1)
                break
            if letter in _PERL_VALUED:
                break
    rest = list(values[index + (index < len(values) and values[index] == "--") :])
    files = rest if code else rest[1:]
    return files if in_place else []


def edited_files(name: str, values: Words) -> list[str | None]:
    """The files ``name`` (one of :data:`EDITORS`) may write."""
    if name == "ed":
        return _operands(values, frozenset({"-p", "--prompt"}))[:1]
    if name == "perl":
        return _perl_in_place(values)
    if name in _VIM:
        batch = any(v is None or v.startswith(("+", "-c", "-S", "-s", "-e")) for v in values)
        return _operands(values, _VIM_VALUED) if batch or name == "ex" else []
    programs = [v for v in _operands(values, _AWK_VALUED)[:1] if v is not None]
    if any(v in ("-f", "--file") or (v or "").startswith("--file=") for v in values):
        programs = []
    return [m.replace('\\"', '"') for p in programs for m in _AWK_REDIRECT.findall(p)]
