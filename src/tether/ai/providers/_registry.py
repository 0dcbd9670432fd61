"""Every model tether can name: the built-in ones and those of ``models.toml``, by reference.

A reference is ``"provider/model-id"``; the id may itself hold ``/`` (``openrouter/qwen/qwen3``).
``models.toml`` is read on the first lookup, not at import, and again on
:func:`load_models_config`. A model it declares under a built-in provider with a built-in id
replaces the built-in one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from tether._home import models_config_path

from .._errors import TetherError
from .._types import Model
from ._builtin_models import BUILTIN_MODELS
from ._config import ModelsConfig, read_models_config
from ._keys import register_api_key_env

__all__ = ["UnknownModelError", "get_model", "list_models", "load_models_config"]

_SUGGESTIONS = 3


class UnknownModelError(TetherError, ValueError):
    """No model has that reference; ``suggestions`` are the closest known references."""

    def __init__(self, message: str, *, ref: str, suggestions: list[str]) -> None:
        super().__init__(message)
        self.ref = ref
        self.suggestions = suggestions


_config: ModelsConfig | None = None
_by_ref: dict[str, Model] = {}


def load_models_config(path: str | Path | None = None) -> list[Model]:
    """(Re)read ``models.toml`` (by default the one in :func:`config_dir`) and use it from now on.

    Returns the models it declares. Raises :class:`ModelsConfigError` for a malformed file and
    keeps the previous configuration then. Each new provider's ``api_key_env`` becomes where its
    key is read; providers of the previous file are forgotten.
    """
    global _config, _by_ref
    config = read_models_config(Path(path) if path is not None else models_config_path())
    if _config is not None:
        for provider in _config.api_key_envs:
            register_api_key_env(provider, None)
    for provider, variable in config.api_key_envs.items():
        register_api_key_env(provider, variable)
    by_ref = {_ref(model): model for model in BUILTIN_MODELS}
    by_ref.update((_ref(model), model) for model in config.models)
    _config, _by_ref = config, by_ref
    return [_copy(model) for model in config.models]


def get_model(ref: str) -> Model:
    """The model named ``"provider/model-id"`` (a copy: changing it changes nothing here).

    Raises :class:`UnknownModelError` naming the closest known references, also for a reference
    without a provider, and :class:`ModelsConfigError` when ``models.toml`` is malformed.
    """
    models = _models()
    model = models.get(ref)
    if model is not None:
        return _copy(model)
    raise _unknown(ref, models)


def list_models(provider: str | None = None) -> list[Model]:
    """Every known model (built-in ones first), or those of ``provider`` (none for an unknown
    provider); copies, like :func:`get_model`."""
    return [
        _copy(model)
        for model in _models().values()
        if provider is None or model.provider == provider
    ]


def _models() -> dict[str, Model]:
    if _config is None:
        load_models_config()
    return _by_ref


def _unknown(ref: str, models: dict[str, Model]) -> UnknownModelError:
    provider, slash, model_id = ref.partition("/")
    if not slash or not provider or not model_id:
        suggestions = _closest_by_id(ref.strip("/"), models.values())
        hint = _did_you_mean(suggestions) or 'e.g. "openai/gpt-4.1"'
        return UnknownModelError(
            f'"{ref}" is not a model reference: write "provider/model-id"; {hint}',
            ref=ref,
            suggestions=suggestions,
        )
    providers = sorted({model.provider for model in models.values()})
    if provider not in providers:
        suggestions = _closest(ref, list(models))
        hint = _did_you_mean(suggestions) or f"known providers: {', '.join(providers)}"
        return UnknownModelError(
            f'unknown provider "{provider}" in "{ref}"; {hint}', ref=ref, suggestions=suggestions
        )
    own = [model for model in models.values() if model.provider == provider]
    suggestions = _closest_by_id(model_id, own) or _closest_by_id(model_id, models.values())
    known = ", ".join(model.id for model in own)
    hint = _did_you_mean(suggestions) or f'"{provider}" has: {known}'
    return UnknownModelError(f'unknown model "{ref}"; {hint}', ref=ref, suggestions=suggestions)


def _closest_by_id(model_id: str, models: Iterable[Model]) -> list[str]:
    refs: dict[str, str] = {}
    for model in models:
        refs.setdefault(model.id, _ref(model))
    return [refs[match] for match in _closest(model_id, list(refs))]


def _closest(name: str, candidates: list[str]) -> list[str]:
    import difflib

    lowered = {candidate.lower(): candidate for candidate in candidates}
    matches = difflib.get_close_matches(name.lower(), lowered, n=_SUGGESTIONS, cutoff=0.6)
    return [lowered[match] for match in matches]


def _did_you_mean(suggestions: list[str]) -> str:
    quoted = ", ".join(f'"{suggestion}"' for suggestion in suggestions)
    return f"did you mean {quoted}?" if suggestions else ""


def _ref(model: Model) -> str:
    return f"{model.provider}/{model.id}"


def _copy(model: Model) -> Model:
    return replace(
        model,
        compat=dict(model.compat),
        headers=dict(model.headers),
        extra_body=dict(model.extra_body),
    )
