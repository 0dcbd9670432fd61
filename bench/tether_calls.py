"""tether's side of the peers' measurement, with the same command line and output.

    python bench/tether_calls.py K REPS [hooks] [parallel|sequential]

Prints one JSON line ``{"peer", "calls", "us_per_call"}`` like the scripts in
``../shared/bench/peers``, so every framework is measured the same way: in a fresh process,
median of REPS runs after one warm-up.
"""

from __future__ import annotations

import json
import sys

from _tether_calls import measure


def main() -> None:
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    hooks = "hooks" in sys.argv[3:]
    mode = "sequential" if "sequential" in sys.argv[3:] else "parallel"
    name = f"tether {mode}{' +hooks' if hooks else ''}"
    value = measure(k, reps, hooks=hooks, mode=mode)
    print(json.dumps({"peer": name, "calls": k, "us_per_call": value}))


if __name__ == "__main__":
    main()
