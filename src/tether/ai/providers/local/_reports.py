"""What a generation of the embedded model reports, on both sides of the worker's pipe.

A generation reports :class:`Prompted` once (before the prompt is evaluated), then each token's
text as a ``str`` (possibly empty while a character's UTF-8 bytes are incomplete), then
:class:`Finished`. Nothing here imports llama.cpp, so tether's own process can use these types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Finished", "Prompted", "Report"]


@dataclass(slots=True, frozen=True)
class Prompted:
    tokens: int
    cached: int
    """Of ``tokens``, how many were already evaluated by an earlier request."""


@dataclass(slots=True, frozen=True)
class Finished:
    """How the generation ended. ``error`` comes with a ``message`` for a person, complete in
    itself; ``length`` may say why the reply was cut."""

    reason: Literal["stop", "length", "aborted", "error"]
    message: str = ""


Report: TypeAlias = str | Prompted | Finished
