"""Programs that run other programs: where, in their arguments, the command they run is.

:func:`unwrap` reads one command's literal argument values and says what it runs: the index
of an argument vector it executes (``strace -f rm -rf /`` runs ``rm -rf /``) and the shell
scripts it hands to a shell (``script -c``, ``watch``, ``ssh HOST CMD``, ``tmux new CMD``,
``gdb -ex 'shell CMD'``, ``vim -c '!CMD'``, ``tar --to-command``, ``zip -TT``, ``trap CMD EXIT``
...). The shell policy then judges those as if they were written at the top level.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from ._archives import TAR, tar_old_style
from ._call import Values
from ._getopt import read_options
from ._git_programs import git_programs
from ._make_eval import make_eval
from ._output_files import SPLIT
from ._perf import perf
from ._sed import sed_effects
from ._sed_arguments import SedArguments, read_sed_arguments
from ._sqlite import sqlite_scripts
from ._su import SU
from ._unwrapped import Unwrapped
from ._wrappers_more import MORE_WRAPPERS, gdb_program, is_loader, run_by_loader

__all__ = ["WRAPPERS", "Unwrapped", "is_wrapper", "unwrap"]


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
        if option in valued or _cluster_takes_next(value, short_valued):
            index += 1
    return index


def _cluster_takes_next(value: str, short_valued: str) -> bool:
    """Whether a short-option cluster takes the next word as a value, as getopt reads it: the
    first letter that takes a value takes the rest of the word, or the next word when it is the
    last (``-o/tmp/trace`` takes none; ``-fo`` takes one)."""
    if value.startswith("--"):
        return False
    for position, letter in enumerate(value[1:], start=1):
        if letter in short_valued:
            return position == len(value) - 1
    return False


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
    """tmux's commands, ``;`` between them: what ``new``, ``run`` and the like run, and the
    lines ``send-keys`` types into a pane's shell (``Enter`` ends one)."""
    index = _skip(values, 0, _words("-L -S -f -c -T"), "LSfcT")
    if index >= len(values):
        return Unwrapped(None, (), "starts a terminal multiplexer")
    scripts: list[str] = []
    typed: list[str] = []
    commands: list[Values] = [()]
    for value in values[index:]:
        commands = [*commands, ()] if value == ";" else [*commands[:-1], (*commands[-1], value)]
    for command in (c for c in commands if c):
        subcommand = command[0]
        if subcommand in _TMUX_RUNS:
            after = _skip(command, 1, _words("-s -n -c -t -x -y -e -F -f -l -p -w"), "snctxyeFflpw")
            scripts += _joined(command, after)
        elif subcommand in ("send-keys", "send") and None not in command:
            after = _skip(command, 1, _words("-t -N -c"), "tNc")  # -l is a flag here
            literal = "-l" in command[1:after]
            typed += [key or "" if literal else _TMUX_KEYS.get(key or "", key or "")
                      for key in command[after:]]  # fmt: skip
    if typed:  # each argument typed as it is, none between, one send-keys after another
        scripts.append("".join(typed))
    why = "runs a shell command in tmux" if scripts else f"tmux {values[index]}"
    return Unwrapped(None, tuple(scripts), why)


_TMUX_RUNS = frozenset({"run-shell", "run", "new-session", "new", "new-window", "neww",
                        "split-window", "splitw", "respawn-pane", "respawnp"})  # fmt: skip
_TMUX_KEYS = {"Enter": "\n", "C-m": "\n", "KPEnter": "\n", "C-j": "\n", "Space": " ", "Tab": "\t"}
"""Key names send-keys types as characters."""


_SSH_COMMAND_OPTIONS = re.compile(
    r"^\s*(ProxyCommand|LocalCommand|KnownHostsCommand|Match\s+exec|RemoteCommand)\s*[=\s]\s*(.*)$",
    re.I | re.S,
)


