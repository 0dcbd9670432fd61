"""The wire protocols behind :data:`~tether.ai.StreamFn`: OpenAI Chat Completions (and every
compatible server), OpenAI Responses, Anthropic Messages and the embedded local model.

:func:`stream` dispatches on ``model.api``; each protocol streams text, thinking and tool-call
arguments as tether events, reports usage and cost, honours the abort signal at once, and turns
every failure into an ``error`` event with a specific message. Layer 1: describes and streams,
never executes.
"""

from ._dispatch import API_MODULES, complete, stream

__all__ = ["API_MODULES", "complete", "stream"]
