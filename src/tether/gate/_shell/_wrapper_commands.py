"""Where the command a wrapper runs starts, read as the wrapper itself reads its options.

``env``, ``sudo``, ``timeout``, ``nice``, ``xargs``, ``strace``, ``ltrace`` and their kin read their
options with ``getopt_long`` (bash's ``exec`` and ``command`` with bash's own getopt, which has
the same rules for short options): a reader that knew only ``-u NAME`` took
``env -vu HOME rm -rf ~`` to run ``HOME``, and ``timeout --sig KILL 5 rm -rf ~`` to run ``5``.
Each grammar here is the one the program declares (coreutils 9, findutils 4.9, util-linux 2.38,
sudo 1.9, ltrace 0.7, bash 5), read by :mod:`._getopt`; what comes between the options and the
command (``timeout``'s duration, ``env``'s ``-`` and ``NAME=value`` words) is skipped as the
program skips it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._getopt import Grammar, ReadOptions, grammar, read_options

__all__ = ["GRAMMARS", "Wrapped", "read_wrapper"]

GRAMMARS: dict[str, Grammar] = {
    "env": grammar(
        "+C:iS:u:v0",
        "ignore-environment/i null/0 unset=/u chdir=/C default-signal=? ignore-signal=? "
        "block-signal=? list-signal-handling debug/v split-string=/S help version",
    ),
    "timeout": grammar(
        "+k:s:v", "kill-after=/k signal=/s verbose/v foreground preserve-status help version"
    ),
    "nice": grammar("+n:", "adjustment=/n help version", numeric=True),
    "stdbuf": grammar("+i:o:e:", "input=/i output=/o error=/e help version"),
    "nohup": grammar("+", "help version"),
    "setsid": grammar("+cfhVw", "ctty/c fork/f wait/w help/h version/V"),
    "ionice": grammar(
        "+n:c:p:P:u:tVh", "classdata=/n class=/c pid=/p pgid=/P uid=/u ignore/t help/h version/V"
    ),
    "xargs": grammar(
        "+0a:E:e::i::I:l::L:n:oprs:txP:d:",
        "null/0 arg-file=/a delimiter=/d eof=?/e replace=?/i max-lines=?/l max-args=/n "
        "open-tty/o interactive/p no-run-if-empty/r max-chars=/s verbose/t exit/x "
        "max-procs=/P process-slot-var= show-limits help version",
    ),
    # sudo 1.9 (an older sudo lacks some: an option it lacks stops it, and it runs nothing).
    "sudo": grammar(
        "+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv",
        "askpass/A auth-type=/a background/b bell/B close-from=/C login-class=/c chdir=/D "
        "preserve-env=?/E edit/e group=/g set-home/H help/h host= login/i "
        "remove-timestamp/K reset-timestamp/k list/l non-interactive/n no-update/N "
        "preserve-groups/P prompt=/p chroot=/R role=/r stdin/S shell/s "
        "command-timeout=/T type=/t other-user=/U user=/u version/V validate/v",
        assignments=True,
    ),
    "doas": grammar("+C:Lnsu:"),
    "exec": grammar("+cla:"),
    "command": grammar("+pvV"),
    "builtin": grammar("+"),
    # GNU time 1.9, which /usr/bin/time, `command time` and `env time` run; bash's keyword
    # `time` takes only -p, and runs a word -o or -f as the command (which is not found).
    "time": grammar(
        "+af:o:pqvhV",
        "append/a format=/f output=/o portability/p quiet/q verbose/v help/h version/V",
    ),
    # strace 6.1, as `strace --help` lists its options.
    "strace": grammar(
        "+a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
        "abbrev= attach=/p columns=/a const-print-style=/X detach-on=/b env=/E fault= inject= "
        "interruptible=/I kvm= output=/o raw= read= signal= status= string-limit=/s "
        "summary-columns=/U summary-sort-by=/S summary-syscall-overhead=/O trace= "
        "trace-path=/P user=/u verbose= write= absolute-timestamps=? daemonize=? "
        "decode-fds=? decode-pids= quiet=? relative-timestamps=? strings-in-hex=? "
        "syscall-times=? debug/d failed-only/Z follow-forks/f help/h instruction-pointer/i "
        "no-abbrev/v output-append-mode/A output-separately seccomp-bpf stack-traces/k "
        "successful-only/z summary/C summary-only/c summary-wall-clock/w syscall-number/n "
        "tips=? version/V",
    ),
    # ltrace 0.7.3, as Debian builds it (no -w).
    "ltrace": grammar(
        "+cfhiLrStTVbCa:A:D:e:F:l:n:o:p:s:u:x:X:",
        "align=/a config=/F debug=/D demangle/C help/h indent=/n library=/l output=/o "
        "version/V no-signals/b",
    ),
}
"""Every wrapper whose options :func:`read_wrapper` reads, with its getopt grammar."""

_LOOKS_UP = {"command": "vV", "sudo": "lKVve", "strace": "hV", "ltrace": "hV", "time": "hV"}
"""Options with which the wrapper runs no command (``command -v`` looks one up)."""


@dataclass(frozen=True, slots=True)
class Wrapped:
    """What one wrapper command line runs."""

    start: int | None
    """Where the command it runs starts (``None``: it names none)."""
    options: ReadOptions
    """Its options, as it reads them."""
    runs: bool
    """Whether it runs a command at all (``command -v NAME`` only looks one up)."""


def read_wrapper(name: str, values: Sequence[str | None]) -> Wrapped:
    """``values``, the words after the wrapper ``name`` (one of :data:`GRAMMARS`), read as
    it reads them."""
    options = read_options(GRAMMARS[name], values)
    start = options.first_operand
    if start is not None and name == "timeout":  # its duration
        start += 1
    if start is not None and name == "env":
        start += values[start] == "-"  # a mere - implies -i
        while start < len(values) and "=" in (values[start] or ""):  # env: any word with =
            start += 1
    if start is not None and start >= len(values):
        start = None
    looks_up = any(options.given(key) for key in _LOOKS_UP.get(name, ""))
    return Wrapped(start, options, runs=not looks_up)
