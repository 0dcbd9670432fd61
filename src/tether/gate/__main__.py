"""Ask the governance layer about a shell command from the command line.

    python -m tether.gate check-command "<command>" [--workspace DIR]

Prints the shell policy's decision — ``allow``, ``approve`` or ``deny`` — on the first line and
one reason per line after it (control characters escaped). With ``--workspace``, the files the
command visibly reads or writes are also judged by the path policy of that workspace. A command
that starts with ``-`` goes after ``--``.

Exit status, so scripts and hooks can branch on it alone:

- 0: allow
- 1: approve (a person or the reviewer must agree first)
- 2: deny
- 64: usage error (missing or unknown arguments; ``EX_USAGE``), with the usage on stderr
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from ._check_command import CHECK_COMMAND_EXIT, check_command

__all__ = ["EXIT_STATUS", "USAGE_ERROR", "main"]

EXIT_STATUS = CHECK_COMMAND_EXIT
USAGE_ERROR = 64


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m tether.gate", description="Governance checks.")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser("check-command", help="classify a bash command")
    check.add_argument("command", help="the bash script to classify")
    check.add_argument("--workspace", metavar="DIR", help="judge file paths for this workspace")
    args = parser.parse_args(argv)
    return check_command(args.command, args.workspace)


if __name__ == "__main__":
    sys.exit(main())
