"""The interactive terminal's screen on ``prompt_toolkit``: one application for the whole session.

At the bottom of the terminal, below everything already printed: the live area (the part of the
run still changing), an approval when one is asked, a rule, the input and the status line.
Finished output goes into the terminal's own scrollback above it (:meth:`TerminalScreen.write`).

Keys: Enter sends; Alt-Enter, Shift-Enter (terminals that report it) or Ctrl-J insert a newline
— while the agent works, Alt-Enter queues the text as a follow-up instead; Esc or Ctrl-C abort
the running turn; Ctrl-C clears the input, and twice on an empty input quits, as does Ctrl-D;
Ctrl-O expands the last collapsed output. History is kept in the data directory; ``/`` completes
commands and ``@`` completes files of the workspace.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.styles import Style

from tether.gate import Decision

from ._terminal_approver import ANSWER_HINT, ANSWER_KEYS

__all__ = ["ScreenHooks", "TerminalScreen", "WorkspaceCompleter"]

ARM_SECONDS: Final = 0.4
"""An approval ignores keys for this long after it appears (type-ahead never answers)."""
QUIT_WINDOW_SECONDS: Final = 2.0
_SKIPPED_DIRS: Final = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"})
_MAX_FILES: Final = 5000

# Shift-Enter as terminals with extended key reporting send it (CSI u, xterm modifyOtherKeys):
# a newline, like Ctrl-J.
ANSI_SEQUENCES.setdefault("\x1b[13;2u", Keys.ControlJ)
ANSI_SEQUENCES.setdefault("\x1b[27;2;13~", Keys.ControlJ)


@dataclass(slots=True)
class ScreenHooks:
    """What the screen asks of the session: it holds no agent logic itself."""

    submit: Callable[[str, str], None]
    """``(text, kind)``: kind ``send`` (Enter) or ``follow_up`` (Alt-Enter while working)."""
    interrupt: Callable[[], bool]
    """Esc / Ctrl-C: abort the running turn; False when nothing was running."""
    is_running: Callable[[], bool]
    live_lines: Callable[[], list[str]]
    status_line: Callable[[int], str]
    """The status line (ANSI) for a width."""
    expand: Callable[[], None]
    tick: Callable[[], None]


class WorkspaceCompleter(Completer):
    """``/`` commands (and their arguments) at the start of the input, ``@path`` anywhere."""

    def __init__(
        self,
        cwd: str,
        commands: Mapping[str, str],
        arguments: Mapping[str, Callable[[], list[str]]],
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments
        self._files: list[str] = []
        self._listed_at = -1e9

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and "\n" not in before:
            name, space, partial = before[1:].partition(" ")
            if not space:
                for command, help_text in self.commands.items():
                    if command.startswith(name):
                        yield Completion(
                            f"/{command}", -len(before), display_meta=help_text.split(".")[0]
                        )
                return
            choices = self.arguments.get(name)
            for choice in choices() if choices is not None else []:
                if choice.startswith(partial.strip()):
                    yield Completion(choice, -len(partial))
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            query = word[1:].lower()
            ranked = sorted(
                (path for path in self.files() if query in path.lower()),
                key=lambda path: (not path.lower().startswith(query), len(path), path),
            )
            for path in ranked[:50]:
                yield Completion(f"@{path}", -len(word))

    def files(self) -> list[str]:
        """Files of the workspace relative to it (listed again after a few seconds)."""
        if time.monotonic() - self._listed_at < 5:
            return self._files
        found: list[str] = []
        for root, dirs, names in os.walk(self.cwd):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
            relative = os.path.relpath(root, self.cwd)
            for name in sorted(names):
                found.append(name if relative == "." else os.path.join(relative, name))
            if len(found) >= _MAX_FILES:
                break
        self._files, self._listed_at = found[:_MAX_FILES], time.monotonic()
        return self._files


@dataclass(slots=True)
class _Asking:
    lines: list[str]
    answer: asyncio.Future[Decision]
    shown_at: float

    def armed(self) -> bool:
        return time.monotonic() - self.shown_at >= ARM_SECONDS


class TerminalScreen:
    """The application; also the approvals' :class:`ApprovalSurface`."""

    def __init__(self, hooks: ScreenHooks, completer: Completer, history_path: str) -> None:
        from tether._home import open_private

        self.hooks = hooks
        open_private(history_path, "a").close()
        self.buffer = Buffer(
            multiline=True,
            history=FileHistory(history_path),
            completer=completer,
            complete_while_typing=True,
            read_only=Condition(lambda: self._asking is not None),
        )
        self._asking: _Asking | None = None
        self._pending: list[str] = []
        self._flush_scheduled = False
        self._ctrl_c_at = -1e9
        self._hint = ""
        self.app: Application[None] = self._application()

    # -- output ----------------------------------------------------------------------------------

    def width(self) -> int:
        if self.app.is_running:
            return self.app.output.get_size().columns
        return shutil.get_terminal_size().columns

    def write(self, lines: list[str]) -> None:
        """Print ``lines`` (ANSI) into scrollback, above the application, in order."""
        if not lines:
            return
        self._pending.extend(lines)
        if not self.app.is_running:
            self._flush()
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            run_in_terminal(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        lines, self._pending = self._pending, []
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

    def invalidate(self) -> None:
        if self.app.is_running:
            self.app.invalidate()

    def put_back(self, text: str) -> None:
        """Put ``text`` into the input (queued messages of an aborted turn)."""
        joined = "\n".join(filter(None, [text, self.buffer.text]))
        self.buffer.document = Document(joined, len(joined))

    # -- approvals -------------------------------------------------------------------------------

    async def ask(self, lines: list[str]) -> Decision:
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._asking = _Asking(lines, answer, time.monotonic())
        self.buffer.cancel_completion()
        self.invalidate()
        asyncio.get_running_loop().call_later(ARM_SECONDS + 0.01, self.invalidate)
        try:
            return await answer
        finally:
            self._asking = None
            self.invalidate()

    def cancel_asking(self) -> None:
        if self._asking is not None and not self._asking.answer.done():
            self._asking.answer.set_result("deny_once")

    # -- running ---------------------------------------------------------------------------------

    async def run(self) -> None:
        ticker = asyncio.ensure_future(self._tick())
        try:
            await self.app.run_async()
        finally:
            ticker.cancel()

    def exit(self) -> None:
        if self.app.is_running and not self.app.is_done:
            self.app.exit()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.08)
            if self.hooks.is_running() or self._asking is not None:
                self.hooks.tick()
                self.invalidate()

    # -- layout ----------------------------------------------------------------------------------

    def _application(self) -> Application[None]:
        asking = Condition(lambda: self._asking is not None)
        live = Window(
            FormattedTextControl(self._live_text),
            dont_extend_height=True,
            wrap_lines=False,
        )
        approval = ConditionalContainer(
            Window(FormattedTextControl(self._approval_text), dont_extend_height=True),
            filter=asking,
        )
        hint = ConditionalContainer(
            Window(FormattedTextControl(lambda: [("class:hint", self._hint)]), height=1),
            filter=Condition(lambda: bool(self._hint)),
        )
        editor = Window(
            BufferControl(self.buffer),
            height=Dimension(min=1, max=12),
            dont_extend_height=True,
            wrap_lines=True,
            get_line_prefix=lambda line, wrap: [("class:prompt", "> " if line == 0 else "  ")],
        )
        status = Window(
            FormattedTextControl(lambda: ANSI(self.hooks.status_line(self.width()))), height=1
        )
        body = HSplit(
            [
                live,
                approval,
                hint,
                Window(height=1, char="─", style="class:rule"),
                editor,
                CompletionsMenu(max_height=8, scroll_offset=1),
                status,
            ]
        )
        app: Application[None] = Application(
            layout=Layout(body, focused_element=editor),
            key_bindings=self._key_bindings(),
            style=Style.from_dict(
                {
                    "rule": "#5f5f5f",
                    "prompt": "bold ansicyan",
                    "hint": "ansiyellow",
                    "approval": "bold ansiyellow",
                    "approval.body": "",
                    "approval.keys": "bold ansigreen",
                    "approval.wait": "ansibrightblack",
                }
            ),
            full_screen=False,
            mouse_support=False,
            erase_when_done=False,
            min_redraw_interval=0.02,
        )
        app.ttimeoutlen = 0.05
        app.timeoutlen = 0.3
        return app

    def _live_text(self) -> ANSI:
        lines = self.hooks.live_lines()
        room = max(3, self.app.output.get_size().rows - 8) if self.app.is_running else 20
        return ANSI("\n".join(lines[-room:]))

    def _approval_text(self) -> StyleAndTextTuples:
        asking = self._asking
        if asking is None:
            return []
        parts: StyleAndTextTuples = [("class:approval", asking.lines[0] + "\n")]
        parts += [("class:approval.body", f"  {line}\n") for line in asking.lines[1:]]
        if asking.armed():
            parts.append(("class:approval.keys", f"  {ANSWER_HINT}"))
        else:
            parts.append(("class:approval.wait", "  …"))
        return parts

    # -- keys ------------------------------------------------------------------------------------

    def _key_bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        asking = Condition(lambda: self._asking is not None)
        running = Condition(self.hooks.is_running)
        self._bind_answers(bindings, asking)
        self._bind_editing(bindings, asking, running)
        self._bind_interrupts(bindings, asking, running)
        return bindings

    def _bind_answers(self, bindings: KeyBindings, asking: Condition) -> None:
        """While a call is asked about, a key is an answer (once the card is armed)."""

        @bindings.add(Keys.Any, filter=asking, eager=True)
        @bindings.add("enter", filter=asking, eager=True)
        def _answer(event: KeyPressEvent) -> None:
            current = self._asking
            key = event.key_sequence[0].data.lower()
            if current is None or not current.armed() or current.answer.done():
                return
            decision = ANSWER_KEYS.get(key)
            if decision is not None:
                current.answer.set_result(decision)

    def _bind_editing(self, bindings: KeyBindings, asking: Condition, running: Condition) -> None:
        """Enter sends (or takes the completion), Alt-Enter a follow-up, Ctrl-J a new line."""

        @bindings.add("enter", filter=~asking)
        def _send(event: KeyPressEvent) -> None:
            state = self.buffer.complete_state
            if state is not None and state.current_completion is not None:
                self.buffer.apply_completion(state.current_completion)
                return
            self._send("send")

        @bindings.add("escape", "enter", filter=~asking)
        def _alt_enter(event: KeyPressEvent) -> None:
            if self.hooks.is_running() and self.buffer.text.strip():
                self._send("follow_up")
            else:
                self.buffer.insert_text("\n")

        @bindings.add("c-j", filter=~asking)
        def _newline(event: KeyPressEvent) -> None:
            self.buffer.insert_text("\n")

        @bindings.add("escape", filter=has_completions & ~running & ~asking)
        def _close_menu(event: KeyPressEvent) -> None:
            self.buffer.cancel_completion()

        @bindings.add("c-o", filter=~asking)
        def _expand(event: KeyPressEvent) -> None:
            self.hooks.expand()

    def _bind_interrupts(
        self, bindings: KeyBindings, asking: Condition, running: Condition
    ) -> None:
        """Esc and Ctrl-C interrupt a turn (Ctrl-C clears the line, twice quits), Ctrl-D quits
        on an empty line."""

        @bindings.add("escape", filter=asking, eager=True)
        @bindings.add("escape", filter=running & ~asking)
        def _escape(event: KeyPressEvent) -> None:
            self.hooks.interrupt()

        @bindings.add("c-c", eager=True)
        def _ctrl_c(event: KeyPressEvent) -> None:
            if self.hooks.interrupt():
                return
            if self.buffer.text:
                self.buffer.reset()
                return
            now = time.monotonic()
            if now - self._ctrl_c_at < QUIT_WINDOW_SECONDS:
                self.exit()
                return
            self._ctrl_c_at = now
            self._show_hint("Press Ctrl-C again to quit (or Ctrl-D).")

        @bindings.add("c-d", filter=~asking)
        def _ctrl_d(event: KeyPressEvent) -> None:
            if not self.buffer.text:
                self.hooks.interrupt()
                self.exit()
            else:
                self.buffer.delete()

    def _send(self, kind: str) -> None:
        text = self.buffer.text
        if not text.strip():
            return
        self.buffer.reset(append_to_history=True)
        self._hint = ""
        self.hooks.submit(text.strip("\n"), kind)

    def _show_hint(self, text: str) -> None:
        self._hint = text

        def clear() -> None:
            if self._hint == text:
                self._hint = ""
                self.invalidate()

        asyncio.get_running_loop().call_later(QUIT_WINDOW_SECONDS, clear)
        self.invalidate()
