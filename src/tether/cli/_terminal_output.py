"""What the interactive terminal shows of a run: an agent listener that writes finished output
into the terminal's scrollback once and keeps only the unfinished part in a small live area.

Assistant text is rendered as Markdown on every update, but only its last few lines stay live
(repainted); the lines above them are settled and printed once, so scrollback is never
rewritten — the approach of aider's streaming Markdown. Thinking streams dimmed and settles as one
collapsed line; each tool call is shown through its definition's ``render_call`` /
``render_result``; a running command's output streams in the live area with its elapsed time and
its last lines stay in scrollback; an edit shows its diff; a denial is shown in full, with its
reason. ``Ctrl-O`` (:meth:`Transcript.expand_last`) prints the last collapsed thing in full.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tether.agent import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnStart,
)
from tether.ai import AssistantMessage, ImageContent, TextContent, ThinkingContent, UserMessage
from tether.mcp import result_body
from tether.tools import ToolDefinition

from ._call_label import call_label
from ._result_line import first_result_line
from ._terminal_style import Styler

__all__ = ["Transcript"]

LIVE_MARKDOWN_LINES = 6
"""Rendered Markdown lines kept live (a table or a code block may still change them)."""
SHOWN_OUTPUT_LINES = 10
"""Lines of a command's output kept in scrollback (and shown live while it runs)."""
SHOWN_DIFF_LINES = 60
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass(slots=True)
class _RunningCall:
    tool_name: str
    label: str
    started: float
    output: str = ""
    asked: bool = False
    asking: bool = False


@dataclass(slots=True)
class _Stream:
    """The assistant message being streamed: its text, how many rendered lines are settled."""

    text: str = ""
    thinking: str = ""
    settled: int = 0
    rendered: list[str] = field(default_factory=list)
    dirty: bool = False
    start: int = 0
    """Where in ``text`` the rendered segment begins (a resize starts a new segment)."""
    rendered_up_to: int = 0
    width: int = 0


