"""llama.cpp in this process: one loaded model per file, one generation on it at a time.

:func:`run_generation` runs in a worker thread, never on the event loop. It loads the model on
first use (cached for the life of the process, keyed by file and context size), takes that
model's lock (a llama.cpp context is not re-entrant), renders the prompt with the GGUF's own
chat template, and samples token by token under the reply grammar. Every step is handed to
``report``: :class:`Prompted`, each token's text (a ``str``, possibly empty while a character's
UTF-8 bytes are incomplete), then :class:`Finished`. The ``stop`` event is
checked before every token, so an abort ends the generation between two tokens (and the prompt's
evaluation between two chunks of it).

The grammar only has to decide how a reply begins when free text is allowed: once the first
character is not ``{`` the rest is unconstrained text, so sampling continues without it (the
grammar would allow every token anyway, at the cost of checking the whole vocabulary).
"""

from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import llama_cpp
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from llama_cpp.llama_grammar import LlamaGrammar

from .._types import Tool
from ._local_grammar import reply_grammar

__all__ = [
    "Finished",
    "GenerationRequest",
    "Prompted",
    "Report",
    "run_generation",
]

# For a GGUF without a chat template: ChatML, which SmolLM2 and many small models speak.
_CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(slots=True, frozen=True)
class GenerationRequest:
    model_path: str
    context_window: int
    messages: list[dict[str, str]]
    max_tokens: int
    temperature: float
    seed: int
    call_tools: Sequence[Tool]
    """The tools the reply may call (empty: text only, no grammar)."""
    text_allowed: bool


@dataclass(slots=True, frozen=True)
class Prompted:
    tokens: int


@dataclass(slots=True, frozen=True)
class Finished:
    """How the generation ended; ``error`` comes with a ``message``."""

    reason: Literal["stop", "length", "aborted", "error"]
    message: str = ""


Report: TypeAlias = str | Prompted | Finished


@dataclass(slots=True)
class _LoadedModel:
    llama: Llama
    formatter: Jinja2ChatFormatter
    bos_text: str
    add_bos: bool
    vocab: Any
    lock: threading.Lock


# llama.cpp's threads spin at every barrier: more threads than free cores (a busy machine, the
# default of one per logical core for the prompt) made prompt evaluation several times slower.
_THREADS = max(1, (os.cpu_count() or 2) // 2)
_PROMPT_CHUNK = 128  # prompt tokens evaluated between two looks at the stop flag
_models: dict[tuple[str, int], _LoadedModel] = {}
_loading = threading.Lock()


def run_generation(
    request: GenerationRequest, stop: threading.Event, report: Callable[[Report], None]
) -> None:
    """Generate one reply, reporting every step; never raises (a failure is reported)."""
    try:
        loaded = _loaded_model(request.model_path, request.context_window)
        with loaded.lock:
            report(_generate(loaded, request, stop, report))
    except Exception as exc:
        report(Finished("error", f"{type(exc).__name__}: {exc}"))


def _loaded_model(path: str, context_window: int) -> _LoadedModel:
    key = (path, context_window)
    with _loading:
        loaded = _models.get(key)
        if loaded is None:
            loaded = _models[key] = _load(path, context_window)
        return loaded


def _load(path: str, context_window: int) -> _LoadedModel:
    llama = Llama(
        model_path=path,
        n_ctx=context_window,
        n_threads=_THREADS,
        n_threads_batch=_THREADS,
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
    return _LoadedModel(
        llama=llama,
        formatter=formatter,
        bos_text=bos_text,
        add_bos=metadata.get("tokenizer.ggml.add_bos_token") == "true",
        vocab=llama_cpp.llama_model_get_vocab(llama.model),
        lock=threading.Lock(),
    )


def _evaluate_prompt(llama: Llama, tokens: list[int], stop: threading.Event) -> bool:
    """Evaluate all but the prompt's last token in chunks, checking ``stop`` between them.

    What an earlier request left in the cache is reused up to the first token that differs.
    ``generate`` then finds the prompt cached and evaluates only the last token. Returns False
    if stopped.
    """
    cached = llama.input_ids[: llama.n_tokens]
    reused = 0
    for old, new in zip(cached, tokens[:-1], strict=False):
        if old != new:
            break
        reused += 1
    llama.n_tokens = reused  # eval() drops the cache beyond this point first
    for start in range(reused, len(tokens) - 1, _PROMPT_CHUNK):
        if stop.is_set():
            return False
        llama.eval(tokens[start : min(start + _PROMPT_CHUNK, len(tokens) - 1)])
    return True


def _special_text(llama: Llama, token: int) -> str:
    if token < 0:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="replace")


def _generate(
    loaded: _LoadedModel,
    request: GenerationRequest,
    stop: threading.Event,
    report: Callable[[Report], None],
) -> Finished:
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
    report(Prompted(len(tokens)))
    grammar = None
    if request.call_tools:
        grammar = LlamaGrammar.from_string(
            reply_grammar(request.call_tools, text_allowed=request.text_allowed)
        )
    if not _evaluate_prompt(llama, tokens, stop):
        return Finished("aborted")
    llama.set_seed(request.seed)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    produced: list[int] = []
    limit = min(request.max_tokens, room)
    began = False  # whether the reply's first character is out
    sampled = llama.generate(tokens, temp=request.temperature, grammar=grammar)
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
            if not began and text:
                began = True
                if grammar is not None and request.text_allowed and not text.startswith("{"):
                    sampled.close()  # free text from here on: the grammar allows every token
                    sampled = llama.generate(tokens + produced, temp=request.temperature)
    finally:
        sampled.close()
    return Finished("aborted" if stop.is_set() else "length")
