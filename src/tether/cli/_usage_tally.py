"""Token counts over a run's replies, with usage a server did not report kept apart from zero.

Every request a server answered had a prompt, so a reply whose usage is all zero is one whose
server reported none (llama-cpp-python ignores ``stream_options``): its tokens are unknown, not
0. A failed reply with no usage never got an answer and is not counted either way; a run with
only such replies used no tokens that anyone reported: ``none``, not ``0 in / 0 out``. Print
mode's summary, the terminal's status line and the HTML export all show counts through here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tether.ai import AssistantMessage

__all__ = ["UsageTally"]


@dataclass(slots=True)
class UsageTally:
    """Tokens in (``input`` fresh, and cache reads and writes) and out, cost, and how many
    replies reported usage and how many did not."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    reported: int = 0
    unreported: int = 0

    def add(self, message: AssistantMessage) -> None:
        usage = message.usage
        counts = [_count(getattr(usage, name, 0)) for name in _FIELDS]
        if not any(counts):
            if not message.failed or message.content:
                self.unreported += 1
            return
        self.reported += 1
        fresh, output, cache_read, cache_write = counts
        self.input += fresh
        self.output += output
        self.cache_read += cache_read
        self.cache_write += cache_write
        cost = usage.cost
        self.cost += cost if isinstance(cost, int | float) and not isinstance(cost, bool) else 0.0

    @property
    def unknown(self) -> bool:
        """No reply reported usage, and at least one reply came."""
        return self.unreported > 0 and self.reported == 0

    def missing_note(self) -> str:
        """``""``, or what is missing: "no usage reported", "2 of 5 replies reported no usage"."""
        if not self.unreported:
            return ""
        if self.unknown:
            return "the server reported no usage"
        total = self.reported + self.unreported
        return f"{self.unreported} of {total} replies reported no usage"

    @property
    def prompt(self) -> int:
        """Every prompt token: fresh, read from the cache and written to it."""
        return self.input + self.cache_read + self.cache_write

    def tokens_text(self, *, with_cache: bool = True, between: str = " / ") -> str:
        """``1,234 in / 56 out`` (``in`` with the cache's tokens unless ``with_cache`` is
        false); ``unknown (...)`` or ``1,234+ in / 56+ out (...)`` when a server did not say."""
        if self.unknown:
            return f"unknown ({self.missing_note()})"
        if not self.reported and not self.unreported:
            return "none (no model reply)"  # every request failed before any answer came
        plus = "+" if self.unreported else ""
        tokens_in = self.prompt if with_cache else self.input
        text = f"{tokens_in:,}{plus} in{between}{self.output:,}{plus} out"
        return f"{text} ({self.missing_note()})" if self.unreported else text

    def cost_text(self, digits: int = 4) -> str:
        if self.unknown:
            return "cost unknown"
        return f"${self.cost:.{digits}f}{'+' if self.unreported else ''}"


_FIELDS = ("input", "output", "cache_read", "cache_write")


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
