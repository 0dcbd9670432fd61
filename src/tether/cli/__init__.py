"""The ``tether`` command: the interactive terminal, print, JSON and RPC modes, the offline demo,
sessions, models and the shell policy's verdict on a command. Each mode drives the run layer
(:mod:`._runtime`); none holds agent logic."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

USAGE_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns its exit status."""
    from ._parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    from tether.runtime import RunSetupError

    from ._errors import CommandError

    try:
        return _dispatch(args)
    except (CommandError, RunSetupError) as exc:
        print(f"tether: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tether ... | head`: the reader left; so do we, quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _dispatch(args: object) -> int:
    import asyncio

    from ._commands import run_command, settings_from

    command = getattr(args, "command", None)
    if command is not None:
        return run_command(args)
    mode = getattr(args, "mode", "text")
    prompt = getattr(args, "prompt", None)
    settings = settings_from(args)
    if mode == "rpc":
        from ._rpc_mode import run_rpc

        return asyncio.run(run_rpc(settings))
    if prompt is None:
        if mode == "json":
            from ._errors import CommandError

            raise CommandError("--mode json needs a task: tether -p 'task' --mode json")
        from ._interactive import run_interactive

        return asyncio.run(run_interactive(settings))
    from tether.ai import clean_text

    from ._print_mode import run_print

    task, replaced = clean_text(_with_piped_stdin(prompt))
    if replaced:
        print(
            f"tether: {replaced} character{'s' if replaced != 1 else ''} of the task were not"
            " valid UTF-8 and are replaced by U+FFFD",
            file=sys.stderr,
        )
    return asyncio.run(run_print(settings, task, json_lines=mode == "json"))


def _with_piped_stdin(prompt: str) -> str:
    """Piped input is appended to the task (``git diff | tether -p 'review this'``)."""
    if sys.stdin is None or sys.stdin.isatty():
        return prompt
    try:
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    except (OSError, ValueError):
        return prompt
    # bytes that are not UTF-8 are kept as lone surrogates, which clean_text then replaces
    piped = raw.decode("utf-8", errors="surrogateescape") if isinstance(raw, bytes) else raw
    return f"{prompt}\n\n{piped}" if piped.strip() else prompt
