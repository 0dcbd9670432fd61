"""``local``: the embedded model, llama.cpp in a worker process.

:func:`stream` is this protocol's :data:`~tether.ai.StreamFn`. The worker
(``python -m tether.ai.providers.local._worker``) is started and watched by ``_process``; it
runs ``_engine`` (llama.cpp, with the reply grammar of ``_grammar`` and the repetition guard of
``_repetition``) on the prompt that ``_prompt`` renders.
"""

from ._provider import (
    BUNDLED_GGUF,
    INSTALL_HINT,
    bundled_model_path,
    local_model_loads,
    local_model_problem,
    stream,
)

__all__ = [
    "BUNDLED_GGUF",
    "INSTALL_HINT",
    "bundled_model_path",
    "local_model_loads",
    "local_model_problem",
    "stream",
]