def _ssh_options(values: Values) -> tuple[str, ...]:
    """Commands in ``-o ProxyCommand=...`` (and its kin): ssh runs them locally in a shell."""
    scripts: list[str] = []
    for index, value in enumerate(values):
        option = value or ""
        argument = option[2:] if option.startswith("-o") and len(option) > 2 else None
        if option == "-o" and index + 1 < len(values):
            argument = values[index + 1]
        match = _SSH_COMMAND_OPTIONS.match(argument or "")
        if match and match.group(1).lower() != "remotecommand":
            scripts.append(match.group(2).strip("\"'"))
    return tuple(scripts)


def _ssh(values: Values) -> Unwrapped:
    index = _skip(
        values, 0, _words("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B"),
        "bcDEeFIiJLlmOopQRSWwB",
    )  # fmt: skip
    scripts = _ssh_options(values) + _joined(values, index + 1)
    return Unwrapped(None, scripts, "runs a command on another machine")


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


_TAR_RUNS = ("I", "F", "to-command", "rsh-command", "rmt-command")
"""The options whose value is a program tar runs (``-I``, ``-F``, ``--to-command``...)."""
_TAR_PROGRAMS = ("--to-command", "--use-compress-program", "--info-script",
                 "--new-volume-script", "--rsh-command", "--rmt-command")  # fmt: skip


def _tar(values: Values) -> Unwrapped:
    """The programs tar runs, its options read as tar reads them: clusters (``-xI CMD``),
    attached values, abbreviations, the old style (``tar xIf CMD a.tar``: the letters of the
    first word, their values the words after it, in order). A line tar would not read so is
    also scanned word by word, and what either reading finds is judged."""
    read = read_options(TAR, tar_old_style(values))
    scripts = [v for key in _TAR_RUNS for v in read.values(key) if v is not None]
    for action in read.values("checkpoint-action"):
        kind, _, command = (action or "").partition("=")
        scripts += [command] if kind == "exec" else []
    if read.problem is not None:
        scripts += [s for s in _tar_scanned(values) if s not in scripts]
    return Unwrapped(None, tuple(scripts), "runs programs while archiving")


def _tar_scanned(values: Values) -> list[str]:
    """Every value after a word that may name a program option of tar."""
    scripts: list[str] = []
    for index, value in enumerate(values):
        if value is None or not value.startswith("-"):
            continue
        option, eq, attached = value.partition("=")
        following = values[index + 1] if index + 1 < len(values) else None
        argument = attached if eq else following
        if len(option) > 3 and any(p.startswith(option) for p in _TAR_PROGRAMS):
            scripts += [argument] if argument is not None else []
        elif len(option) > 4 and "--checkpoint-action".startswith(option) and argument:
            kind, _, command = argument.partition("=")
            scripts += [command] if kind == "exec" else []
        elif option in ("-I", "-F") and following is not None:
            scripts.append(following)
    return scripts


def _split(values: Values) -> Unwrapped | None:
    """``split --filter=COMMAND``: each piece goes to COMMAND, run by a shell."""
    filters = tuple(f for f in read_options(SPLIT, values).values("filter") if f is not None)
    return Unwrapped(None, filters, "runs a shell command on each piece") if filters else None


def _sqlite(values: Values) -> Unwrapped | None:
    """sqlite3's dot-commands and SQL given as arguments (:mod:`._sqlite`): the shell commands
    they run."""
    found = tuple(sqlite_scripts(values))
    return Unwrapped(None, found, "runs shell commands from its arguments") if found else None


def _zip(values: Values) -> Unwrapped:
    scripts: list[str] = []
    for index, value in enumerate(values):
        option, eq, attached = (value or "").partition("=")
        if option in ("-TT", "--unzip-command"):
            argument = attached if eq else values[index + 1] if index + 1 < len(values) else None
            scripts += [argument] if argument is not None else []
    return Unwrapped(None, tuple(scripts), "runs a program to test the archive")


def _trap(values: Values) -> Unwrapped:
    values = values[1:] if values[:1] == ("--",) else values
    if len(values) >= 2 and values[0] is not None and values[0] not in ("-", "--", "-p", "-l"):
        return Unwrapped(None, (values[0],), "runs a command when the shell gets a signal")
    return Unwrapped(None, (), "changes signal handling")


