"""What a script runs by indirection, spelled out so the deny rules can read it.

Each reading is the script with one indirection resolved, as bash would resolve it at run time:

- a shell function called with literal arguments: its body with ``$1``..``$9``, ``$@``, ``$*``
  replaced by them (``f(){ rm -rf "$1"; }; f ~`` runs ``rm -rf ~``);
- a case-changing or quoting-free expansion of a variable: ``${HOME,,}``, ``${HOME^^}``,
  ``${HOME@L}`` are read as ``${HOME}`` (the policy knows ``$HOME``);
- a substitution that only prints literal text: ``$(echo ~)``, ``$(printf %s /)``, backticks;
- a symlink the script made earlier: after ``ln -s ~ h``, ``h`` and ``h/...`` are read as ``~``
  (the first eight links and function calls; more only cost time).

The readings are evidence only: the policy denies when one of them is denied, and never allows
on their strength.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable

from tree_sitter import Node

__all__ = ["indirect_readings"]

_CASE_EXPANSION = re.compile(r"\$\{(\w+)(?:,,|,|\^\^|\^|~~|~|@[LUuaEAK]?)\}")
_ECHOED = re.compile(
    r"\$\(\s*(?:echo(?:\s+-[neE]+)?|printf\s+(?:'%s'|\"%s\"|%s))\s+([^()`;|&<>$]*?)\s*\)|"
    r"`\s*echo\s+([^`;|&<>$]*?)\s*`"
)
_LINK = re.compile(
    r"(?:^|[;&|\n]\s*)ln\s+(?:-[a-zA-Z]*s[a-zA-Z]*\s+)+(\S+)\s+([\w.-]+)/?(?=\s|$|;)"
)
_POSITIONAL = re.compile(r"\"?\$(?:\{([1-9@*])\}|([1-9@*]))\"?")
_PLAIN = re.compile(r"[\w./~+=:,@%-]*")
_MAX_EACH = 8
"""Links and function calls spelled out per script; past them the script is ``approve`` anyway
(neither ``ln`` nor a function is provably read-only), only no longer checked for a deny."""


def indirect_readings(text: str, root: Node | None, source: bytes) -> list[str]:
    """The script with its indirections resolved, one reading per kind found."""
    readings = []
    if "${" in text:
        readings.append(_CASE_EXPANSION.sub(r"${\1}", text))
    if ("$(" in text or "`" in text) and ("echo" in text or "printf" in text):
        readings.append(_ECHOED.sub(_echoed, text))
    if "ln" in text:
        readings.append(_unlinked(text))
    if root is not None and (re.search(rb"\(\s*\)", source) or b"function" in source):
        readings += _function_calls(root, source)
    return [reading for reading in dict.fromkeys(readings) if reading != text]


def _echoed(match: re.Match[str]) -> str:
    return (match.group(1) if match.group(1) is not None else match.group(2)).strip()


def _unlinked(text: str) -> str:
    """``ln -s TARGET NAME; ... NAME/`` read as ``... TARGET/``."""
    for match in list(itertools.islice(_LINK.finditer(text), _MAX_EACH)):
        target, name = match.group(1), re.escape(match.group(2))
        before, after = text[: match.end()], text[match.end() :]
        after = re.sub(
            rf"(?<![\w./-])(?:\./)?{name}(?=/|\s|$|;)", target.replace("\\", r"\\"), after
        )
        text = before + after
    return text


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _function_calls(root: Node, source: bytes) -> list[str]:
    """Each call of a function the script defines, with literal arguments, as its body."""
    bodies: dict[str, str] = {}
    calls: list[tuple[str, list[str]]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            named, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if named is not None and body is not None:
                inner = _text(body, source).strip()
                bodies[_text(named, source)] = inner[1:-1] if inner[:1] in "{(" else inner
        elif node.type == "command":
            words = [_text(child, source) for child in node.named_children]
            if words:
                calls.append((words[0], words[1:]))
        stack.extend(node.children)
    readings: list[str] = []
    for called, args in [call for call in calls if call[0] in bodies][:_MAX_EACH]:
        code = bodies.get(called)
        if code is None or not all(_PLAIN.fullmatch(arg) for arg in args):
            continue
        readings.append(_POSITIONAL.sub(_filler(args), code))
    return readings


def _filler(args: list[str]) -> Callable[[re.Match[str]], str]:
    """What bash puts in place of ``$1``/``$@``/... for a call with these arguments."""

    def fill(match: re.Match[str]) -> str:
        which = match.group(1) or match.group(2)
        if which in "@*":
            return " ".join(args)
        position = int(which) - 1
        return args[position] if position < len(args) else shlex.quote("")

    return fill
