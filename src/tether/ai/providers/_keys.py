"""Where a request's API key comes from: the options, else the provider's environment variable."""

from __future__ import annotations

import os

from .._stream import StreamOptions
from .._types import Model

__all__ = ["api_key_env", "api_key_for", "register_api_key_env"]

_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


def register_api_key_env(provider: str, variable: str | None) -> None:
    """Name the environment variable that holds ``provider``'s key (``None``: it needs none)."""
    if variable:
        _KEY_ENV[provider] = variable
    else:
        _KEY_ENV.pop(provider, None)


def api_key_env(provider: str) -> str | None:
    """The environment variable read for ``provider``'s key, if it has one."""
    return _KEY_ENV.get(provider)


def api_key_for(model: Model, options: StreamOptions | None) -> str | None:
    """``options.api_key``, else the provider's environment variable, else ``None``."""
    if options is not None and options.api_key:
        return options.api_key
    variable = _KEY_ENV.get(model.provider)
    return os.environ.get(variable) or None if variable else None