_RSYNC_VALUED = frozenset("Be@TfM")
"""rsync's short options that take a value (``-e`` is the remote shell); the others are flags."""


def _rsync(values: Values) -> Unwrapped:
    """``rsync -e CMD`` runs CMD (split into words) as its remote shell, here: ``-e CMD``,
    ``-eCMD``, in a cluster (``-ave CMD``, ``-azeCMD``), ``--rsh CMD`` or ``--rsh=CMD``.
    A script that expands at run time is a person's call."""
    scripts: list[str | None] = []
    index = 0
    while index < len(values):
        value = values[index] or ""
        index += 1
        if value == "--":
            break
        option, eq, attached = value.partition("=")
        if option == "--rsh":
            taken = attached if eq else values[index] if index < len(values) else ""
            scripts.append(taken)
            index += not eq
        elif value.startswith("-") and not value.startswith("--"):
            for position, letter in enumerate(value[1:], start=1):
                if letter not in _RSYNC_VALUED:
                    continue
                rest = value[position + 1 :].removeprefix("=")  # popt: -e=CMD is -e CMD
                taken = rest or (values[index] if index < len(values) else "")
                index += not rest
                if letter == "e":
                    scripts.append(taken)
                break
    if None in scripts:
        return Unwrapped(None, (), "runs a remote shell that expands at run time")
    found = tuple(script for script in scripts if script)
    return Unwrapped(None, found, "runs a program as its remote shell" if found else "")


def _man(values: Values) -> Unwrapped:
    """``man -P CMD`` / ``--pager=CMD`` / ``-H CMD``: man runs CMD through a shell."""
    scripts: list[str] = []
    for index, value in enumerate(values):
        option, eq, attached = (value or "").partition("=")
        if option in ("--pager", "--html") and eq:
            scripts.append(attached)
        elif option in ("-P", "--pager", "-H", "--html") and index + 1 < len(values):
            scripts += [values[index + 1] or ""]
        elif option[:2] in ("-P", "-H") and len(option) > 2 and not option.startswith("--"):
            scripts.append(option[2:])
    return Unwrapped(None, tuple(scripts), "runs a pager command" if scripts else "")


def _mapfile(values: Values) -> Unwrapped:
    """``mapfile -C CALLBACK``: bash evaluates CALLBACK for every few lines read."""
    scripts: list[str] = []
    for index, value in enumerate(values):
        if value == "-C" and index + 1 < len(values):
            scripts += [values[index + 1] or ""]
        elif (value or "").startswith("-C") and len(value or "") > 2:
            scripts.append((value or "")[2:])
    return Unwrapped(None, tuple(scripts), "runs a callback while reading" if scripts else "")


def _sg(values: Values) -> Unwrapped:
    """``sg [-] GROUP [-c] COMMAND``: the command is a shell script."""
    rest = list(values[1:] if values[:1] == ("-",) else values)[1:]
    rest = rest[1:] if rest[:1] == ["-c"] else rest
    return Unwrapped(None, _joined(tuple(rest), 0), "runs a shell command as another group")


def _runuser(values: Values) -> Unwrapped:
    """``runuser -u USER [--] COMMAND`` executes COMMAND (its options read as su's, which
    permute); without ``-u`` it is ``su``-like, and the walk reads the shell line it runs."""
    read = read_options(SU, values)
    if not read.given("u"):
        return Unwrapped(None, (), "runs a shell as another user")
    return Unwrapped(read.first_operand, (), "runs a command as another user")


def _gdb(values: Values) -> Unwrapped:
    """gdb's shell escapes (``-ex 'shell CMD'``) and the program of ``--args PROGRAM ARGS``."""
    escapes = _escapes(values, _words("-ex --ex -eval-command --eval-command -iex --iex"))
    start = gdb_program(values)
    return escapes if start is None else escapes._replace(argv=start, why="debugs a program")


