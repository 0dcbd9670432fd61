"""The status line: what guards are active and what the session costs, always in view.

Model and thinking level, tokens in/out, cost, context use in % of the model's window (yellow
from 70 %, red from 90 %), gate mode, whether bash runs in the sandbox, where the tools run (this
machine, or the ``--remote`` host), the running background tasks, and the session. When the
terminal is narrow, the session, tokens and cost go first; model, context, gate, sandbox, running
tasks and a remote host stay.
"""

from __future__ import annotations

from typing import Final

from tether.ai import AssistantMessage

from ._runtime import Runtime
from ._terminal_style import Styler

__all__ = ["context_percent", "sandbox_state", "status_line", "tools_host"]

_SEPARATOR: Final = " · "


def sandbox_state(runtime: Runtime) -> str:
    bash = runtime.definitions.get("bash")
    if bash is None:
        return "no bash"
    return "sandbox on" if bash.metadata.get("sandboxed") else "sandbox off"


def tools_host(remote: str) -> str:
    """``user@host:port`` of ``--remote``'s ``user@host:port:/path`` (the path is long)."""
    address, _, path = remote.rpartition(":")
    return address if address and path.startswith("/") else remote


def context_percent(runtime: Runtime) -> int:
    """The last response's tokens (prompt and answer) in % of the model's window."""
    for message in reversed(runtime.agent.state.messages):
        if isinstance(message, AssistantMessage) and message.usage.input + message.usage.output:
            usage = message.usage
            used = usage.input + usage.cache_read + usage.cache_write + usage.output
            return min(999, round(100 * used / max(1, runtime.model.context_window)))
    return 0


def status_line(runtime: Runtime, styler: Styler, width: int) -> str:
    tokens_in = tokens_out = 0
    cost = 0.0
    for message in runtime.agent.state.messages:
        if isinstance(message, AssistantMessage):
            usage = message.usage
            tokens_in += usage.input + usage.cache_read + usage.cache_write
            tokens_out += usage.output
            cost += usage.cost
    percent = context_percent(runtime)
    context_style = "bold red" if percent >= 90 else "yellow" if percent >= 70 else ""
    gate = runtime.gate.mode
    sandbox = sandbox_state(runtime)
    model = f"{runtime.model.provider}/{runtime.model.id}"
    where = f"tools on {tools_host(runtime.remote)}" if runtime.remote else "tools here"
    session = runtime.session
    session_text = (session.name or session.id[:8]) if session is not None else "no session"
    # (text, style, drop order: 0 never dropped, higher dropped first)
    parts: list[tuple[str, str, int]] = [
        (model, "bold", 0),
        *([("offline demo model", "yellow", 1)] if runtime.model.api == "local" else []),
        (f"thinking {runtime.thinking or 'off'}", "", 3),
        (f"↑{_count(tokens_in)} ↓{_count(tokens_out)}", "", 4),
        (f"${cost:.3f}", "", 2),
        (f"ctx {percent}%", context_style, 0),
        (f"gate {gate}", "bold red" if gate == "yolo" else "", 0),
        (sandbox, "green" if sandbox == "sandbox on" else "yellow", 0),
        (where, "bold cyan" if runtime.remote else "", 0 if runtime.remote else 1),
        *_running_tasks(runtime),
        (f"session {session_text}", "dim", 5),
    ]
    while len(_SEPARATOR.join(p[0] for p in parts)) > width - 1 and any(p[2] for p in parts):
        worst = max(p[2] for p in parts)
        parts = [p for p in parts if p[2] != worst]
    pieces: list[tuple[str, str]] = []
    for index, (text, style, _) in enumerate(parts):
        if index:
            pieces.append((_SEPARATOR, "dim"))
        pieces.append((text, style))
    line = styler.join(pieces)
    return line


def _running_tasks(runtime: Runtime) -> list[tuple[str, str, int]]:
    running = runtime.tasks.running_count
    if not running:
        return []
    return [(f"{running} task{'' if running == 1 else 's'} running (/tasks)", "bold yellow", 0)]


def _count(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k"
    return str(tokens)