class Transcript:
    """Subscribe it to the agent (``agent.subscribe(transcript)``); ``write`` prints lines into
    scrollback, :meth:`live_lines` is what the live area shows right now."""

    def __init__(
        self,
        styler: Styler,
        definitions: Mapping[str, ToolDefinition],
        write: Callable[[list[str]], None],
    ) -> None:
        self.styler = styler
        self.definitions = definitions
        self.write = write
        self.queued: list[tuple[str, str]] = []
        """Messages typed while the agent works, not delivered yet: ``(kind, text)``."""
        self.running = False
        self.on_change: Callable[[], None] = lambda: None
        """Called when something the live area shows changed at once (the first token)."""
        self.aborting = False
        """Esc was pressed: the live area says so until the run (or activity) has stopped."""
        self.describe_wait: Callable[[], str] = lambda: "working"
        """What a turn waits for before its first token (asked once per turn)."""
        self.activity: Callable[[], str] | None = None
        """Work outside a turn that the person waits for (``/compact``): its live text."""
        self._activity_since = 0.0
        self._activity_hint = " · Esc to abort"
        self._calls: dict[str, _RunningCall] = {}
        self._stream = _Stream()
        self._waiting_since: float | None = None
        self._waiting_for = "working"
        self._collapsed: list[str] = []

    # -- events ----------------------------------------------------------------------------------

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStart | TurnStart):
            self.running = True
            self._waiting_since = time.monotonic()
            self._waiting_for = self.describe_wait()
        elif isinstance(event, MessageStart) and isinstance(event.message, UserMessage):
            self._delivered(event.message)
        elif isinstance(event, MessageUpdate):
            self._update(event.message)
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            self._finish(event.message)
        elif isinstance(event, ToolExecutionStart):
            self._start_call(event)
        elif isinstance(event, ToolExecutionUpdate):
            call = self._calls.get(event.tool_call_id)
            if call is not None:
                call.output = _text_of(event.partial_result)
        elif isinstance(event, ToolExecutionEnd):
            self._end_call(event)
        elif isinstance(event, AgentEnd):
            self.running = False
            self.aborting = False
            self._waiting_since = None
            self._calls.clear()

    def start_activity(self, describe: Callable[[], str], hint: str = "Esc to abort") -> None:
        """Show ``describe()`` with a clock and ``hint`` (what Esc does) in the live area until
        :meth:`end_activity`."""
        self.activity, self._activity_since = describe, time.monotonic()
        self._activity_hint = f" · {hint}"
        self.on_change()

    def end_activity(self) -> None:
        self.activity, self.aborting = None, False
        self.on_change()

    def has_shown_call(self, tool_name: str) -> bool:
        """Whether a running call of ``tool_name`` has been shown: an approval is asked only
        below the call it is about."""
        return any(call.tool_name == tool_name for call in self._calls.values())

    def asking(self, tool_call_id: str | None, tool_name: str, waiting: bool) -> None:
        """A person is being asked about a call (``waiting``), or has answered: its clock
        starts again, so it shows how long the call itself ran. The call is the one with
        ``tool_call_id`` (the gate's request names it), else the first of ``tool_name`` not
        asked about yet."""
        same = self._calls.get(tool_call_id) if tool_call_id is not None else None
        unasked = [c for c in self._calls.values() if c.tool_name == tool_name and not c.asked]
        for call in ([same] if same is not None else unasked)[:1]:
            call.asking = waiting
            if not waiting:
                call.asked, call.started = True, time.monotonic()

    def tick(self) -> None:
        """Render the streamed text if it changed and settle what can no longer change.

        Lines already in scrollback were rendered at the width of their time; when the
        terminal is resized, the live lines are settled as they are and the rest of the
        text is rendered as a new segment at the new width, so nothing shows twice."""
        stream = self._stream
        if not stream.dirty:
            return
        stream.dirty = False
        width = self.styler.width()
        if stream.width and width != stream.width and stream.rendered:
            self.write(stream.rendered[stream.settled :])
            stream.start, stream.settled, stream.rendered = stream.rendered_up_to, 0, []
        stream.width = width
        stream.rendered = self._render_text(stream.text[stream.start :])
        stream.rendered_up_to = len(stream.text)
        keep = 1 if self.styler.plain else LIVE_MARKDOWN_LINES
        stable = len(stream.rendered) - keep
        if stable > stream.settled:
            self.write(stream.rendered[stream.settled : stable])
            stream.settled = stable

    # -- what is shown ---------------------------------------------------------------------------

    def live_lines(self) -> list[str]:
        """The live area: the unsettled text, thinking, running calls, the spinner, the queue."""
        styler = self.styler
        now = time.monotonic()
        lines: list[str] = []
        stream = self._stream
        if stream.thinking and not stream.text:
            tail = stream.thinking.strip().split("\n")[-3:]
            lines += styler.block("\n".join(tail), "dim italic", "✻ ")
        lines += stream.rendered[stream.settled :]
        for call in self._calls.values():
            output = call.output.rstrip("\n").split("\n")[-SHOWN_OUTPUT_LINES:]
            lines += styler.block("\n".join(output), "dim", "  │ ") if call.output.strip() else []
            spin = SPINNER[int(now * 10) % len(SPINNER)]
            if call.asking:
                lines.append(styler.line(f"  ? {call.label}  waiting for your answer", "yellow"))
            else:
                elapsed = now - call.started
                lines.append(styler.line(f"  {spin} {call.label}  {elapsed:.1f}s · Esc to abort"))
        spin = SPINNER[int(now * 10) % len(SPINNER)]
        hint = "" if self.aborting else " · Esc to abort"
        if self._waiting_since is not None and not self._calls and self.running:
            waited = now - self._waiting_since
            lines.append(styler.line(f"{spin} {self._waiting_for}  {waited:.1f}s{hint}", "cyan"))
        if self.activity is not None:
            elapsed = now - self._activity_since
            shown = "" if self.aborting else self._activity_hint
            lines.append(styler.line(f"{spin} {self.activity()}  {elapsed:.1f}s{shown}", "cyan"))
        for kind, text in self.queued:
            lines.append(styler.line(f"⏳ queued ({kind}): {text}", "yellow"))
        if self.aborting:  # below what still streams in, so it reads in order
            lines.append(styler.line("⏹ Aborting… (running commands are being stopped)", "yellow"))
        return lines

    def user(self, text: str, note: str = "") -> None:
        """A message the person sent, as it goes to the model."""
        lines = self.styler.block(text, "bold", "")
        lines[0] = self.styler.join([("> ", "bold cyan"), (text.split("\n", 1)[0], "bold")])
        if note:
            lines[-1] += self.styler.line(f"  ({note})", "dim")
        self.write(["", *lines])

    def note(self, text: str, style: str = "dim") -> None:
        """A line of its own (wrapped with the indent it starts with)."""
        body = text.lstrip(" ")
        margin = " " * (len(text) - len(body))
        self.write(self.styler.block(body, style, margin + "  ", margin, prose=True))

    def expand_last(self) -> None:
        """Print the last collapsed thing (thinking, a result, long output) in full."""
        if not self._collapsed:
            self.note("Nothing collapsed to show.")
            return
        self.write(self.styler.block(self._collapsed[-1], "", "  "))

    # -- internals -------------------------------------------------------------------------------

    def _render_text(self, text: str) -> list[str]:
        if not text.strip():
            return []
        return self.styler.markdown(text.strip("\n"))

    def _update(self, message: AssistantMessage) -> None:
        stream = self._stream
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingContent))
        first = self._waiting_since is not None and (text or thinking or message.tool_calls())
        if first:
            self._waiting_since = None
        if text != stream.text:
            if not stream.text:
                self._settle_thinking(thinking)
            stream.text, stream.dirty = text, True
        stream.thinking = thinking
        if first:
            self.tick()
            self.on_change()

    def _settle_thinking(self, thinking: str) -> None:
        if not thinking.strip():
            return
        count = len(thinking.strip().split("\n"))
        first = thinking.strip().split("\n")[0][:70]
        more = f" … ({count} lines, Ctrl-O shows)" if count > 1 or len(first) >= 70 else ""
        self.write([self.styler.line(f"✻ {first}{more}", "dim italic")])
        self._collapsed.append(thinking.strip())

    def _finish(self, message: AssistantMessage) -> None:
        stream = self._stream
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingContent))
        if not stream.text:
            self._settle_thinking(thinking)
        stream.dirty = True
        self.tick()  # a resize since the last render starts a segment first
        rendered = self._render_text(text[stream.start :])
        self.write(rendered[stream.settled :])
        self._stream = _Stream()
        if message.stop_reason == "aborted":
            self.note("⏹ aborted", "yellow")
        elif message.stop_reason == "error":
            self.note(f"!! {message.error_message or 'the request failed'}", "bold red")
        elif message.stop_reason == "length":
            self.note(
                f"✂ reply cut: {message.error_message or 'it reached its length limit'}", "yellow"
            )

    def _delivered(self, message: UserMessage) -> None:
        text = message.content if isinstance(message.content, str) else ""
        for position, (kind, queued) in enumerate(self.queued):
            if queued == text:
                del self.queued[position]
                self.user(text, f"{kind}, delivered")
                return

    def _start_call(self, event: ToolExecutionStart) -> None:
        label = call_label(self.definitions, event.tool_name, event.args) or event.tool_name
        self._calls[event.tool_call_id] = _RunningCall(event.tool_name, label, time.monotonic())
        self._waiting_since = None
        self.write([self.styler.join([("● ", "bold magenta"), (label, "bold")])])

    def _end_call(self, event: ToolExecutionEnd) -> None:
        call = self._calls.pop(event.tool_call_id, None)
        seconds = time.monotonic() - call.started if call is not None else 0.0
        styler = self.styler
        details = getattr(event.result, "details", None)
        text = _text_of(event.result)
        definition = self.definitions.get(event.tool_name)
        reached_tool = not event.is_error or details is not None
        lines: list[str] = []
        if not reached_tool:
            shown = result_body(text).strip() or "failed"
            lines += styler.block(shown, "red", "    ", "  ✗ ", prose=True)
            self.write(lines)
            return
        if isinstance(details, Mapping) and isinstance(details.get("diff"), str):
            diff = details["diff"].rstrip("\n").split("\n")
            lines += styler.diff("\n".join(diff[:SHOWN_DIFF_LINES]))
            if len(diff) > SHOWN_DIFF_LINES:
                lines.append(styler.line(f"  … {len(diff) - SHOWN_DIFF_LINES} more lines", "dim"))
                self._collapsed.append(details["diff"])
        elif event.tool_name == "bash" and text.strip():
            output = text.rstrip("\n").split("\n")
            if len(output) > SHOWN_OUTPUT_LINES:
                hidden = len(output) - SHOWN_OUTPUT_LINES
                lines.append(styler.line(f"  │ … {hidden} earlier lines (Ctrl-O shows)", "dim"))
                self._collapsed.append(text)
            lines += styler.block("\n".join(output[-SHOWN_OUTPUT_LINES:]), "dim", "  │ ")
        elif text.strip():
            self._collapsed.append(text)
        if definition is not None and definition.render_result is not None:
            summary = definition.render_result(event.result, event.is_error)
        else:
            summary = first_result_line(text, limit=200, empty=_no_text(event.result))
        style = "red" if event.is_error else "green"
        lines.append(styler.join([("  ⎿ ", style), (summary, style), (f"  {seconds:.1f}s", "dim")]))
        self.write(lines)


def _no_text(result: Any) -> str:
    """The summary of a result without text: what it holds instead (an image), else done."""
    content = getattr(result, "content", None) or []
    images = sum(1 for block in content if isinstance(block, ImageContent))
    if images:
        return "an image" if images == 1 else f"{images} images"
    return "done"


def _text_of(result: Any) -> str:
    content = getattr(result, "content", None) or []
    return "".join(block.text for block in content if isinstance(block, TextContent))