_BWRAP_ARITY = {
    **dict.fromkeys(("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try",
                     "--dev-bind-try", "--symlink", "--setenv", "--file", "--bind-data",
                     "--ro-bind-data", "--chmod", "--bind-fd", "--ro-bind-fd"), 2),
    "--overlay": 3,
    **dict.fromkeys(("--tmpfs", "--proc", "--dev", "--mqueue", "--dir", "--chdir", "--unsetenv",
                     "--uid", "--gid", "--hostname", "--lock-file", "--sync-fd", "--info-fd",
                     "--seccomp", "--add-seccomp-fd", "--remount-ro", "--exec-label",
                     "--file-label", "--perms", "--size", "--args", "--cap-add", "--cap-drop",
                     "--userns", "--userns2", "--pidns", "--block-fd", "--userns-block-fd",
                     "--json-status-fd", "--overlay-src", "--tmp-overlay", "--ro-overlay",
                     "--argv0"), 1),
}  # fmt: skip


def _bwrap(values: Values) -> Unwrapped:
    """``bwrap [options] CMD``: ``--chdir DIR`` runs CMD in DIR (relative to the sandbox's
    ``/``)."""
    index, moves = 0, []
    while index < len(values) and (values[index] or "").startswith("--"):
        if values[index] == "--":
            index += 1
            break
        if values[index] == "--chdir" and index + 1 < len(values):
            moves += ["/", values[index + 1]]
        index += 1 + _BWRAP_ARITY.get(values[index] or "", 0)
    start = index if index < len(values) else None
    return Unwrapped(start, (), "runs a command in a sandbox", directories=tuple(moves))


def _sed(values: Values) -> Unwrapped:
    """GNU sed's ``e CMD`` runs CMD; ``w FILE`` (and ``s///w FILE``) writes FILE, ``r FILE``
    reads it (:mod:`._sed`): read as the shell code they amount to (``CMD``,
    ``true > FILE``, ``cat FILE``). ``e`` alone and ``s///e`` run the input, a script from a file
    or one that expands at run time may do anything, and so may a command line tether cannot
    read as sed does (:mod:`._sed_arguments`): a person's call."""
    sed = read_sed_arguments(values)
    scripts: list[str] = []
    runs_input = False
    for text in sed.scripts:
        effects = sed_effects(text or "")
        scripts += effects.commands
        scripts += [f"true > {shlex.quote(f)}" for f in effects.writes if f not in _STD_STREAMS]
        scripts += [f"cat {shlex.quote(f)}" for f in effects.reads if f not in _STD_STREAMS]
        runs_input = runs_input or effects.runs_input
    return Unwrapped(
        None,
        tuple(scripts),
        _sed_unknowns(sed) or _sed_effects_reason(bool(scripts), runs_input=runs_input),
    )


def _sed_unknowns(sed: SedArguments) -> str:
    """Why what sed runs is not all on its command line (``""``: it is)."""
    if sed.problem is not None:
        return f"its arguments cannot be read as sed reads them: {sed.problem}"
    if sed.script_files:
        return "runs a sed script from a file"
    if None in sed.scripts:
        return "runs a sed script that expands at run time"
    return ""


def _sed_effects_reason(found: bool, *, runs_input: bool) -> str:
    if found:
        return "runs commands or reads and writes files from its script"
    return "runs its input as commands" if runs_input else ""


_STD_STREAMS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/stdin", "-"})


