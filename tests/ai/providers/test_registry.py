"""get_model and list_models: the built-in models, configured ones, and errors that name the
closest known references."""

from __future__ import annotations

import pytest

from tether.ai.providers import (
    UnknownModelError,
    detect_compat,
    get_model,
    list_models,
    load_models_config,
)

OPENAI_IDS = [
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-4o",
    "gpt-4o-mini",
    "o3",
    "o4-mini",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
]
ANTHROPIC_IDS = [
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "claude-haiku-4-5",
    "claude-3-7-sonnet-latest",
    "claude-3-5-haiku-latest",
]


@pytest.fixture(autouse=True)
def no_user_config(tether_home):
    return tether_home


def unknown(ref: str) -> UnknownModelError:
    with pytest.raises(UnknownModelError) as caught:
        get_model(ref)
    return caught.value


@pytest.mark.parametrize("model_id", OPENAI_IDS)
def test_openai_models_are_built_in(model_id):
    model = get_model(f"openai/{model_id}")
    assert (model.id, model.provider) == (model_id, "openai")
    assert model.base_url == "https://api.openai.com/v1"
    assert model.api == ("openai-responses" if model.reasoning else "openai-completions")
    assert "image" in model.input
    assert model.name
    assert model.max_tokens < model.context_window
    assert 0 < model.cost.cache_read < model.cost.input < model.cost.output
    assert model.cost.cache_write == 0


@pytest.mark.parametrize("model_id", ANTHROPIC_IDS)
def test_anthropic_models_are_built_in(model_id):
    model = get_model(f"anthropic/{model_id}")
    assert (model.provider, model.api) == ("anthropic", "anthropic-messages")
    assert model.base_url == "https://api.anthropic.com"
    assert model.context_window == 200_000
    assert "image" in model.input
    assert model.cost.cache_read < model.cost.input < model.cost.cache_write < model.cost.output


def test_reasoning_flags_and_prices_of_the_api_md_examples():
    gpt = get_model("openai/gpt-4.1")
    sonnet = get_model("anthropic/claude-sonnet-4-5")
    assert not gpt.reasoning and sonnet.reasoning
    assert get_model("openai/o3").reasoning and get_model("openai/gpt-5").reasoning
    assert (gpt.cost.input, gpt.cost.output) == (2.0, 8.0)
    assert (sonnet.cost.input, sonnet.cost.output, sonnet.cost.cache_write) == (3.0, 15.0, 3.75)
    assert gpt.compat == detect_compat("https://api.openai.com/v1")
    assert sonnet.compat == {}


def test_the_embedded_local_model_is_built_in():
    model = get_model("local/smollm2-135m")
    assert (model.provider, model.api, model.base_url) == ("local", "local", None)
    assert (model.context_window, model.max_tokens, model.input) == (8192, 512, ("text",))
    assert model.cost.input == model.cost.output == 0.0
    assert not model.reasoning


def test_get_model_returns_a_copy():
    model = get_model("openai/gpt-4.1")
    model.compat["supports_strict_mode"] = False
    model.headers["X"] = "y"
    model.max_tokens = 1
    again = get_model("openai/gpt-4.1")
    assert again.compat["supports_strict_mode"] is True
    assert (again.headers, again.max_tokens) == ({}, 32_768)


def test_unknown_model_names_the_closest_known_ones():
    error = unknown("openai/gpt-4.2")
    assert isinstance(error, ValueError)
    assert "openai/gpt-4.1" in error.suggestions
    assert str(error).startswith('unknown model "openai/gpt-4.2"; did you mean "')
    assert '"openai/gpt-4.1"' in str(error)
    assert unknown("anthropic/claude-sonnet-4.5").suggestions[0] == "anthropic/claude-sonnet-4-5"
    assert (
        "anthropic/claude-3-7-sonnet-latest" in unknown("anthropic/claude-3-7-sonnet").suggestions
    )


def test_unknown_model_with_nothing_close_lists_the_providers_models():
    error = unknown("anthropic/llama")
    assert error.suggestions == []
    assert str(error).startswith('unknown model "anthropic/llama"; "anthropic" has: ')
    assert "claude-sonnet-4-5" in str(error)


def test_unknown_provider_names_the_closest_references():
    error = unknown("opneai/gpt-4.1")
    assert str(error).startswith('unknown provider "opneai" in "opneai/gpt-4.1"; did you mean')
    assert error.suggestions[0] == "openai/gpt-4.1"
    far = unknown("acme/widget")
    assert str(far) == (
        'unknown provider "acme" in "acme/widget"; known providers: anthropic, local, openai'
    )


@pytest.mark.parametrize(
    ("ref", "suggestion"),
    [("gpt-4.1", "openai/gpt-4.1"), ("claude-sonnet-4-5", "anthropic/claude-sonnet-4-5")],
)
def test_a_reference_without_provider_suggests_the_full_one(ref, suggestion):
    error = unknown(ref)
    assert str(error).startswith(f'"{ref}" is not a model reference: write "provider/model-id"; ')
    assert error.suggestions[0] == suggestion
    assert f'did you mean "{suggestion}"' in str(error)


@pytest.mark.parametrize("ref", ["", "/", "openai/", "/gpt-4.1", "nothing-like-a-model"])
def test_malformed_references_are_unknown_models(ref):
    error = unknown(ref)
    assert "is not a model reference" in str(error) or "unknown" in str(error)


def test_list_models_filters_by_provider():
    everything = list_models()
    refs = [f"{m.provider}/{m.id}" for m in everything]
    assert {f"openai/{i}" for i in OPENAI_IDS} <= set(refs)
    assert {f"anthropic/{i}" for i in ANTHROPIC_IDS} <= set(refs)
    assert "local/smollm2-135m" in refs
    assert len(refs) == len(set(refs))
    anthropic = list_models("anthropic")
    assert anthropic and all(m.provider == "anthropic" for m in anthropic)
    assert [m.id for m in anthropic] == [m.id for m in everything if m.provider == "anthropic"]
    assert list_models("no-such-provider") == []


def test_configured_models_are_listed_after_the_built_in_ones(tether_home):
    (tether_home / "models.toml").write_text(
        '[providers.openrouter]\napi = "openai-completions"\n'
        'base_url = "https://openrouter.ai/api/v1"\napi_key_env = "OPENROUTER_API_KEY"\n'
        '[[providers.openrouter.models]]\nid = "qwen/qwen3-coder"\ncontext_window = 262144\n',
        encoding="utf-8",
    )
    load_models_config()
    assert [m.provider for m in list_models()][-1] == "openrouter"
    assert [m.id for m in list_models("openrouter")] == ["qwen/qwen3-coder"]
    model = get_model("openrouter/qwen/qwen3-coder")
    assert model.id == "qwen/qwen3-coder"
    assert model.compat == detect_compat("https://openrouter.ai/api/v1")
    assert unknown("openrouter/qwen/qwen3-coderr").suggestions == ["openrouter/qwen/qwen3-coder"]
