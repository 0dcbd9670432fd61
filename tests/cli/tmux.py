"""A real terminal for the interactive tests: a tmux pane on a private server.

``send`` types keys (tmux key names, or text with ``literal=True``), ``screen`` is what the pane
shows now (capture-pane), ``wait_for`` polls it with a deadline (the event loop keeps serving the
loopback server meanwhile), ``resize`` changes the window's size.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence

_numbers = itertools.count()


class TmuxPane:
    def __init__(self, width: int = 100, height: int = 30) -> None:
        self.socket = f"tether-test-{os.getpid()}-{next(_numbers)}"
        self.width = width
        self.height = height

    def _tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0 and args[0] != "kill-server":
            raise AssertionError(f"tmux {args[0]} failed: {result.stderr.strip()}")
        return result.stdout

    def start(self, argv: Sequence[str], *, cwd: str, env: dict[str, str]) -> None:
        command = " ".join(shlex.quote(part) for part in argv)
        subprocess.run(
            [
                "tmux",
                "-L",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                str(self.width),
                "-y",
                str(self.height),
                "-c",
                cwd,
                f"{command}; echo '[exited]' $?; sleep 30",
            ],
            env={**env, "TERM": "xterm-256color"},
            check=True,
        )
        self._tmux("set-option", "-g", "status", "off")

    def send(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def type(self, text: str) -> None:
        self.send(text, literal=True)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def history(self) -> str:
        """The scrollback and the screen."""
        return self._tmux("capture-pane", "-p", "-t", "t", "-S", "-2000")

    def resize(self, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def pane_pid(self) -> int:
        return int(self._tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())

    async def wait_for(
        self, wanted: str | Callable[[str], bool], timeout: float = 30, *, whole: bool = True
    ) -> str:
        """Poll until ``wanted`` (text, or a predicate of the text) shows; the text. Text is
        matched with blanks and line breaks ignored: the terminal wraps a long line (a longer
        temporary path moves the break), and the wanted words must not depend on where."""
        if callable(wanted):
            check = wanted
        else:
            squeezed = "".join(wanted.split())
            check = lambda text: wanted in text or squeezed in "".join(text.split())  # noqa: E731
        deadline = time.monotonic() + timeout
        while True:
            text = self.history() if whole else self.screen()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {wanted!r}; the pane shows:\n{text}")
            await asyncio.sleep(0.05)

    def close(self) -> None:
        self._tmux("kill-server")
