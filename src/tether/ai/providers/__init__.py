"""The wire protocols behind :data:`~tether.ai.StreamFn`: OpenAI Chat Completions (and every
compatible server), OpenAI Responses, Anthropic Messages and the embedded local model.

:func:`stream` dispatches on ``model.api``; each protocol streams text, thinking and tool-call
arguments as tether events, reports usage and cost, honours the abort signal at once, and turns
every failure into an ``error`` event with a specific message. Before every request the
transcript is repaired for the model (:func:`transform_messages`). Layer 1: describes and
streams, never executes.

One subpackage per protocol (``openai_completions``, ``openai_responses``,
``anthropic_messages``, ``local``), each exposing ``stream``; what they share lives in the private
``_wire`` (the message assembler, streaming arguments, SSE, the abort guard, and the one driver
that retries only before the first event reached the caller and words an abort once).

Models are named ``"provider/model-id"`` (:func:`get_model`, :func:`list_models`): the
built-in OpenAI, Anthropic and local ones, and those of ``models.toml`` in :func:`config_dir`
(:func:`load_models_config`; compatible servers get :func:`detect_compat`'s flags). Keys come
from ``options.api_key``, else the provider's environment variable (:func:`api_key_env`).
What tether keeps goes in :func:`data_dir`, written only by :func:`open_private`,
:func:`write_private` and :func:`private_dir`: 0600 files, 0700 directories (these five live in
the layer-0 ``tether._home``, which every package uses; they are offered here as before).
"""

from tether._home import config_dir, data_dir, open_private, private_dir, write_private

from ._compat import detect_compat
from ._config import ModelsConfigError
from ._dispatch import API_MODULES, complete, stream
from ._errors import CONTEXT_OVERFLOW_NOTE
from ._keys import api_key_env, register_api_key_env
from ._registry import UnknownModelError, get_model, list_models, load_models_config
from ._tool_choice import TOOL_CHOICES
from ._transform import transform_messages

__all__ = [
    "API_MODULES",
    "CONTEXT_OVERFLOW_NOTE",
    "TOOL_CHOICES",
    "ModelsConfigError",
    "UnknownModelError",
    "api_key_env",
    "complete",
    "config_dir",
    "data_dir",
    "detect_compat",
    "get_model",
    "list_models",
    "load_models_config",
    "open_private",
    "private_dir",
    "register_api_key_env",
    "stream",
    "transform_messages",
    "write_private",
]
