"""``perf stat|record|trace [options] [--] CMD``: perf runs CMD to measure it, and ``perf stat
--pre CMD`` / ``--post CMD`` run shell commands; ``perf stat -e cycles rm -rf ~`` was
``approve`` where ``rm -rf ~`` is denied.

perf reads its options as getopt does (clusters, attached values, unique abbreviations of long
names) and stops at the first operand. The grammars are perf 6.1's, as ``perf stat -h`` (and
``record``, ``trace``) list them. perf's options change with every kernel, so a line these
grammars cannot read, and every other subcommand that may run a command (``perf sched record
CMD``, ``perf ftrace CMD`` ...), is judged at every word where the command may start.
"""

from __future__ import annotations

import shlex

from ._call import Values
from ._getopt import Grammar, grammar, read_options
from ._unwrapped import Unwrapped

__all__ = ["perf"]

_GRAMMARS: dict[str, Grammar] = {
    "stat": grammar(
        "+aABC:D:de:G:gI:ijM:no:p:r:St:Tvx:",
        "all-cpus/a no-aggr/A big-num/B cpu=/C delay=/D detailed/d event=/e cgroup=/G group/g "
        "interval-print=/I no-inherit/i json-output/j metrics=/M null/n output=/o pid=/p "
        "repeat=/r sync/S tid=/t transaction/T verbose/v field-separator=/x all-kernel "
        "all-user append control= cputype= filter= for-each-cgroup= hybrid-merge "
        "interval-clear interval-count= iostat=? log-fd= metric-no-group metric-no-merge "
        "metric-only no-csv-summary no-merge per-core per-die per-node per-socket per-thread "
        "percore-show-thread post= pre= quiet scale no-scale smi-cost summary table "
        "td-level= timeout= topdown",
    ),
    "record": grammar(
        "+abBc:C:dD:e:F:gG:I::ij:k:m:Nno:Pp:qRr:S::st:Tu:vWz::",
        "all-cpus/a branch-any/b no-buildid/B count=/c cpu=/C data/d delay=/D event=/e "
        "freq=/F cgroup=/G intr-regs=?/I no-inherit/i branch-filter=/j clockid=/k "
        "mmap-pages=/m no-buildid-cache/N no-samples/n output=/o period/P pid=/p quiet/q "
        "raw-samples/R realtime=/r snapshot=?/S stat/s tid=/t timestamp/T uid=/u verbose/v "
        "weight/W compression-level=?/z affinity= aio=? all-cgroups all-kernel all-user "
        "aux-sample=? buildid-all buildid-mmap call-graph= clang-opt= clang-path= "
        "code-page-size control= data-page-size debuginfod=? dry-run exclude-perf filter= "
        "group kcore kernel-callchains max-size= mmap-flush= namespaces no-bpf-event "
        "no-buffering num-thread-synthesize= off-cpu overwrite per-thread phys-data "
        "proc-map-timeout= running-time sample-cpu sample-identifier strict-freq "
        "switch-events switch-max-files= switch-output=? switch-output-event= synth= "
        "tail-synthesize threads=? timestamp-boundary timestamp-filename transaction "
        "user-callchains user-regs=? vmlinux=",
    ),
    "trace": grammar(
        "+aC:D:e:fF:G:i:m:o:p:sSt:Tu:v",
        "all-cpus/a cpu=/C delay=/D event=/e force/f pf=/F cgroup=/G input=/i mmap-pages=/m "
        "output=/o pid=/p summary/s with-summary/S tid=/t time/T uid=/u verbose/v "
        "call-graph= comm duration= errno-summary expr= failure filter= filter-pids= "
        "kernel-syscall-graph libtraceevent_print map-dump= max-events= max-stack= "
        "min-stack= no-inherit print-sample proc-map-timeout= sched show-on-off-events "
        "sort-events switch-off= switch-on= syscalls tool_stats",
    ),
}
_NESTED_RECORD = {"stat": "stat", "trace": "record"}
"""``perf stat record CMD`` reads stat's options, ``perf trace record CMD`` record's."""
_GLOBAL_VALUED = frozenset({"--debugfs-dir", "--buildid-dir", "--debug", "-C"})
_NO_RUN = frozenset({"-h", "--help", "--version", "-v", "--list-cmds", "--list-opts", "help",
                     "version", "list", "report", "script", "annotate", "archive", "diff",
                     "evlist", "buildid-list", "buildid-cache", "config", "top"})  # fmt: skip
_MAX_STARTS = 8


def perf(values: Values) -> Unwrapped | None:
    """The command perf runs, its ``--pre``/``--post`` scripts and its ``-o`` output file."""
    index = _past_global_options(values)
    if index >= len(values) or values[index] in _NO_RUN:
        return None
    subcommand = values[index]
    spec = _GRAMMARS.get(subcommand or "")
    if spec is None:
        return _every_start(values, index + 1, f"perf {subcommand or '...'} may run a command")
    read = read_options(spec, values[index + 1 :])
    first = read.first_operand
    nested = _NESTED_RECORD.get(subcommand or "")
    if first is not None and nested is not None and values[index + 1 + first] == "record":
        spec = _GRAMMARS[nested]
        offset = index + 2 + first
        read = read_options(spec, values[offset:])
    else:
        offset = index + 1
    if read.problem is not None:
        return _every_start(values, offset, f"perf {subcommand}: {read.problem}")
    scripts = [v for key in ("pre", "post") for v in read.values(key) if v is not None]
    scripts += [f"true > {shlex.quote(out)}" for out in read.values("o") if out is not None]
    start = offset + read.first_operand if read.first_operand is not None else None
    start = start if start is not None and start < len(values) else None
    return Unwrapped(start, tuple(scripts), f"perf {subcommand} runs and measures a command")


def _past_global_options(values: Values) -> int:
    """Where perf's subcommand is: past ``perf``'s own options (``--debug verbose``)."""
    index = 0
    while index < len(values) and (values[index] or "").startswith("-"):
        value = values[index] or ""
        index += 1 + (value in _GLOBAL_VALUED)
        if value in _NO_RUN:
            return len(values)
    return index


def _every_start(values: Values, first: int, why: str) -> Unwrapped:
    starts = tuple(i for i in range(first, len(values)) if not (values[i] or "x").startswith("-"))[
        :_MAX_STARTS
    ]
    return Unwrapped(None, (), why, may_start=starts)
