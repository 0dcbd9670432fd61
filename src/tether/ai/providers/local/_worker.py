"""The embedded model's worker process: ``python -m tether.ai.providers.local._worker PATH N_CTX``.

The ``local`` provider (:mod:`._process`) starts one per model file and talks to it in JSON
lines: requests on stdin, events on stdout. This process loads llama.cpp and the model once, then
serves generations one at a time in the order they came; whatever happens in native code here —
a segmentation fault, an ``abort()`` inside ggml, the out-of-memory killer — ends this process
only, and tether reports it as an error of the message being generated.

In (one object a line):

- ``{"op": "generate", "id": N, "messages": [...], "tools": [{"name", "description",
  "parameters"}], "text_allowed": bool, "max_tokens": int, "temperature": float, "seed": int}``
- ``{"op": "stop", "id": N}`` — end that generation before its next token (or drop it if it
  has not started).

Out: ``{"event": "ready", "load_s": float, "extra_buffer_types": bool}`` once the model is
loaded (the last as llama.cpp was given it: always false, see :mod:`._engine`), or
``{"event": "failed", "kind": "import" | "load", "message": str}`` and the process ends; then
per request ``{"id", "event": "prompted", "tokens", "cached"}``, one
``{"id", "text"}`` per token, and ``{"id", "event": "finished", "reason", "message"}``.

The end of stdin is the end of tether: the process exits at once, mid-generation if need be.
The events go out on a private copy of the original stdout; file descriptor 1 is pointed at
stderr, so nothing llama.cpp prints can break a frame. SIGINT is ignored: a Ctrl-C at the
terminal is tether's to handle (it aborts the turn and stops this generation).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

from ._reports import Finished, Prompted

__all__ = ["main"]


@dataclass(slots=True)
class _Requests:
    """The generations asked for, and which of them were stopped; shared with the reader."""

    waiting: queue.SimpleQueue[dict[str, Any] | None] = field(default_factory=queue.SimpleQueue)
    lock: threading.Lock = field(default_factory=threading.Lock)
    current: int | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    stopped: set[int] = field(default_factory=set)

    def begin(self, request_id: int) -> bool:
        """Make ``request_id`` the current generation; False if it was stopped already."""
        with self.lock:
            if request_id in self.stopped:
                self.stopped.discard(request_id)
                return False
            self.current = request_id
            self.stop.clear()
            return True

    def end(self) -> None:
        with self.lock:
            self.current = None

    def stop_one(self, request_id: int) -> None:
        with self.lock:
            if request_id == self.current:
                self.stop.set()
            else:
                self.stopped.add(request_id)


def main(argv: list[str]) -> int:
    path, context_window = argv[0], int(argv[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    started = time.perf_counter()
    try:
        from . import _engine as engine
    except ImportError as exc:
        _send(out, {"event": "failed", "kind": "import", "message": str(exc)})
        return 0
    try:
        loaded = engine.load_model(path, context_window)
    except Exception as exc:
        _send(out, {"event": "failed", "kind": "load", "message": f"{type(exc).__name__}: {exc}"})
        return 0
    load_s = round(time.perf_counter() - started, 3)
    extra = bool(loaded.llama.model_params.use_extra_bufts)
    _send(out, {"event": "ready", "load_s": load_s, "extra_buffer_types": extra})
    requests = _Requests()
    threading.Thread(target=_read_requests, args=(sys.stdin.buffer, requests), daemon=True).start()
    while (message := requests.waiting.get()) is not None:
        request_id = int(message["id"])
        if not requests.begin(request_id):
            _send(out, {"id": request_id, "event": "finished", "reason": "aborted", "message": ""})
            continue
        try:
            finished = _generate(engine, loaded, message, requests, out)
        except Exception as exc:
            finished = Finished("error", f"{type(exc).__name__}: {exc}")
        finally:
            requests.end()
        _send(
            out,
            {
                "id": request_id,
                "event": "finished",
                "reason": finished.reason,
                "message": finished.message,
            },
        )
    return 0


def _generate(
    engine: Any, loaded: Any, message: dict[str, Any], requests: _Requests, out: IO[bytes]
) -> Finished:
    from ..._types import Tool

    request_id = message["id"]
    request = engine.GenerationRequest(
        messages=message["messages"],
        max_tokens=int(message["max_tokens"]),
        temperature=float(message["temperature"]),
        seed=int(message["seed"]),
        call_tools=[
            Tool(tool["name"], tool["description"], tool["parameters"]) for tool in message["tools"]
        ],
        text_allowed=bool(message["text_allowed"]),
    )

    def report(item: Any) -> None:
        if isinstance(item, str):
            _send(out, {"id": request_id, "text": item})
        elif isinstance(item, Prompted):
            _send(
                out,
                {
                    "id": request_id,
                    "event": "prompted",
                    "tokens": item.tokens,
                    "cached": item.cached,
                },
            )

    finished: Finished = engine.generate(loaded, request, requests.stop, report)
    return finished


def _read_requests(stdin: IO[bytes], requests: _Requests) -> None:
    """Hand requests to the generating thread and stops to the current generation; at the end
    of input (tether has gone) end the process at once."""
    for line in stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("op") == "generate":
            requests.waiting.put(message)
        elif message.get("op") == "stop":
            requests.stop_one(int(message["id"]))
    os._exit(0)


def _send(out: IO[bytes], event: dict[str, Any]) -> None:
    try:
        out.write(json.dumps(event, separators=(",", ":")).encode() + b"\n")
        out.flush()
    except (BrokenPipeError, OSError):
        os._exit(0)  # nobody reads any more: tether has gone


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
