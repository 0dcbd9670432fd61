"""The commands a git command line itself names for git to run: ``--upload-pack=CMD`` / ``-u CMD``
(clone, fetch, ls-remote, pull: run through a shell for a local repository), ``--receive-pack``
and ``--exec`` (push, send-pack, archive), an ``ext::CMD`` remote (the ext transport runs CMD,
with ``% `` for a space), and the value of a config key that names a program, set with ``-c`` or
``git config`` (``core.editor``, ``gpg.program``, ``remote.NAME.uploadpack``...). Each was
``approve`` (unasked in yolo mode) where ``git -c core.sshCommand='rm -rf ~' fetch`` is denied.
Their values are judged as the commands they are, so ``git -c core.editor=true rebase
--continue`` stays a person's call and ``core.editor='rm -rf ~'`` is denied.
"""

from __future__ import annotations

import itertools
import re
import shlex

from ._call import GIT_GLOBAL_VALUED, Values, git_subcommand

__all__ = ["git_programs"]

_COMMAND_OPTIONS = ("--upload-pack", "--receive-pack", "--exec")
_KEY_NAMES_PROGRAM = re.compile(
    r"^(core\.editor|sequence\.editor|gpg\.program|gpg\..+\.program|(diff|merge)tool\..+\.cmd|"
    r"remote\..+\.(uploadpack|receivepack)|sendemail\..*cmd|interactive\.difffilter|"
    r"web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|gpg\.ssh\.defaultkeycommand|"
    r"core\.alternaterefscommand)$",
    re.I,
)
"""Config keys whose value is a program git runs; the blanket ones (``core.pager``, hooks,
filters...) are denied outright by the rules."""


def git_programs(values: Values) -> list[str]:
    """The shell commands ``git`` with these arguments runs by its own options, remotes and
    config values. git takes any unambiguous prefix of a long option (``--upload-p=CMD``), so
    every prefix counts."""
    scripts: list[str] = []
    short_u = git_subcommand(values)[0] in ("clone", "ls-remote")  # elsewhere -u is a flag
    for value, following in itertools.pairwise((*values, None)):
        if value is None:
            continue
        option, eq, attached = value.partition("=")
        named = len(option) > 3 and any(o.startswith(option) for o in _COMMAND_OPTIONS)
        if named or (option == "-u" and short_u):
            script = attached if eq else following
            scripts += [script] if script else []
        elif value.startswith("ext::"):
            scripts.append(_ext_command(value[5:]))
        elif value in ("-c", "--config") and following is not None:
            key, eq, setting = following.partition("=")
            scripts += [setting] if eq and setting and _KEY_NAMES_PROGRAM.match(key) else []
    return scripts + _configured(values)


def _ext_command(spec: str) -> str:
    """The command line ``ext::`` runs, as a shell would quote it: spaces separate arguments,
    ``% `` is a space inside one, ``%%`` a percent sign."""
    arguments: list[str] = [""]
    index = 0
    while index < len(spec):
        pair = spec[index : index + 2]
        if pair in ("% ", "%%"):
            arguments[-1] += pair[1]
            index += 2
            continue
        if spec[index] == " ":
            arguments.append("")
        else:
            arguments[-1] += spec[index]
        index += 1
    return shlex.join(a for a in arguments if a)


_CONFIG_VALUED = GIT_GLOBAL_VALUED | {"-f", "--file", "--blob", "--type", "--default", "--comment",
                                      "--value"}  # fmt: skip


def _configured(values: Values) -> list[str]:
    """``git config [--global] KEY VALUE`` of a key that names a program: its VALUE."""
    words: list[str] = []
    skip = False
    for value in values:  # options and their values out: --type path, -f FILE, --blob B
        if skip or value is None:
            skip = False
            continue
        skip = value in _CONFIG_VALUED
        if not value.startswith("-"):
            words.append(value)
    if "config" not in words:
        return []
    after = words[words.index("config") + 1 :]
    after = after[1:] if after[:1] == ["set"] else after
    if len(after) >= 2 and _KEY_NAMES_PROGRAM.match(after[0]):
        return [after[1]]
    return []
