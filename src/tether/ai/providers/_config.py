"""``models.toml``: compatible servers and extra models, read strictly.

The schema::

    [providers.NAME]
    api = "openai-completions"          # or openai-responses, anthropic-messages
    base_url = "http://127.0.0.1:11434/v1"
    api_key_env = "OLLAMA_API_KEY"      # optional; a server without keys needs none
    compat = { supports_developer_role = false }   # optional, see tether.ai.providers._compat
    headers = { "X-Team" = "tools" }    # optional, sent with every request
    extra_body = { tool_choice = "required" }       # optional, merged into every request body

    [[providers.NAME.models]]
    id = "qwen2.5-coder:7b"             # required; the rest have defaults
    name = "Qwen 2.5 Coder 7B"
    context_window = 32768
    max_tokens = 8192
    reasoning = false
    input = ["text"]                    # and "image"
    cost = { input = 0.0, output = 0.0, cache_read = 0.0, cache_write = 0.0 }
    extra_body = { temperature = 0.2, top_k = 40 }  # optional, over the provider's extra_body

``extra_body`` holds request fields tether has no option for (sampling settings, ``tool_choice``,
a server's own switches), merged into the body of every request; the body tether builds itself
(``model``, the messages, ``stream``, the tools) cannot be replaced this way.

``[providers.openai]`` and ``[providers.anthropic]`` add models to the built-in providers (same
server and key; ``api``, ``compat`` and ``headers`` may be given). Every problem is a
:class:`ModelsConfigError` naming the file, the line and the key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from urllib.parse import urlsplit

from .._errors import TetherError
from .._types import Model, ModelCost
from ._builtin_models import ANTHROPIC_API, ANTHROPIC_BASE_URL, OPENAI_BASE_URL, openai_api_for
from ._compat import COMPAT_FLAGS, detect_compat
from ._dispatch import API_MODULES
from ._keys import api_key_env

__all__ = ["ModelsConfig", "ModelsConfigError", "read_models_config"]

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._toml_lines import KeyPath

    _T = TypeVar("_T")
    _Check: TypeAlias = Callable[[Any, KeyPath], _T]
    _ApiForModel: TypeAlias = Callable[[bool], str]

_PROVIDER_KEYS = ("api", "base_url", "api_key_env", "compat", "headers", "extra_body", "models")
_BUILTIN_PROVIDER_KEYS = ("api", "compat", "headers", "extra_body", "models")
_MODEL_KEYS = (
    "id",
    "name",
    "context_window",
    "max_tokens",
    "reasoning",
    "input",
    "cost",
    "extra_body",
)
_BUILT_BY_TETHER = ("model", "messages", "input", "system", "instructions", "stream", "tools")
"""Body fields tether builds from the conversation; ``extra_body`` may not replace them."""
_COST_KEYS = ("input", "output", "cache_read", "cache_write")
_INPUTS = ("text", "image")
_BUILTIN_APIS = {
    "openai": ("openai-completions", "openai-responses"),
    "anthropic": (ANTHROPIC_API,),
}
_BUILTIN_BASE_URLS = {"openai": OPENAI_BASE_URL, "anthropic": ANTHROPIC_BASE_URL}
_PROVIDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class ModelsConfigError(TetherError, ValueError):
    """``models.toml`` is malformed; the message names the file, the line and the key.

    ``path``, ``line`` (when known) and ``key`` (the dotted key path, when the TOML parsed) say
    where, for callers that show it their own way.
    """

    def __init__(
        self, message: str, *, path: Path, line: int | None = None, key: str | None = None
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.key = key


@dataclass(frozen=True, slots=True)
class ModelsConfig:
    """What one ``models.toml`` declares: its models, and the key variable of each new provider
    (``None``: the server needs no key)."""

    path: Path
    models: tuple[Model, ...]
    api_key_envs: dict[str, str | None]


def read_models_config(path: Path) -> ModelsConfig:
    """Read and check ``path``; a file that does not exist declares nothing."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ModelsConfig(path, (), {})
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelsConfigError(f"{path}: cannot be read: {exc}", path=path) from exc
    import tomllib

    from ._toml_lines import key_lines

    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ModelsConfigError(f"{path}: invalid TOML: nested too deeply", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        raise ModelsConfigError(
            f"{path}: invalid TOML: {exc}", path=path, line=int(found[1]) if found else None
        ) from exc
    return _Reader(path, key_lines(text)).read(data)


class _Reader:
    """Checks the parsed file top-down, so the first problem is reported at its key path."""

    def __init__(self, path: Path, lines: dict[KeyPath, int]) -> None:
        self.path = path
        self.lines = lines

    def error(self, key: KeyPath, problem: str) -> ModelsConfigError:
        line = next(
            (self.lines[key[:end]] for end in range(len(key), 0, -1) if key[:end] in self.lines),
            None,
        )
        where = f"{self.path}, line {line}" if line else str(self.path)
        dotted = _format_key(key)
        return ModelsConfigError(
            f"{where}: {dotted}: {problem}", path=self.path, line=line, key=dotted
        )

    def read(self, data: dict[str, Any]) -> ModelsConfig:
        self.known_keys(data, (), ("providers",))
        providers = self.table(data.get("providers", {}), ("providers",))
        models: list[Model] = []
        api_key_envs: dict[str, str | None] = {}
        for name, value in providers.items():
            key: KeyPath = ("providers", name)
            if name == "local":
                raise self.error(key, "the embedded local model is built in and takes no settings")
            if not _PROVIDER_NAME.fullmatch(name):
                raise self.error(
                    key,
                    "a provider name is letters, digits, '.', '_' and '-' "
                    "(it is the part of a model reference before the '/')",
                )
            table = self.table(value, key)
            if name in _BUILTIN_APIS:
                models.extend(self.builtin_provider(name, table, key))
            else:
                models.extend(self.provider(name, table, key))
                api_key_envs[name] = self.optional(table, key, "api_key_env", self.env_name)
        return ModelsConfig(self.path, tuple(models), api_key_envs)

    def provider(self, name: str, table: dict[str, Any], key: KeyPath) -> list[Model]:
        self.known_keys(table, key, _PROVIDER_KEYS)
        apis = sorted(set(API_MODULES) - {"local"})
        if "api" not in table:
            raise self.error(key, f'missing "api" (one of: {", ".join(apis)})')
        if "base_url" not in table:
            raise self.error(key, 'missing "base_url" (the server\'s address, e.g. ".../v1")')
        if "models" not in table:
            raise self.error(key, f"declares no models; add a [[providers.{name}.models]] table")
        api = self.choice(table["api"], (*key, "api"), apis, what="api")
        base_url = self.url(table["base_url"], (*key, "base_url"))
        return self.models(name, table, key, api=lambda _reasoning: api, base_url=base_url)

    def builtin_provider(self, name: str, table: dict[str, Any], key: KeyPath) -> list[Model]:
        base_url = _BUILTIN_BASE_URLS[name]
        for setting in ("base_url", "api_key_env"):
            if setting in table:
                raise self.error(
                    (*key, setting),
                    f'the built-in provider "{name}" always uses {base_url} and '
                    f"{api_key_env(name)}; "
                    "declare a provider of your own (e.g. [providers.my-server]) for another",
                )
        self.known_keys(table, key, _BUILTIN_PROVIDER_KEYS)
        if "api" in table:
            api = self.choice(table["api"], (*key, "api"), _BUILTIN_APIS[name], what="api")
            return self.models(name, table, key, api=lambda _reasoning: api, base_url=base_url)
        default = openai_api_for if name == "openai" else lambda _reasoning: ANTHROPIC_API
        return self.models(name, table, key, api=default, base_url=base_url)

    def models(
        self,
        provider: str,
        table: dict[str, Any],
        key: KeyPath,
        *,
        api: _ApiForModel,
        base_url: str,
    ) -> list[Model]:
        compat = self.optional(table, key, "compat", self.compat) or {}
        headers = self.optional(table, key, "headers", self.headers) or {}
        extra_body = self.optional(table, key, "extra_body", self.extra_body) or {}
        entries = table.get("models", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise self.error(
                (*key, "models"), f"expected an array of tables, got {_describe(entries)}"
            )
        models: list[Model] = []
        first_index: dict[str, int] = {}
        for index, entry in enumerate(entries):
            model = self.model(provider, entry, (*key, "models", index), api, base_url)
            if model.id in first_index:
                raise self.error(
                    (*key, "models", index, "id"),
                    f'"{model.id}" is already the id of models[{first_index[model.id]}]',
                )
            first_index[model.id] = index
            detected = detect_compat(base_url) if model.api == "openai-completions" else {}
            model.compat = {**detected, **compat}
            model.headers = dict(headers)
            model.extra_body = {**extra_body, **model.extra_body}
            models.append(model)
        return models

    def model(
        self,
        provider: str,
        entry: dict[str, Any],
        key: KeyPath,
        api: _ApiForModel,
        base_url: str,
    ) -> Model:
        self.known_keys(entry, key, _MODEL_KEYS)
        if "id" not in entry:
            raise self.error(key, 'missing "id" (the model name the server knows)')
        model_id = self.string(entry["id"], (*key, "id"))
        defaults = Model(id=model_id, provider=provider, api="")
        context_window = self.optional(entry, key, "context_window", self.positive_int)
        max_tokens = self.optional(entry, key, "max_tokens", self.positive_int)
        context_window = context_window or defaults.context_window
        max_tokens = max_tokens or min(defaults.max_tokens, context_window)
        if max_tokens > context_window:
            raise self.error(
                (*key, "max_tokens"), f"{max_tokens} is more than context_window ({context_window})"
            )
        reasoning = self.optional(entry, key, "reasoning", self.boolean) or False
        return Model(
            id=model_id,
            provider=provider,
            api=api(reasoning),
            base_url=base_url,
            context_window=context_window,
            max_tokens=max_tokens,
            input=self.optional(entry, key, "input", self.inputs) or defaults.input,
            name=self.optional(entry, key, "name", self.string) or model_id,
            reasoning=reasoning,
            cost=self.optional(entry, key, "cost", self.cost) or ModelCost(),
            extra_body=self.optional(entry, key, "extra_body", self.extra_body) or {},
        )

    # -- values --------------------------------------------------------------------------------

    def optional(
        self, table: dict[str, Any], key: KeyPath, name: str, check: _Check[_T]
    ) -> _T | None:
        return check(table[name], (*key, name)) if name in table else None

    def known_keys(self, table: dict[str, Any], key: KeyPath, allowed: Collection[str]) -> None:
        for name in table:
            if name not in allowed:
                import difflib

                close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
                hint = f'did you mean "{close[0]}"? ' if close else ""
                raise self.error(
                    (*key, name), f"unknown key; {hint}valid keys: {', '.join(sorted(allowed))}"
                )

    def table(self, value: Any, key: KeyPath) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table, got {_describe(value)}")
        return value

    def string(self, value: Any, key: KeyPath) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"expected a non-empty string, got {_describe(value)}")
        return value

    def boolean(self, value: Any, key: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_describe(value)}")
        return value

    def positive_int(self, value: Any, key: KeyPath) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"expected an integer, got {_describe(value)}")
        if value <= 0:
            raise self.error(key, f"expected a positive integer, got {value}")
        return value

    def price(self, value: Any, key: KeyPath) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.error(
                key, f"expected a number (dollars per million tokens), got {_describe(value)}"
            )
        if not 0 <= value < float("inf"):
            raise self.error(key, f"expected a price of zero or more, got {value}")
        return float(value)

    def choice(self, value: Any, key: KeyPath, choices: Collection[str], *, what: str) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_describe(value)}")
        if value not in choices:
            raise self.error(key, f'unknown {what} "{value}"; known: {", ".join(choices)}')
        return value

    def url(self, value: Any, key: KeyPath) -> str:
        url = self.string(value, key)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise self.error(key, f"expected an http:// or https:// URL, got {_describe(value)}")
        return url

    def env_name(self, value: Any, key: KeyPath) -> str:
        name = self.string(value, key)
        if not _ENV_NAME.fullmatch(name):
            raise self.error(
                key, f"expected the name of an environment variable, got {_describe(value)}"
            )
        return name

    def inputs(self, value: Any, key: KeyPath) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.error(
                key, f'expected an array such as ["text", "image"], got {_describe(value)}'
            )
        kinds = tuple(
            self.choice(kind, (*key, index), _INPUTS, what="input")
            for index, kind in enumerate(value)
        )
        if "text" not in kinds:
            raise self.error(key, 'must include "text"')
        return tuple(dict.fromkeys(kinds))

    def cost(self, value: Any, key: KeyPath) -> ModelCost:
        table = self.table(value, key)
        self.known_keys(table, key, _COST_KEYS)
        return ModelCost(**{name: self.price(table[name], (*key, name)) for name in table})

    def compat(self, value: Any, key: KeyPath) -> dict[str, Any]:
        table = self.table(value, key)
        self.known_keys(table, key, COMPAT_FLAGS)
        flags: dict[str, Any] = {}
        for name, flag in table.items():
            expected = COMPAT_FLAGS[name]
            if isinstance(expected, tuple):
                flags[name] = self.choice(flag, (*key, name), expected, what="value")
            else:
                flags[name] = self.boolean(flag, (*key, name))
        return flags

    def extra_body(self, value: Any, key: KeyPath) -> dict[str, Any]:
        table = self.table(value, key)
        for name in table:
            if name in _BUILT_BY_TETHER:
                raise self.error(
                    (*key, name),
                    "tether builds this field from the conversation; extra_body may not set "
                    f"{', '.join(_BUILT_BY_TETHER)}",
                )
        return {name: _plain(item) for name, item in table.items()}

    def headers(self, value: Any, key: KeyPath) -> dict[str, str]:
        table = self.table(value, key)
        return {name: self.string(header, (*key, name)) for name, header in table.items()}


def _plain(value: Any) -> Any:
    """A TOML value as JSON can send it (a date or time as its ISO text)."""
    if isinstance(value, dict):
        return {name: _plain(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, str | int | float | bool):
        return value
    return value.isoformat()


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a date or time ({value})"


def _format_key(key: KeyPath) -> str:
    text = ""
    for part in key:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            segment = part if _BARE_KEY.fullmatch(part) else json.dumps(part)
            text += f".{segment}" if text else segment
    return text
