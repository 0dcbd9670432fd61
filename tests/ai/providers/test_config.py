"""models.toml: where it is read from, what it declares, how strictly it is checked, and the
compat flags detected from a server's URL."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tether.ai.providers import (
    ModelsConfigError,
    api_key_env,
    detect_compat,
    get_model,
    list_models,
    load_models_config,
)
from tether.ai.providers._compat import COMPAT_FLAGS
from tether.ai.providers._keys import api_key_for

OLLAMA = """\
[providers.ollama]
api = "openai-completions"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "OLLAMA_API_KEY"
compat = { supports_developer_role = false, max_tokens_field = "max_tokens" }

[[providers.ollama.models]]
id = "qwen2.5-coder:7b"
context_window = 32768
max_tokens = 8192
reasoning = false
input = ["text"]
cost = { input = 0.0, output = 0.0, cache_read = 0.0, cache_write = 0.0 }
"""


def write(home: Path, text: str) -> Path:
    path = home / "models.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def config_error(home: Path, text: str) -> tuple[Path, ModelsConfigError]:
    path = write(home, text)
    with pytest.raises(ModelsConfigError) as caught:
        load_models_config()
    return path, caught.value


def test_models_toml_is_read_from_tether_home(tether_home):
    write(tether_home, OLLAMA)
    assert [m.id for m in load_models_config()] == ["qwen2.5-coder:7b"]
    model = get_model("ollama/qwen2.5-coder:7b")
    assert (model.provider, model.api) == ("ollama", "openai-completions")
    assert model.base_url == "http://127.0.0.1:11434/v1"
    assert (model.context_window, model.max_tokens) == (32768, 8192)
    assert model.input == ("text",)
    assert model.name == "qwen2.5-coder:7b"
    assert model.cost.input == model.cost.output == 0.0
    assert "ollama/qwen2.5-coder:7b" in [f"{m.provider}/{m.id}" for m in list_models()]


def test_nothing_is_read_at_import_and_the_first_lookup_reads_the_file(tmp_path):
    (tmp_path / "models.toml").write_text("[providers\n", encoding="utf-8")
    script = (
        "import tether.ai.providers as p\n"
        "try:\n"
        "    p.get_model('openai/gpt-4.1')\n"
        "except p.ModelsConfigError as exc:\n"
        "    print('lookup:', exc)\n"
    )
    env = {**os.environ, "TETHER_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith(f"lookup: {tmp_path / 'models.toml'}: invalid TOML")


def test_no_file_declares_nothing(tether_home):
    assert load_models_config() == []
    assert {m.provider for m in list_models()} == {"openai", "anthropic", "local"}


def test_reloading_replaces_the_previous_file(tether_home):
    write(tether_home, OLLAMA)
    load_models_config()
    write(tether_home, OLLAMA.replace("ollama", "lmstudio").replace("11434", "1234"))
    load_models_config()
    assert [m.provider for m in list_models("lmstudio")] == ["lmstudio"]
    assert list_models("ollama") == []
    assert api_key_env("ollama") is None


def test_a_malformed_file_keeps_the_previous_configuration(tether_home):
    write(tether_home, OLLAMA)
    load_models_config()
    config_error(tether_home, "[providers.x]\napi = 3\n")
    assert get_model("ollama/qwen2.5-coder:7b").provider == "ollama"


def test_a_path_can_be_given(tmp_path, tether_home):
    other = tmp_path / "elsewhere.toml"
    other.write_text(OLLAMA, encoding="utf-8")
    assert [m.provider for m in load_models_config(other)] == ["ollama"]


def test_defaults_for_optional_model_keys(tether_home):
    write(
        tether_home,
        """
        [providers.vllm]
        api = "openai-completions"
        base_url = "http://gpu-box:8000/v1"

        [[providers.vllm.models]]
        id = "Qwen/Qwen3-8B"
        name = "Qwen3 8B"
        context_window = 8192
        """,
    )
    load_models_config()
    model = get_model("vllm/Qwen/Qwen3-8B")
    assert model.name == "Qwen3 8B"
    assert (model.context_window, model.max_tokens) == (8192, 8192)
    assert (model.reasoning, model.input, model.headers) == (False, ("text",), {})


def test_headers_and_other_apis(tether_home):
    write(
        tether_home,
        """
        [providers.proxy]
        api = "anthropic-messages"
        base_url = "https://llm-proxy.example"
        headers = { "X-Team" = "tools" }
        compat = { supports_strict_mode = true }

        [[providers.proxy.models]]
        id = "claude-sonnet-4-5"
        reasoning = true
        input = ["text", "image"]
        cost = { input = 3, output = 15 }
        """,
    )
    load_models_config()
    model = get_model("proxy/claude-sonnet-4-5")
    assert model.api == "anthropic-messages"
    assert model.headers == {"X-Team": "tools"}
    assert model.compat == {"supports_strict_mode": True}
    assert model.input == ("text", "image")
    assert (model.cost.input, model.cost.output, model.cost.cache_read) == (3.0, 15.0, 0.0)


# -- extra models for the built-in providers ----------------------------------------------------


def test_extra_openai_models_use_openai_server_and_the_api_rule(tether_home):
    write(
        tether_home,
        """
        [[providers.openai.models]]
        id = "gpt-5.2"
        reasoning = true
        context_window = 400000
        max_tokens = 128000

        [[providers.openai.models]]
        id = "gpt-4.5-preview"
        """,
    )
    load_models_config()
    reasoning, chat = get_model("openai/gpt-5.2"), get_model("openai/gpt-4.5-preview")
    assert (reasoning.api, reasoning.base_url) == ("openai-responses", "https://api.openai.com/v1")
    assert chat.api == "openai-completions"
    assert chat.compat == detect_compat("https://api.openai.com/v1")
    assert api_key_env("openai") == "OPENAI_API_KEY"


def test_a_configured_model_replaces_the_built_in_one_of_that_id(tether_home):
    write(
        tether_home,
        """
        [providers.anthropic]
        [[providers.anthropic.models]]
        id = "claude-sonnet-4-5"
        name = "Sonnet at our price"
        reasoning = true
        cost = { input = 1.0, output = 2.0 }
        """,
    )
    load_models_config()
    model = get_model("anthropic/claude-sonnet-4-5")
    assert (model.name, model.cost.input, model.api) == (
        "Sonnet at our price",
        1.0,
        "anthropic-messages",
    )
    assert model.base_url == "https://api.anthropic.com"
    assert [m.id for m in list_models("anthropic")].count("claude-sonnet-4-5") == 1


# -- api keys -----------------------------------------------------------------------------------


def test_api_key_env_of_a_configured_provider_is_where_its_key_is_read(tether_home, monkeypatch):
    write(tether_home, OLLAMA)
    load_models_config()
    monkeypatch.setenv("OLLAMA_API_KEY", "sk-local")
    model = get_model("ollama/qwen2.5-coder:7b")
    assert api_key_env("ollama") == "OLLAMA_API_KEY"
    assert api_key_for(model, None) == "sk-local"


def test_a_provider_without_api_key_env_needs_no_key(tether_home, monkeypatch):
    write(tether_home, OLLAMA.replace('api_key_env = "OLLAMA_API_KEY"\n', ""))
    load_models_config()
    monkeypatch.setenv("OLLAMA_API_KEY", "sk-local")
    assert api_key_env("ollama") is None
    assert api_key_for(get_model("ollama/qwen2.5-coder:7b"), None) is None


# -- malformed files: file, line and key --------------------------------------------------------


def test_toml_syntax_error_keeps_tomllibs_line_and_column(tether_home):
    path, error = config_error(tether_home, '[providers.x]\napi = "a"\nbase_url = \n')
    assert str(error).startswith(f"{path}: invalid TOML: ")
    assert "(at line 3, column 12)" in str(error)
    assert (error.path, error.line) == (path, 3)


def test_wrong_type_names_file_line_and_key_path(tether_home):
    path, error = config_error(tether_home, OLLAMA.replace("32768", '"big"'))
    assert str(error) == (
        f'{path}, line 9: providers.ollama.models[0].context_window: expected an integer, got "big"'
    )
    assert (error.line, error.key) == (9, "providers.ollama.models[0].context_window")


def test_the_second_model_table_is_located(tether_home):
    text = OLLAMA + '\n[[providers.ollama.models]]\nid = "b"\nmax_tokens = 0\n'
    path, error = config_error(tether_home, text)
    assert str(error) == (
        f"{path}, line 17: providers.ollama.models[1].max_tokens: "
        "expected a positive integer, got 0"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[provider.ollama]\napi = "openai-completions"\n',
            'line 1: provider: unknown key; did you mean "providers"? valid keys: providers',
        ),
        (
            OLLAMA.replace("base_url", "base_ur"),
            'line 3: providers.ollama.base_ur: unknown key; did you mean "base_url"? '
            "valid keys: api, api_key_env, base_url, compat, extra_body, headers, models",
        ),
        (
            OLLAMA.replace("context_window", "context_windw"),
            "line 9: providers.ollama.models[0].context_windw: unknown key; did you mean "
            '"context_window"? valid keys: context_window, cost, extra_body, id, input, '
            "max_tokens, name, reasoning",
        ),
        (
            OLLAMA.replace("openai-completions", "openai-chat"),
            'line 2: providers.ollama.api: unknown api "openai-chat"; known: '
            "anthropic-messages, openai-completions, openai-responses",
        ),
        (
            OLLAMA.replace("supports_developer_role", "supports_developer_roles"),
            "line 5: providers.ollama.compat.supports_developer_roles: unknown key; did you mean "
            '"supports_developer_role"?',
        ),
        (
            OLLAMA.replace("supports_developer_role = false", 'supports_developer_role = "no"'),
            "line 5: providers.ollama.compat.supports_developer_role: expected true or false, "
            'got "no"',
        ),
        (
            OLLAMA.replace('max_tokens_field = "max_tokens"', 'max_tokens_field = "max"'),
            'line 5: providers.ollama.compat.max_tokens_field: unknown value "max"; known: '
            "max_completion_tokens, max_tokens",
        ),
        (
            OLLAMA.replace('input = ["text"]', 'input = ["text", "video"]'),
            'line 12: providers.ollama.models[0].input[1]: unknown input "video"; '
            "known: text, image",
        ),
        (
            OLLAMA.replace('input = ["text"]', 'input = ["image"]'),
            'line 12: providers.ollama.models[0].input: must include "text"',
        ),
        (
            OLLAMA.replace("cache_write = 0.0", "cache_writes = 0.0"),
            "line 13: providers.ollama.models[0].cost.cache_writes: unknown key; did you mean "
            '"cache_write"?',
        ),
        (
            OLLAMA.replace("output = 0.0", "output = -1.5"),
            "line 13: providers.ollama.models[0].cost.output: expected a price of zero or more, "
            "got -1.5",
        ),
        (
            OLLAMA.replace("reasoning = false", "reasoning = 1"),
            "line 11: providers.ollama.models[0].reasoning: expected true or false, got 1",
        ),
        (
            OLLAMA.replace("max_tokens = 8192", "max_tokens = 65536"),
            "line 10: providers.ollama.models[0].max_tokens: 65536 is more than context_window "
            "(32768)",
        ),
        (
            OLLAMA.replace('id = "qwen2.5-coder:7b"\n', ""),
            'line 7: providers.ollama.models[0]: missing "id"',
        ),
        (
            OLLAMA.replace('api = "openai-completions"\n', ""),
            'line 1: providers.ollama: missing "api" (one of: anthropic-messages, '
            "openai-completions, openai-responses)",
        ),
        (
            OLLAMA.replace('base_url = "http://127.0.0.1:11434/v1"\n', ""),
            'line 1: providers.ollama: missing "base_url"',
        ),
        (
            OLLAMA.replace('"http://127.0.0.1:11434/v1"', '"127.0.0.1:11434"'),
            "line 3: providers.ollama.base_url: expected an http:// or https:// URL, "
            'got "127.0.0.1:11434"',
        ),
        (
            OLLAMA.replace('"OLLAMA_API_KEY"', '"$OLLAMA KEY"'),
            "line 4: providers.ollama.api_key_env: expected the name of an environment "
            'variable, got "$OLLAMA KEY"',
        ),
        (
            OLLAMA.split("\n[[", maxsplit=1)[0],
            "line 1: providers.ollama: declares no models; add a [[providers.ollama.models]] table",
        ),
        (
            OLLAMA + '\n[[providers.ollama.models]]\nid = "qwen2.5-coder:7b"\n',
            'line 16: providers.ollama.models[1].id: "qwen2.5-coder:7b" is already the id of '
            "models[0]",
        ),
        (
            '[providers."my/server"]\napi = "openai-completions"\n',
            'line 1: providers."my/server": a provider name is letters, digits',
        ),
        (
            '[providers.local]\n[[providers.local.models]]\nid = "x"\n',
            "line 1: providers.local: the embedded local model is built in and takes no settings",
        ),
        (
            '[providers.openai]\nbase_url = "http://localhost:4000/v1"\n',
            'line 2: providers.openai.base_url: the built-in provider "openai" always uses '
            "https://api.openai.com/v1 and OPENAI_API_KEY; declare a provider of your own",
        ),
        (
            '[providers.anthropic]\napi = "openai-completions"\n',
            'line 2: providers.anthropic.api: unknown api "openai-completions"; known: '
            "anthropic-messages",
        ),
        (
            "providers = 3\n",
            "line 1: providers: expected a table, got 3",
        ),
        (
            OLLAMA.replace("[[providers.ollama.models]]", "[providers.ollama.models]"),
            "line 7: providers.ollama.models: expected an array of tables, got a table",
        ),
        (
            '[providers.x]\napi = "openai-completions"\nbase_url = "http://h/v1"\n'
            'models = [{ id = "a" }, { id = "b", context_window = 2.5 }]\n',
            "line 4: providers.x.models[1].context_window: expected an integer, got 2.5",
        ),
        (
            OLLAMA.replace('"max_tokens" }', '"max_tokens" }\nheaders = { X-Key = 1 }'),
            "line 6: providers.ollama.headers.X-Key: expected a non-empty string, got 1",
        ),
    ],
)
def test_each_malformed_file_names_its_line_and_key(tether_home, text, expected):
    path, error = config_error(tether_home, text)
    assert str(error).startswith(f"{path}, {expected}")


def test_an_unreadable_file_is_a_config_error(tether_home):
    (tether_home / "models.toml").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(ModelsConfigError, match=r"models\.toml: cannot be read"):
        load_models_config()


def test_config_errors_are_value_errors():
    assert issubclass(ModelsConfigError, ValueError)


# -- compat -------------------------------------------------------------------------------------


def test_openai_gets_the_full_chat_completions_feature_set():
    assert detect_compat("https://api.openai.com/v1") == {
        "supports_developer_role": True,
        "supports_usage_in_streaming": True,
        "max_tokens_field": "max_completion_tokens",
        "supports_reasoning_effort": True,
        "thinking_format": "openai",
        "requires_tool_result_name": False,
        "supports_strict_mode": True,
        "supports_null_content": True,
        "offer_confirm_request": True,
    }
    assert detect_compat(None) == detect_compat("https://api.openai.com/v1")
    assert detect_compat("https://team.openai.azure.com/openai/v1")["supports_strict_mode"]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/v1",  # llama.cpp's server
        "http://localhost:1234/v1",  # LM Studio
        "http://localhost:8000/v1",  # vLLM
        "https://llm-proxy.internal.example/v1",
        "http://host:99999/v1",  # no valid port
    ],
)
def test_other_servers_get_the_conservative_set(url):
    compat = detect_compat(url)
    assert compat["supports_developer_role"] is False
    assert compat["max_tokens_field"] == "max_tokens"
    assert compat["supports_reasoning_effort"] is False
    assert compat["supports_strict_mode"] is False


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:11434/v1", {"supports_reasoning_effort": True}),
        ("http://localhost:11434/v1", {"supports_reasoning_effort": True}),
        ("https://openrouter.ai/api/v1", {"supports_reasoning_effort": True}),
        ("https://api.groq.com/openai/v1", {"supports_reasoning_effort": True}),
        ("https://api.deepseek.com/v1", {"supports_reasoning_effort": False}),
        ("https://api.x.ai/v1", {"supports_reasoning_effort": False}),
        (
            "https://api.mistral.ai/v1",
            {"requires_tool_result_name": True, "supports_usage_in_streaming": False},
        ),
        ("https://dashscope-intl.aliyuncs.com/compatible-mode/v1", {"thinking_format": "qwen"}),
        ("https://api.z.ai/api/paas/v4", {"thinking_format": "zai"}),
    ],
)
def test_known_servers_get_their_specifics(url, expected):
    compat = detect_compat(url)
    assert {name: compat[name] for name in expected} == expected
    assert compat["supports_developer_role"] is False


@pytest.mark.parametrize(
    "url", ["https://api.openai.com/v1", "http://127.0.0.1:11434/v1", "https://api.mistral.ai/v1"]
)
def test_detection_names_every_flag_with_a_valid_value(url):
    compat = detect_compat(url)
    assert set(compat) == set(COMPAT_FLAGS)
    for name, value in compat.items():
        expected = COMPAT_FLAGS[name]
        assert value in expected if isinstance(expected, tuple) else isinstance(value, bool)


def test_configured_chat_models_get_detection_with_the_files_flags_on_top(tether_home):
    write(
        tether_home,
        OLLAMA.replace("supports_developer_role = false", "supports_strict_mode = true"),
    )
    load_models_config()
    model = get_model("ollama/qwen2.5-coder:7b")
    assert model.compat == {
        **detect_compat("http://127.0.0.1:11434/v1"),
        "supports_strict_mode": True,
        "max_tokens_field": "max_tokens",
    }
    assert model.compat["supports_reasoning_effort"] is True


def test_a_detected_flag_can_be_turned_off(tether_home):
    text = OLLAMA.replace(
        'compat = { supports_developer_role = false, max_tokens_field = "max_tokens" }',
        "[providers.ollama.compat]\nsupports_reasoning_effort = false\n",
    )
    write(tether_home, text)
    load_models_config()
    assert get_model("ollama/qwen2.5-coder:7b").compat["supports_reasoning_effort"] is False
