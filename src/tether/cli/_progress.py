"""What a person watching a headless run sees on stderr: each tool call and its outcome on one
line (through the tool's own renderers), streamed command output, and the run's summary."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from tether.agent import (
    AgentEvent,
    MessageEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
)
from tether.ai import AssistantMessage, TextContent
from tether.gate import sanitize_for_display
from tether.tools import ToolDefinition

from ._call_label import call_label
from ._result_line import first_result_line
from ._usage_tally import UsageTally

__all__ = ["ProgressPrinter", "RunStats"]


@dataclass(slots=True)
class RunStats:
    """Counts for the summary line at the end of a run."""

    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    denials: int = 0
    usage: UsageTally = field(default_factory=UsageTally)
    cuts: list[str] = field(default_factory=list)
    """Why each reply cut short was cut (its ``error_message``, or the length limit)."""

    def observe(self, event: AgentEvent) -> None:
        if isinstance(event, TurnEnd):
            self.turns += 1
        elif isinstance(event, ToolExecutionEnd):
            self.calls[event.tool_name] += 1
            if event.is_error:
                self.errors += 1
                if _is_denial(event.result):
                    self.denials += 1
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            self.usage.add(event.message)
            if event.message.stop_reason == "length":
                self.cuts.append(event.message.error_message or "it reached its length limit")

    def summary(self) -> str:
        calls = ", ".join(f"{name} {count}" for name, count in sorted(self.calls.items()))
        seconds = time.monotonic() - self.started
        return (
            f"{self.turns} turn{'s' if self.turns != 1 else ''}, "
            f"{sum(self.calls.values())} tool calls ({calls or 'none'}), "
            f"{self.errors} error{'s' if self.errors != 1 else ''}, {self.denials} denied, "
            f"{self._cut_text()}tokens {self.usage.tokens_text()}, "
            f"{self.usage.cost_text()}, {seconds:.1f}s"
        )

    def _cut_text(self) -> str:
        if not self.cuts:
            return ""
        count = len(self.cuts)
        return f"{count} repl{'ies' if count != 1 else 'y'} cut ({self.cuts[-1]}), "


def _is_denial(result: Any) -> bool:
    content = getattr(result, "content", None) or []
    text = "".join(b.text for b in content if isinstance(b, TextContent))
    return text.startswith("Denied") or "denied" in text[:80].lower()


class ProgressPrinter:
    """An agent listener that writes one line per call and result to ``out``."""

    def __init__(self, definitions: Mapping[str, ToolDefinition], out: TextIO = sys.stderr) -> None:
        self.definitions = definitions
        self.out = out
        self.approvals: dict[str, str] = {}
        """Lines to show under a call, keyed by its tool-call id (what an approver decided about
        it, from the gate's request): the gate runs ahead of the listeners, so they are printed
        with the call's output."""
        self._streamed: dict[str, int] = {}
        self._labels: dict[str, str] = {}

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStart):
            label = self._call_text(event.tool_name, event.args)
            self._labels[event.tool_call_id] = label
            self._line(f"-> {label}")
        elif isinstance(event, ToolExecutionUpdate):
            self._show_approval(event.tool_call_id)
            self._stream(event.tool_call_id, event.partial_result)
        elif isinstance(event, ToolExecutionEnd):
            self._show_approval(event.tool_call_id)
            if event.tool_call_id in self._streamed:
                self._stream(event.tool_call_id, event.result, final=True)
            self._streamed.pop(event.tool_call_id, None)
            label = self._labels.pop(event.tool_call_id, event.tool_name)
            mark = "x" if event.is_error else "<-"
            self._line(f"   {mark} {label}: {self._result_text(event)}")
            details = getattr(event.result, "details", None)
            if isinstance(details, Mapping) and isinstance(details.get("diff"), str):
                for line in details["diff"].splitlines():
                    self._line(f"   | {sanitize_for_display(line)}")
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            message = event.message
            if message.failed and message.error_message:
                self._line(f"!! {message.error_message}")
            elif message.tool_calls() and message.text().strip():
                self._line(sanitize_for_display(message.text().strip()))

    def _show_approval(self, call_id: str) -> None:
        note = self.approvals.pop(call_id, None)
        if note is not None:
            self._line(note)

    def _call_text(self, name: str, args: Any) -> str:
        label = call_label(self.definitions, name, args)
        return label if label is not None else sanitize_for_display(name)

    def _result_text(self, event: ToolExecutionEnd) -> str:
        """The tool's own one-line view; a failure that never reached the tool (a denial, bad
        arguments: no details) shows the first line of what the model was told."""
        definition = self.definitions.get(event.tool_name)
        details = getattr(event.result, "details", None)
        reached_tool = not event.is_error or details is not None
        if reached_tool and definition is not None and definition.render_result is not None:
            return definition.render_result(event.result, event.is_error)
        content = getattr(event.result, "content", None) or []
        text = "".join(b.text for b in content if isinstance(b, TextContent)).strip()
        return first_result_line(text, limit=300)

    def _stream(self, call_id: str, partial: Any, *, final: bool = False) -> None:
        """Show output a running command streamed, once per new line (the last, unfinished
        line too when ``final``)."""
        content = getattr(partial, "content", None) or []
        text = "".join(b.text for b in content if isinstance(b, TextContent))
        lines = text.splitlines()
        shown = self._streamed.get(call_id, 0)
        complete = lines if final or text.endswith("\n") else lines[:-1]
        for line in complete[shown:]:
            self._line(f"   | {sanitize_for_display(line)}")
        self._streamed[call_id] = max(shown, len(complete))

    def _line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()
