"""The models tether knows without any configuration, as data.

Prices are US dollars per million tokens as the vendors list them (late 2026); ``cache_write``
is Anthropic's five-minute cache write (OpenAI charges nothing extra to write its cache).
OpenAI's reasoning models speak ``openai-responses`` (their reasoning items can only be replayed
there), the others ``openai-completions``; a model added to ``openai`` in ``models.toml``
follows the same rule unless its provider table names an ``api``.
"""

from __future__ import annotations

from .._types import Model, ModelCost
from ._compat import detect_compat

__all__ = [
    "ANTHROPIC_API",
    "ANTHROPIC_BASE_URL",
    "BUILTIN_MODELS",
    "BUILTIN_PROVIDERS",
    "OPENAI_BASE_URL",
    "openai_api_for",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_API = "anthropic-messages"
BUILTIN_PROVIDERS = ("openai", "anthropic", "local")

_TEXT_AND_IMAGE = ("text", "image")


def openai_api_for(reasoning: bool) -> str:
    """The wire protocol of an OpenAI model: Responses for reasoning models, else Chat."""
    return "openai-responses" if reasoning else "openai-completions"


def _openai(
    model_id: str,
    name: str,
    context_window: int,
    max_tokens: int,
    reasoning: bool,
    prices: tuple[float, float, float],
) -> Model:
    api = openai_api_for(reasoning)
    return Model(
        id=model_id,
        provider="openai",
        api=api,
        base_url=OPENAI_BASE_URL,
        context_window=context_window,
        max_tokens=max_tokens,
        input=_TEXT_AND_IMAGE,
        name=name,
        reasoning=reasoning,
        cost=ModelCost(*prices),
        compat=detect_compat(OPENAI_BASE_URL) if api == "openai-completions" else {},
    )


def _anthropic(
    model_id: str,
    name: str,
    max_tokens: int,
    reasoning: bool,
    prices: tuple[float, float, float, float],
) -> Model:
    return Model(
        id=model_id,
        provider="anthropic",
        api=ANTHROPIC_API,
        base_url=ANTHROPIC_BASE_URL,
        context_window=200_000,
        max_tokens=max_tokens,
        input=_TEXT_AND_IMAGE,
        name=name,
        reasoning=reasoning,
        cost=ModelCost(*prices),
    )


_GPT_41_WINDOW = 1_047_576
_GPT_5_WINDOW = 400_000

_OPENAI_MODELS: tuple[tuple[str, str, int, int, bool, tuple[float, float, float]], ...] = (
    # id, name, context window, max tokens, reasoning, prices (input, output, cache read)
    ("gpt-4.1", "GPT-4.1", _GPT_41_WINDOW, 32_768, False, (2.0, 8.0, 0.5)),
    ("gpt-4.1-mini", "GPT-4.1 mini", _GPT_41_WINDOW, 32_768, False, (0.4, 1.6, 0.1)),
    ("gpt-4.1-nano", "GPT-4.1 nano", _GPT_41_WINDOW, 32_768, False, (0.1, 0.4, 0.025)),
    ("gpt-4o", "GPT-4o", 128_000, 16_384, False, (2.5, 10.0, 1.25)),
    ("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, False, (0.15, 0.6, 0.075)),
    ("o3", "o3", 200_000, 100_000, True, (2.0, 8.0, 0.5)),
    ("o4-mini", "o4-mini", 200_000, 100_000, True, (1.1, 4.4, 0.275)),
    ("gpt-5", "GPT-5", _GPT_5_WINDOW, 128_000, True, (1.25, 10.0, 0.125)),
    ("gpt-5-mini", "GPT-5 mini", _GPT_5_WINDOW, 128_000, True, (0.25, 2.0, 0.025)),
    ("gpt-5-nano", "GPT-5 nano", _GPT_5_WINDOW, 128_000, True, (0.05, 0.4, 0.005)),
    ("gpt-5.1", "GPT-5.1", _GPT_5_WINDOW, 128_000, True, (1.25, 10.0, 0.125)),
)

_ANTHROPIC_MODELS: tuple[tuple[str, str, int, bool, tuple[float, float, float, float]], ...] = (
    # id, name, max tokens, reasoning, prices (input, output, cache read, cache write)
    ("claude-opus-4-5", "Claude Opus 4.5", 64_000, True, (5.0, 25.0, 0.5, 6.25)),
    ("claude-sonnet-4-5", "Claude Sonnet 4.5", 64_000, True, (3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4-5", "Claude Haiku 4.5", 64_000, True, (1.0, 5.0, 0.1, 1.25)),
    ("claude-opus-4-1", "Claude Opus 4.1", 32_000, True, (15.0, 75.0, 1.5, 18.75)),
    ("claude-sonnet-4-0", "Claude Sonnet 4", 64_000, True, (3.0, 15.0, 0.3, 3.75)),
    ("claude-opus-4-0", "Claude Opus 4", 32_000, True, (15.0, 75.0, 1.5, 18.75)),
    ("claude-3-7-sonnet-latest", "Claude Sonnet 3.7", 64_000, True, (3.0, 15.0, 0.3, 3.75)),
    ("claude-3-5-haiku-latest", "Claude Haiku 3.5", 8_192, False, (0.8, 4.0, 0.08, 1.0)),
)

BUILTIN_MODELS: tuple[Model, ...] = (
    *(_openai(*row) for row in _OPENAI_MODELS),
    *(_anthropic(*row) for row in _ANTHROPIC_MODELS),
    Model(
        id="smollm2-135m",
        provider="local",
        api="local",
        context_window=8_192,
        # a reply of its own rarely improves past this; a longer one is usually a loop
        max_tokens=512,
        input=("text",),
        name="SmolLM2 135M Instruct (embedded, offline)",
    ),
)
