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
    *,
    context_window: int,
    max_tokens: int,
    reasoning: bool,
    cost: ModelCost,
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
        cost=cost,
        compat=detect_compat(OPENAI_BASE_URL) if api == "openai-completions" else {},
    )


def _anthropic(
    model_id: str,
    name: str,
    *,
    max_tokens: int,
    reasoning: bool,
    cost: ModelCost,
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
        cost=cost,
    )


_GPT_41_WINDOW = 1_047_576
_GPT_5_WINDOW = 400_000

BUILTIN_MODELS: tuple[Model, ...] = (
    _openai(
        "gpt-4.1",
        "GPT-4.1",
        context_window=_GPT_41_WINDOW,
        max_tokens=32_768,
        reasoning=False,
        cost=ModelCost(input=2.0, output=8.0, cache_read=0.5),
    ),
    _openai(
        "gpt-4.1-mini",
        "GPT-4.1 mini",
        context_window=_GPT_41_WINDOW,
        max_tokens=32_768,
        reasoning=False,
        cost=ModelCost(input=0.4, output=1.6, cache_read=0.1),
    ),
    _openai(
        "gpt-4.1-nano",
        "GPT-4.1 nano",
        context_window=_GPT_41_WINDOW,
        max_tokens=32_768,
        reasoning=False,
        cost=ModelCost(input=0.1, output=0.4, cache_read=0.025),
    ),
    _openai(
        "gpt-4o",
        "GPT-4o",
        context_window=128_000,
        max_tokens=16_384,
        reasoning=False,
        cost=ModelCost(input=2.5, output=10.0, cache_read=1.25),
    ),
    _openai(
        "gpt-4o-mini",
        "GPT-4o mini",
        context_window=128_000,
        max_tokens=16_384,
        reasoning=False,
        cost=ModelCost(input=0.15, output=0.6, cache_read=0.075),
    ),
    _openai(
        "o3",
        "o3",
        context_window=200_000,
        max_tokens=100_000,
        reasoning=True,
        cost=ModelCost(input=2.0, output=8.0, cache_read=0.5),
    ),
    _openai(
        "o4-mini",
        "o4-mini",
        context_window=200_000,
        max_tokens=100_000,
        reasoning=True,
        cost=ModelCost(input=1.1, output=4.4, cache_read=0.275),
    ),
    _openai(
        "gpt-5",
        "GPT-5",
        context_window=_GPT_5_WINDOW,
        max_tokens=128_000,
        reasoning=True,
        cost=ModelCost(input=1.25, output=10.0, cache_read=0.125),
    ),
    _openai(
        "gpt-5-mini",
        "GPT-5 mini",
        context_window=_GPT_5_WINDOW,
        max_tokens=128_000,
        reasoning=True,
        cost=ModelCost(input=0.25, output=2.0, cache_read=0.025),
    ),
    _openai(
        "gpt-5-nano",
        "GPT-5 nano",
        context_window=_GPT_5_WINDOW,
        max_tokens=128_000,
        reasoning=True,
        cost=ModelCost(input=0.05, output=0.4, cache_read=0.005),
    ),
    _openai(
        "gpt-5.1",
        "GPT-5.1",
        context_window=_GPT_5_WINDOW,
        max_tokens=128_000,
        reasoning=True,
        cost=ModelCost(input=1.25, output=10.0, cache_read=0.125),
    ),
    _anthropic(
        "claude-opus-4-5",
        "Claude Opus 4.5",
        max_tokens=64_000,
        reasoning=True,
        cost=ModelCost(input=5.0, output=25.0, cache_read=0.5, cache_write=6.25),
    ),
    _anthropic(
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        max_tokens=64_000,
        reasoning=True,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    ),
    _anthropic(
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        max_tokens=64_000,
        reasoning=True,
        cost=ModelCost(input=1.0, output=5.0, cache_read=0.1, cache_write=1.25),
    ),
    _anthropic(
        "claude-opus-4-1",
        "Claude Opus 4.1",
        max_tokens=32_000,
        reasoning=True,
        cost=ModelCost(input=15.0, output=75.0, cache_read=1.5, cache_write=18.75),
    ),
    _anthropic(
        "claude-sonnet-4-0",
        "Claude Sonnet 4",
        max_tokens=64_000,
        reasoning=True,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    ),
    _anthropic(
        "claude-opus-4-0",
        "Claude Opus 4",
        max_tokens=32_000,
        reasoning=True,
        cost=ModelCost(input=15.0, output=75.0, cache_read=1.5, cache_write=18.75),
    ),
    _anthropic(
        "claude-3-7-sonnet-latest",
        "Claude Sonnet 3.7",
        max_tokens=64_000,
        reasoning=True,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    ),
    _anthropic(
        "claude-3-5-haiku-latest",
        "Claude Haiku 3.5",
        max_tokens=8_192,
        reasoning=False,
        cost=ModelCost(input=0.8, output=4.0, cache_read=0.08, cache_write=1.0),
    ),
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
