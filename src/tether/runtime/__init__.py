"""The run layer: what ``tether -p``, the JSON and RPC modes, the interactive terminal and the
durable worker build before the first prompt, as a library.

:func:`build_runtime` takes :class:`RunSettings` (what the command's options say) and returns
a :class:`Runtime`: the model resolved (the settings, the session, ``config.toml``, the keys
that are set, the embedded model), the coding tools made for the working directory — here, on
a ``--remote`` host, or through hands — and governed by a gate, the configured MCP servers'
tools and the skills added, the session created or resumed and recording the run, the system
prompt carrying the context files. A run that cannot start as asked raises
:class:`RunSetupError`, whose text says what to change.

The runtime holds one source of truth for what the person can change while it runs:
:attr:`Runtime.model` and :attr:`Runtime.thinking` (a ``ReasoningLevel`` or ``None`` for off)
are the agent's, and :meth:`Runtime.set_model`, :meth:`Runtime.set_thinking` and
:meth:`Runtime.compact` change them and record the change in the session.

It sits above :mod:`tether.session`, :mod:`tether.remote`, :mod:`tether.mcp` and
:mod:`tether.skills`, and below the command (:mod:`tether.cli`), which only drives it.
"""

from ._build import build_runtime
from ._errors import RunSetupError
from ._model_choice import EMBEDDED_MODEL_NOTE, choose_model, default_model_ref
from ._runtime import (
    THINKING_OFF,
    Compaction,
    RunSettings,
    Runtime,
    as_reasoning_level,
)

__all__ = [
    "EMBEDDED_MODEL_NOTE",
    "THINKING_OFF",
    "Compaction",
    "RunSettings",
    "RunSetupError",
    "Runtime",
    "as_reasoning_level",
    "build_runtime",
    "choose_model",
    "default_model_ref",
]