def _git(values: Values) -> Unwrapped:
    """Subcommands that run shell commands: ``rebase -x``, ``submodule foreach``, ``bisect
    run`` (an argument vector), ``difftool -x``, ``filter-branch --*-filter``."""
    index = _skip(values, 0, _words("-c -C --git-dir --work-tree --namespace --exec-path"), "cC")
    subcommand, rest = (values[index] if index < len(values) else None), values[index + 1 :]
    scripts: list[str] = []
    if subcommand == "bisect" and rest[:1] == ("run",) and len(rest) > 1:
        return Unwrapped(index + 2, (), "runs a command at every bisection step")
    if subcommand == "submodule":
        position = rest.index("foreach") if "foreach" in rest else -1
        after = [v for v in rest[position + 1 :] if v not in ("--recursive", "-q", "--quiet")]
        if position >= 0:
            scripts += _joined(tuple(after), 0)
    for position, value in enumerate(rest):
        option, eq, attached = (value or "").partition("=")
        takes = option in ("-x", "--exec", "--extcmd") or option.endswith("-filter")
        if subcommand in ("rebase", "difftool", "filter-branch") and takes:
            following = rest[position + 1] if position + 1 < len(rest) else None
            argument = attached if eq else following
            scripts += [argument] if argument is not None else []
        elif subcommand == "rebase" and option.startswith("-x") and len(option) > 2:
            scripts.append(option[2:])
    scripts += git_programs(values)  # --upload-pack=CMD, ext::CMD, -c core.editor=CMD
    return Unwrapped(None, tuple(scripts), "runs shell commands" if scripts else "")


def _applet(values: Values) -> Unwrapped:
    return Unwrapped(0 if values and not (values[0] or "-").startswith("-") else None, (),
                     "runs an applet")  # fmt: skip


WRAPPERS: dict[str, Callable[[Values], Unwrapped | None]] = {
    "watch": _watch,
    "flock": _flock,
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
    "gdb": _gdb,
    **dict.fromkeys(
        ("vim", "vi", "nvim", "view", "ex", "vimdiff"),
        lambda v: _escapes(v, _words("-c --cmd"), plus=True),
    ),
    "expect": _expect,
    "tar": _tar,
    "split": _split,
    "sqlite3": _sqlite,
    "zip": _zip,
    "trap": _trap,
    "rsync": _rsync,
    "sed": _sed,
    "git": _git,
    "man": _man,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "sg": _sg,
    "runuser": _runuser,
    "bwrap": _bwrap,
    "fakeroot": lambda v: _argv(v, "-l --lib --faked -i -s -b", "lisb"),
    "firejail": lambda v: _argv(v, ""),
    "pkexec": lambda v: _argv(v, "--user -u", "u"),
    "run0": lambda v: _argv(
        v,
        "-u --user -g --group --nice -D --chdir --setenv --unit --property --description "
        "--slice --machine",
        "ugD",
    ),
    "unbuffer": lambda v: _argv(v, ""),
    "chronic": lambda v: _argv(v, ""),
    "eatmydata": lambda v: _argv(v, ""),
    "torsocks": lambda v: _argv(v, "-u -p -a -P", "upaP"),
    "proxychains": lambda v: _argv(v, "-f", "f"),
    "proxychains4": lambda v: _argv(v, "-f", "f"),
    "nocache": lambda v: _argv(v, ""),
    "setpriv": lambda v: _argv(
        v,
        "--reuid --regid --groups --inh-caps --ambient-caps "
        "--bounding-set --securebits --selinux-label --apparmor-profile",
    ),
    "faketime": lambda v: _argv(v, "-m -f", "", extra=1),
    "catchsegv": lambda v: _argv(v, ""),
    "cgexec": lambda v: _argv(v, "-g", "g"),
    "prlimit": lambda v: _argv(v, "-p --pid"),
    "numactl": lambda v: _argv(
        v, "-C -N -m -p -i --physcpubind --cpunodebind --membind --preferred --interleave", "CNmpi"
    ),
    "perf": perf,
    "make": make_eval,
    "gmake": make_eval,
    **MORE_WRAPPERS,
}


def _reader(name: str) -> Callable[[Values], Unwrapped | None] | None:
    return WRAPPERS.get(name) or (run_by_loader if is_loader(name) else None)


def is_wrapper(name: str) -> bool:
    """Whether ``name`` is a program :func:`unwrap` reads (one of :data:`WRAPPERS`, or the ELF
    loader by any of its names)."""
    return _reader(name) is not None


def unwrap(name: str, values: Values) -> Unwrapped | None:
    """What ``name`` with these arguments runs, or ``None`` when it is not such a program (or
    this line of it runs nothing)."""
    reader = _reader(name)
    return reader(values) if reader is not None else None
