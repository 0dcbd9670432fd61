"""llama.cpp itself, inside the embedded model's worker process: load one model, generate replies.

Only :mod:`._worker` imports this module, in the child process the ``local`` provider
starts; tether's own process never loads llama.cpp, so a crash in native code ends the worker and
not the agent loop.

:func:`generate` renders the prompt with the GGUF's own chat template, reuses what the previous
request left in llama.cpp's cache up to the first token that differs (an agent's next turn
repeats the whole conversation, so only the new messages are evaluated), and samples token by
token under the reply grammar. Every step is handed to ``report``: :class:`Prompted`, each
token's text (a ``str``, possibly empty while a character's UTF-8 bytes are incomplete), then
:class:`Finished`. ``stop`` is checked before every token and between chunks of the prompt.

The grammar only has to decide how a reply begins when free text is allowed: once the first
character is not ``{`` the rest is unconstrained text, so sampling continues without it (the
grammar would allow every token anyway, at the cost of checking the whole vocabulary). Free text
is sampled with a mild repeat penalty and watched by a
:class:`~._repetition.RepetitionGuard`: a tiny model easily falls into writing the same
line forever, and a reply that loops is cut, saying so.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import llama_cpp
import llama_cpp.llama_cpp as llama_native
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from llama_cpp.llama_grammar import LlamaGrammar

from ..._types import Tool
from ._grammar import reply_grammar
from ._repetition import REPEATING, RepetitionGuard
from ._reports import Finished, Prompted, Report

__all__ = [
    "REPEAT_PENALTY",
    "THREADS",
    "GenerationRequest",
    "LoadedModel",
    "generate",
    "load_model",
]

# For a GGUF without a chat template: ChatML, which SmolLM2 and many small models speak.
_CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# llama.cpp's threads spin at every barrier: more threads than free cores (a busy machine, the
# default of one per logical core for the prompt) made prompt evaluation several times slower.
THREADS = max(1, (os.cpu_count() or 2) // 2)
_PROMPT_CHUNK = 128  # prompt tokens evaluated between two looks at the stop flag
REPEAT_PENALTY = 1.1  # free text only: a call's JSON repeats quotes and commas by nature


@dataclass(slots=True, frozen=True)
class GenerationRequest:
    messages: list[dict[str, str]]
    max_tokens: int
    temperature: float
    seed: int
    call_tools: Sequence[Tool]
    """The tools the reply may call (empty: text only, no grammar)."""
    text_allowed: bool


@dataclass(slots=True)
class LoadedModel:
    llama: Llama
    formatter: Jinja2ChatFormatter
    bos_text: str
    add_bos: bool
    vocab: Any


def load_model(path: str, context_window: int) -> LoadedModel:
    with _without_extra_buffer_types():
        llama = Llama(
            model_path=path,
            n_ctx=context_window,
            n_threads=THREADS,
            n_threads_batch=THREADS,
            verbose=False,
        )
    metadata = llama.metadata
    bos_text = _special_text(llama, llama.token_bos())
    formatter = Jinja2ChatFormatter(
        template=metadata.get("tokenizer.chat_template") or _CHATML,
        eos_token=_special_text(llama, llama.token_eos()),
        bos_token=bos_text,
        add_generation_prompt=True,
    )
    return LoadedModel(
        llama=llama,
        formatter=formatter,
        bos_text=bos_text,
        add_bos=metadata.get("tokenizer.ggml.add_bos_token") == "true",
        vocab=llama_cpp.llama_model_get_vocab(llama.model),
    )


@contextmanager
def _without_extra_buffer_types() -> Iterator[None]:
    """Load the weights into plain CPU buffers: no AMX tiles, no repacked layouts.

    llama.cpp's AMX weight buffer type crashes (SIGSEGV in ``ggml_backend_amx_mul_mat``, called
    from ``ggml::cpu::amx::tensor_traits::compute_forward``) on CPUs that report AMX_INT8, as soon
    as a batch has more than a few tokens; that is an open upstream bug. Turning the extra buffer
    types off avoids it and costs nothing measurable on a CPU without AMX (bench/local_model.py),
    so it is always off rather than only where AMX is seen. ``Llama(...)`` takes no argument for
    the field, so the default parameters it starts from are adjusted while it loads (this process
    loads one model and does nothing else meanwhile).
    """
    defaults = llama_native.llama_model_default_params

    def plain_buffers() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    llama_native.llama_model_default_params = plain_buffers
    try:
        yield
    finally:
        llama_native.llama_model_default_params = defaults


def generate(
    loaded: LoadedModel,
    request: GenerationRequest,
    stop: threading.Event,
    report: Callable[[Report], None],
) -> Finished:
    """Generate one reply, reporting every step; returns how it ended (also when stopped)."""
    llama = loaded.llama
    prompt = loaded.formatter(messages=request.messages).prompt  # type: ignore[arg-type]
    add_bos = loaded.add_bos and not (loaded.bos_text and prompt.startswith(loaded.bos_text))
    tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)
    room = llama.n_ctx() - len(tokens)
    if room <= 0:
        return Finished(
            "error",
            f"the prompt is {len(tokens)} tokens; the model's context window holds {llama.n_ctx()}",
        )
    cached = _reuse_cache(llama, tokens)
    report(Prompted(len(tokens), cached))
    grammar = None
    if request.call_tools:
        grammar = LlamaGrammar.from_string(
            reply_grammar(request.call_tools, text_allowed=request.text_allowed), verbose=False
        )
    if not _evaluate_prompt(llama, tokens, cached, stop):
        return Finished("aborted")
    llama.set_seed(request.seed)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    produced: list[int] = []
    limit = min(request.max_tokens, room)
    began = False  # whether the reply's first character is out
    guard = RepetitionGuard() if grammar is None else None
    sampled = _sampler(llama, tokens, request.temperature, grammar)
    try:
        while len(produced) < limit:
            if stop.is_set():
                return Finished("aborted")
            token = next(sampled)
            if llama_cpp.llama_vocab_is_eog(loaded.vocab, token):
                return Finished("stop")
            produced.append(token)
            text = decoder.decode(llama.detokenize([token]))
            report(text)
            if guard is not None and guard.looping(token, text):
                return Finished("length", REPEATING)
            if not began and text:
                began = True
                if grammar is not None and request.text_allowed and not text.startswith("{"):
                    sampled.close()  # free text from here on: the grammar allows every token
                    sampled = _sampler(llama, tokens + produced, request.temperature, None)
                    guard = RepetitionGuard(produced, text)
    finally:
        sampled.close()
    if stop.is_set():
        return Finished("aborted")
    return Finished("length", f"the reply reached its limit of {limit} tokens")


def _sampler(
    llama: Llama, tokens: list[int], temperature: float, grammar: LlamaGrammar | None
) -> Generator[int, Any, None]:
    penalty = 1.0 if grammar is not None else REPEAT_PENALTY
    return llama.generate(tokens, temp=temperature, grammar=grammar, repeat_penalty=penalty)


def _reuse_cache(llama: Llama, tokens: list[int]) -> int:
    """Keep what the cache holds of this prompt (never its last token); returns how much."""
    cached = llama.input_ids[: llama.n_tokens]
    reused = 0
    for old, new in zip(cached, tokens[:-1], strict=False):
        if old != new:
            break
        reused += 1
    llama.n_tokens = reused  # eval() drops the cache beyond this point first
    return reused


def _evaluate_prompt(llama: Llama, tokens: list[int], cached: int, stop: threading.Event) -> bool:
    """Evaluate all but the prompt's last token in chunks, checking ``stop`` between them.

    ``generate`` then finds the prompt cached and evaluates only the last token. Returns False
    if stopped.
    """
    for start in range(cached, len(tokens) - 1, _PROMPT_CHUNK):
        if stop.is_set():
            return False
        llama.eval(tokens[start : min(start + _PROMPT_CHUNK, len(tokens) - 1)])
    return True


def _special_text(llama: Llama, token: int) -> str:
    if token < 0:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="replace")
