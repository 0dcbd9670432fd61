"""``tether hands list`` and ``tether hands check NAME``: the hands of ``config.toml``.

Both connect (each hand in turn is started over SSH and asked for its catalog) and show what
the model would get: the hand's tools, its own gate mode, and where it runs. ``list`` shows an
unreachable hand as such and goes on; ``check`` exits 1 when its hand cannot be reached.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

from ._errors import CommandError

__all__ = ["run_hands"]


def run_hands(args: Any, out: TextIO = sys.stdout) -> int:
    from tether.remote import HandConfigError, load_hand_configs

    try:
        configs = load_hand_configs()
    except HandConfigError as exc:
        raise CommandError(str(exc)) from None
    if args.action == "check":
        if args.name not in configs:
            known = ", ".join(configs) or "none is configured in config.toml [hands.NAME]"
            raise CommandError(f"no hand named {args.name!r} (hands: {known})")
        names = [args.name]
    else:
        names = list(configs)
        if not names:
            out.write("No hands are configured (config.toml [hands.NAME], ssh = ...).\n")
            return 0
    lines, reachable = asyncio.run(_describe(configs, names, verbose=args.action == "check"))
    out.write("\n".join(lines) + "\n")
    out.flush()
    return 0 if reachable or args.action == "list" else 1


async def _describe(configs: Any, names: list[str], *, verbose: bool) -> tuple[list[str], bool]:
    from tether.agent import ToolError
    from tether.remote import Hands

    hands = Hands(configs)
    lines: list[str] = []
    reachable = True
    try:
        for name in names:
            config = configs[name]
            try:
                client = await hands.client(name)
            except ToolError:
                reachable = False
                lines.append(f"{name}  {config.address}  unreachable: {hands.problem(name)}")
                continue
            tools = [str(entry.get("name")) for entry in client.catalog]
            where = f"{client.address}:{client.workspace} (host {client.host})"
            lines.append(f"{name}  {where}  gate {client.mode}  tools: {', '.join(tools)}")
            if verbose:
                lines.append(f"  command: {config.command}")
                lines.extend(f"  {_tool_line(entry)}" for entry in client.catalog)
    finally:
        await hands.close()
    return lines, reachable


def _tool_line(entry: dict[str, Any]) -> str:
    announced = entry.get("governance")
    if isinstance(announced, dict) and announced.get("builtin") == entry.get("name"):
        sandbox = ", sandboxed" if announced.get("sandboxed") else ""
        governed = f"built-in governance{sandbox}"
    else:
        governed = "no governance announced: this side asks a person"
    return f"{entry.get('name')}: {governed}"
