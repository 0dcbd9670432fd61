"""The status line: what guards are active and what the session costs, always in view.

Model and thinking level, tokens in/out (unknown, not 0, when the server reports none), cost,
context use in % of the model's window (yellow from 70 %, red from 90 %), gate mode, whether
bash runs in the sandbox (and, when not, whether commands the shell policy allowed still run in
the read-only jail), where the tools run (this machine, or the ``--remote`` host), how many
skills the conversation loaded, the running background tasks, the durable run the terminal is
attached to (with the engine and its database), and the session. When the
terminal is narrow, the session, tokens and cost go first; model, context, gate, sandbox,
running tasks and a remote host stay.
"""

from __future__ import annotations

from typing import Final

from tether.ai import AssistantMessage
from tether.runtime import Runtime

from ._run_attachment import AttachedRun
from ._terminal_style import Styler
from ._usage_tally import UsageTally

__all__ = ["context_percent", "count_tokens", "sandbox_state", "status_line"]

_SEPARATOR: Final = " · "


def sandbox_state(runtime: Runtime) -> str:
    """``sandbox on`` (allowed commands in the read-only jail too), or ``sandbox off`` with
    whether allowed commands still run in the jail or on the proof alone (no bubblewrap)."""
    bash = runtime.definitions.get("bash")
    if bash is None:
        return "no bash"
    if bash.metadata.get("sandboxed"):
        return "sandbox on"
    if bash.metadata.get("read_only_jail"):
        return "sandbox off, jail on"
    return "sandbox off, no jail: proof alone"


def context_percent(runtime: Runtime) -> int:
    """The last response's tokens (prompt and answer) in % of the model's window; after a
    compaction that no response has followed yet, the estimate of the compacted context."""
    messages = runtime.agent.state.messages
    window = max(1, runtime.model.context_window)
    compacted_at = runtime.compactor.compacted_at
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if compacted_at is not None and position < compacted_at:
            break  # the newest response was before the newest summary
        if isinstance(message, AssistantMessage) and message.usage.input + message.usage.output:
            usage = message.usage
            used = usage.input + usage.cache_read + usage.cache_write + usage.output
            return min(999, round(100 * used / window))
    if compacted_at is None:
        return 0
    return min(999, round(100 * runtime.compactor.context_tokens(list(messages)) / window))


def status_line(
    runtime: Runtime, styler: Styler, width: int, *, attached: AttachedRun | None = None
) -> str:
    """The line; ``attached`` is the durable run the terminal follows (``/runs RUN``): the run
    and its status stay, the engine and its database go before the model's details."""
    tally = UsageTally()
    for message in runtime.agent.state.messages:
        if isinstance(message, AssistantMessage):
            tally.add(message)
    percent = context_percent(runtime)
    context_style = "bold red" if percent >= 90 else "yellow" if percent >= 70 else ""
    gate = runtime.gate.mode
    sandbox = sandbox_state(runtime)
    model = runtime.model.ref
    where = f"tools on {runtime.remote.address}" if runtime.remote else "tools here"
    if runtime.current_hand is not None:
        where = f"hand {runtime.current_hand}"
    session = runtime.session
    session_text = (session.name or session.id[:8]) if session is not None else "no session"
    # (text, style, drop order: 0 never dropped, higher dropped first)
    parts: list[tuple[str, str, int]] = [
        (model, "bold", 0),
        *([("offline demo model", "yellow", 1)] if runtime.model.api == "local" else []),
        (f"thinking {runtime.thinking_label}", "", 3),
        (_tokens(tally), "", 4),
        (tally.cost_text(3), "", 2),
        ("ctx ?" if tally.unknown else f"ctx {percent}%", context_style, 0),
        (f"gate {gate}", "bold red" if gate == "yolo" else "", 0),
        (sandbox, "green" if sandbox == "sandbox on" else "yellow", 0),
        (where, "bold cyan" if where != "tools here" else "", 0 if where != "tools here" else 1),
        *([(_skills_loaded(loaded), "", 3)] if (loaded := _loaded_skills(runtime)) else []),
        *_running_tasks(runtime),
        *(_attached(attached) if attached is not None else []),
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


def _attached(run: AttachedRun) -> list[tuple[str, str, int]]:
    return [(run.run_text(), "bold magenta", 0), (run.engine, "magenta", 1)]


def _running_tasks(runtime: Runtime) -> list[tuple[str, str, int]]:
    running = runtime.tasks.running_count
    if not running:
        return []
    return [(f"{running} task{'' if running == 1 else 's'} running (/tasks)", "bold yellow", 0)]


def _loaded_skills(runtime: Runtime) -> int:
    return len(runtime.skills.activations.loaded) if runtime.skills is not None else 0


def _skills_loaded(count: int) -> str:
    return f"{count} skill{'s' if count != 1 else ''} loaded"


def _tokens(tally: UsageTally) -> str:
    """``↑1.2k ↓56``; ``tokens unknown`` when no reply reported usage, ``↑1.2k+`` when some
    did not."""
    if tally.unknown:
        return "tokens unknown"
    plus = "+" if tally.unreported else ""
    return f"↑{count_tokens(tally.prompt)}{plus} ↓{count_tokens(tally.output)}{plus}"


def count_tokens(tokens: int) -> str:
    """``1234`` as ``1.2k``, ``2500000`` as ``2.5M``."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k"
    return str(tokens)
