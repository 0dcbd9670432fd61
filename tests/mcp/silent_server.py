"""A configured MCP server that never answers: ``python silent_server.py PIDFILE``.

It starts a child that leaves the process group (``setsid``, as a daemon would), writes its own
pid and the child's to ``PIDFILE`` (one per line, the file renamed into place when complete),
and then sleeps without ever reading its stdin.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

if __name__ == "__main__":
    child = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    partial = sys.argv[1] + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n{child.pid}\n")
    os.replace(partial, sys.argv[1])
    while True:
        time.sleep(1000)
