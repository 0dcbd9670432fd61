"""How fast this machine runs the policy's kind of work, against the machine its time budget was
set on: the budget's milliseconds are that machine's, so a script gets the same verdict on a
slow shared core as on a fast desktop (on a machine four times slower, 40 ms of the policy's work
take 160 ms of CPU time, and a budget counted in this machine's milliseconds would stop the walk
a quarter of the way through and leave ``approve`` where the other machine proves ``allow``).

:func:`machine_pace` times a fixed piece of work like the policy's own (string slicing and
joining, set and dict look-ups, small calls, regular expressions) once per process, the best
of a few tries, and divides by what it cost on the reference machine. It never goes below 1 (a
faster machine keeps the reference budget, no verdict there gets stricter than it was) nor
above :data:`_SLOWEST` (an emulator or valgrind would otherwise wait seconds for a verdict).
"""

from __future__ import annotations

import functools
import re
import time

__all__ = ["machine_pace"]

_REFERENCE_SECONDS = 0.001
"""What :func:`_work` costs on the machine of ``bench/results/shell_policy.md``, where the 40 ms
were set: a machine that took 3.45 ms for it (best of five, Python 3.11) ran that benchmark's
corpora 3.5 times slower (CPU p99 1.70 ms against 0.48)."""
_SLOWEST = 6.0
_TRIES = 5
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_KNOWN = frozenset({"ls", "cat", "grep", "git", "rm", "echo", "sed", "awk"})


def _judged(word: str, seen: dict[str, int]) -> int:
    head = word.split("=", 1)[0].strip("-")
    seen[head] = seen.get(head, 0) + 1
    return len(head) if head in _KNOWN or _WORD.match(word) else 0


def _work() -> int:
    total = 0
    seen: dict[str, int] = {}
    for index in range(300):
        words = f"git log --oneline -n{index % 50} X{index}=1 -- src/{index % 7}.py".split()
        total += sum(_judged(word, seen) for word in words)
        total += len(" ".join(words[1:3])[::-1])
    return total


@functools.cache
def machine_pace() -> float:
    """How many of this machine's CPU seconds the reference machine's one second of the policy's
    work takes, between 1 and :data:`_SLOWEST`; measured once per process."""
    best = float("inf")
    _work()  # the interpreter specialises the code on its first runs: not counted
    for _ in range(_TRIES):
        started = time.thread_time()
        _work()
        best = min(best, time.thread_time() - started)
    return min(max(best / _REFERENCE_SECONDS, 1.0), _SLOWEST)
