"""Programs that run other programs: where, in their arguments, the command they run is.

:func:`unwrap` reads one command's literal argument values and says what it runs: the index
of an argument vector it executes (``strace -f rm -rf /`` runs ``rm -rf /``) and the shell
scripts it hands to a shell (``script -c``, ``watch``, ``ssh HOST CMD``, ``tmux new CMD``,
``gdb -ex 'shell CMD'``, ``vim -c '!CMD'``, ``tar --to-command``, ``zip -TT``, ``trap CMD EXIT``
...). The shell policy then judges those as if they were written at the top level.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ._shell_parse import Values

__all__ = ["WRAPPERS", "Unwrapped", "unwrap"]


class Unwrapped(NamedTuple):
    argv: int | None
    """Index of the first argument of the command it executes, if it executes one."""
    scripts: tuple[str, ...]
    """Shell code it runs."""
    why: str


def _skip(values: Values, start: int, valued: frozenset[str], short_valued: str = "") -> int:
    """Index of the first operand at or after ``start``, past options (``--`` ends them)."""
    index = start
    while index < len(values):
        value = values[index]
        if value is None or not value.startswith("-") or value == "-":
            return index
        index += 1
        if value == "--":
            return index
        option = value.partition("=")[0]
        if "=" in value and option.startswith("--"):
            continue
        if option in valued or (
            not option.startswith("--") and value[-1] in short_valued and len(value) >= 2
        ):
            index += 1
    return index


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _joined(values: Values, start: int) -> tuple[str, ...]:
    rest = values[start:]
    return (" ".join(v or "" for v in rest),) if rest and None not in rest else ()


def _argv(values: Values, valued: str, short: str = "", extra: int = 0) -> Unwrapped:
    index = _skip(values, 0, _words(valued), short) + extra
    return Unwrapped(index if index < len(values) else None, (), "runs a command")


def _watch(values: Values) -> Unwrapped:
    index = _skip(values, 0, _words("-n --interval -q --equexit"), "nq")
    if any(v in ("-x", "--exec") for v in values[:index]):
        return Unwrapped(index, (), "runs a command repeatedly")
    return Unwrapped(None, _joined(values, index), "runs a shell command repeatedly")


def _flock(values: Values) -> Unwrapped:
    index = _skip(values, 0, _words("-w --timeout -E --conflict-exit-code"), "wE")
    rest = values[index + 1 :]
    for position, value in enumerate(rest):
        if value in ("-c", "--command") and position + 1 < len(rest):
            script = rest[position + 1]
            return Unwrapped(None, (script,) if script is not None else (), "runs a shell command")
    after = _skip(values, index + 1, _words("-w --timeout -E --conflict-exit-code"), "wE")
    return Unwrapped(after if after < len(values) else None, (), "runs a command under a lock")


def _script(values: Values) -> Unwrapped:
    scripts: list[str] = []
    for index, value in enumerate(values):
        if value is None:
            continue
        if value.startswith("--command="):
            scripts.append(value.partition("=")[2])
        elif (value == "--command" or re.fullmatch(r"-[a-zA-Z]*c", value)) and index + 1 < len(
            values
        ):
            following = values[index + 1]
            scripts += [following] if following is not None else []
        elif re.fullmatch(r"-[a-zA-Z]*c.+", value) and not value.startswith("--"):
            scripts.append(value[value.index("c") + 1 :])
    return Unwrapped(None, tuple(scripts), "runs a shell command in a terminal")


def _parallel(values: Values) -> Unwrapped:
    index = _skip(values, 0, _words("-j --jobs -N -n -S --sshlogin -a --arg-file -d -I -P"), "")
    if ":::" not in values[index:] or None in values:
        return Unwrapped(None, _joined(values, index), "runs commands in parallel")
    separator = values.index(":::", index)
    command = " ".join(v or "" for v in values[index:separator])
    return Unwrapped(
        None,
        tuple(f"{command} {arg}" for arg in values[separator + 1 :] if arg != ":::"),
        "runs commands in parallel",
    )


def _tmux(values: Values) -> Unwrapped:
    index = _skip(values, 0, _words("-L -S -f -c -T"), "LSfcT")
    if index >= len(values):
        return Unwrapped(None, (), "starts a terminal multiplexer")
    subcommand = values[index]
    after = _skip(values, index + 1, _words("-s -n -c -t -x -y -e -F -f -l -p -w"), "snctxyeFflpw")
    if subcommand in ("run-shell", "run", "new-session", "new", "new-window", "neww",
                      "split-window", "splitw", "respawn-pane", "respawnp"):  # fmt: skip
        return Unwrapped(None, _joined(values, after), "runs a shell command in tmux")
    return Unwrapped(None, (), f"tmux {subcommand}")


def _ssh(values: Values) -> Unwrapped:
    index = _skip(
        values, 0, _words("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B"),
        "bcDEeFIiJLlmOopQRSWwB",
    )  # fmt: skip
    return Unwrapped(None, _joined(values, index + 1), "runs a command on another machine")


_SHELL_ESCAPE = re.compile(r"^\s*:?\s*(?:!|shell\s+|sh\s+|call\s+system\()(.*)$", re.S)


def _escapes(values: Values, options: frozenset[str], plus: bool = False) -> Unwrapped:
    """Shell commands given as editor/debugger commands (``-c '!cmd'``, ``-ex 'shell cmd'``)."""
    commands: list[str] = []
    for index, value in enumerate(values):
        if value is None:
            continue
        option, eq, attached = value.partition("=")
        if option in options and eq:
            commands.append(attached)
        elif value in options and index + 1 < len(values):
            commands += [values[index + 1] or ""]
        elif plus and value.startswith("+"):
            commands.append(value[1:])
    scripts = []
    for command in commands:
        match = _SHELL_ESCAPE.match(command)
        if match:
            scripts.append(match.group(1).rstrip(")\"' "))
    return Unwrapped(None, tuple(scripts), "runs editor or debugger commands")


_SPAWN = re.compile(r"(?:^|[;\n{]\s*)(?:spawn|exec|system)\s+(?:-\w+\s+)*([^;\n}]+)")


def _expect(values: Values) -> Unwrapped:
    scripts: list[str] = []
    for index, value in enumerate(values):
        if value == "-c" and index + 1 < len(values):
            scripts += [m.group(1) for m in _SPAWN.finditer(values[index + 1] or "")]
    return Unwrapped(None, tuple(scripts), "runs an expect script")


_TAR_PROGRAMS = ("--to-command", "--use-compress-program", "--info-script",
                 "--new-volume-script", "--rsh-command")  # fmt: skip


def _tar(values: Values) -> Unwrapped:
    scripts: list[str] = []
    for index, value in enumerate(values):
        if value is None or not value.startswith("-"):
            continue
        option, eq, attached = value.partition("=")
        following = values[index + 1] if index + 1 < len(values) else None
        argument = attached if eq else following
        if len(option) > 4 and any(p.startswith(option) for p in _TAR_PROGRAMS):
            scripts += [argument] if argument is not None else []
        elif len(option) > 4 and "--checkpoint-action".startswith(option) and argument:
            kind, _, command = argument.partition("=")
            if kind == "exec":
                scripts.append(command)
        elif option in ("-I", "-F") and following is not None:
            scripts.append(following)
    return Unwrapped(None, tuple(scripts), "runs programs while archiving")


def _zip(values: Values) -> Unwrapped:
    scripts: list[str] = []
    for index, value in enumerate(values):
        option, eq, attached = (value or "").partition("=")
        if option in ("-TT", "--unzip-command"):
            argument = attached if eq else values[index + 1] if index + 1 < len(values) else None
            scripts += [argument] if argument is not None else []
    return Unwrapped(None, tuple(scripts), "runs a program to test the archive")


def _trap(values: Values) -> Unwrapped:
    if len(values) >= 2 and values[0] is not None and values[0] not in ("-", "--", "-p", "-l"):
        return Unwrapped(None, (values[0],), "runs a command when the shell gets a signal")
    return Unwrapped(None, (), "changes signal handling")


def _applet(values: Values) -> Unwrapped:
    return Unwrapped(0 if values and not (values[0] or "-").startswith("-") else None, (),
                     "runs an applet")  # fmt: skip


WRAPPERS = {
    "watch": _watch,
    "strace": lambda v: _argv(v, "-o -e -p -s -u -E -a -b -I -O -P -S -X", "oepsuEabIOPSX"),
    "ltrace": lambda v: _argv(v, "-o -e -p -s -u -a -n -A -D -F -x -L", "oepsuanADFxL"),
    "flock": _flock,
    "chroot": lambda v: _argv(v, "--userspec --groups", extra=1),
    "unshare": lambda v: _argv(v, "-S --setuid -G --setgid -R --root -w --wd", "SGRw"),
    "nsenter": lambda v: _argv(v, "-t --target -S --setuid -G --setgid", "tSG"),
    "taskset": lambda v: _argv(v, "", extra=1),
    "chrt": lambda v: _argv(
        v, "-T -P -D --sched-runtime --sched-period --sched-deadline", "TPD", extra=1
    ),
    "script": _script,
    "parallel": _parallel,
    "systemd-run": lambda v: _argv(
        v,
        "-u --unit -p --property --description --slice -E --setenv --uid --gid -M "
        "--machine -H --host --working-directory --on-active --on-calendar",
        "upEMH",
    ),
    "busybox": _applet,
    "toybox": _applet,
    "tmux": _tmux,
    "screen": lambda v: _argv(v, "-S -c -t -p -X -e -h -T", "ScptXehT"),
    "ssh": _ssh,
    "gdb": lambda v: _escapes(v, _words("-ex --ex -eval-command --eval-command -iex --iex")),
    **dict.fromkeys(
        ("vim", "vi", "nvim", "view", "ex", "vimdiff"),
        lambda v: _escapes(v, _words("-c --cmd"), plus=True),
    ),
    "expect": _expect,
    "tar": _tar,
    "zip": _zip,
    "trap": _trap,
}


def unwrap(name: str, values: Values) -> Unwrapped | None:
    """What ``name`` with these arguments runs, or ``None`` when it is not such a program."""
    reader = WRAPPERS.get(name)
    return reader(values) if reader is not None else None
