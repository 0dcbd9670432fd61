"""The embedded model's worker processes, seen from tether: start, talk, notice death, kill.

llama.cpp never runs in tether's own process. :func:`worker_for` gives the live worker of a
model file (started on first use by running :mod:`._worker`, reused across turns, ended
with tether), and :meth:`LocalWorker.submit` sends it one generation whose reports are handed
to a callback as they arrive. The worker serves generations one at a time, in order; any number
of callers may submit at once, from any thread or event loop.

A worker that dies — a signal, an exit, a broken pipe — ends every generation it held with an
``error`` that says what happened in a person's words; the next request starts a fresh worker.
Nothing is ever retried here: a request that crashes the model does not crash it in a loop.
:meth:`LocalWorker.stop` asks for a generation to end before its next token; a worker that has
not ended it within :data:`STOP_GRACE_S` (hung, stopped, deep in native code) is killed, and
the generations queued behind that one, which never started, go to a fresh worker.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, Literal

from ._reports import Finished, Prompted, Report

__all__ = ["STOP_GRACE_S", "LocalWorker", "close_workers", "worker_for"]

STOP_GRACE_S = 2.0
_WORKER_MODULE = "tether.ai.providers.local._worker"
_STDERR_LINES = 20
PROVIDER = "local model"

Phase = Literal["loading the model", "waiting", "evaluating the prompt", "generating"]


@dataclass(slots=True)
class _Generation:
    request: dict[str, Any]
    deliver: Callable[[Report], None]
    phase: Phase = "waiting"
    stopping: bool = False


class LocalWorker:
    """One worker process serving one model file (at one context size)."""

    def __init__(self, model_path: str, context_window: int, deaths: int = 0) -> None:
        self.model_path = model_path
        self.context_window = context_window
        self.deaths_before = deaths
        """How many workers of this model died in a row, with no generation completed since."""
        self._process = subprocess.Popen(
            [sys.executable, "-m", _WORKER_MODULE, model_path, str(context_window)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._generations: dict[int, _Generation] = {}
        self._outbox: deque[bytes | None] = deque()
        self._outbox_ready = threading.Condition(self._lock)
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self._failure: str | None = None  # the worker could not load the model: why
        self._killed_for: str | None = None  # why tether killed it, when it did
        self.ended = threading.Event()
        self.clean_end = False
        """Set with ``ended``: True unless a generation died with the worker (tether killing a
        worker that ignored an abort is not a crash)."""
        self.ready: dict[str, Any] | None = None
        """The worker's ``ready`` event once the model is loaded (``load_s``...)."""
        self._settled = threading.Event()  # loaded, failed to load, or gone
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stderr_reader = _start(self._drain_stderr, self._process.stderr)
        _start(self._write_requests, self._process.stdin)
        _start(self._read_events, self._process.stdout)

    @property
    def pid(self) -> int:
        return self._process.pid

    def wait_loaded(self, timeout: float) -> str | None:
        """Wait until the model is loaded: ``None``, or why it is not (it failed, the worker
        died, or ``timeout`` seconds passed)."""
        if not self._settled.wait(timeout):
            return f"{PROVIDER}: the model did not load within {timeout:g} s"
        if self.ready is not None:
            return None
        self.ended.wait(timeout)
        return self._failure or self._death_text(self._process.poll(), "loading the model")

    def submit(self, request: dict[str, Any], deliver: Callable[[Report], None]) -> int:
        """Queue one generation; its reports go to ``deliver`` (from a reader thread)."""
        with self._lock:
            if not self.ended.is_set():
                request_id = next(self._ids)
                self._generations[request_id] = _Generation(request, deliver)
                self._send({"op": "generate", "id": request_id, **request})
                return request_id
        deliver(Finished("error", self._death_text(self._process.poll(), "waiting")))
        return 0

    def stop(self, request_id: int) -> None:
        """End that generation before its next token; kill the worker if it does not comply."""
        with self._lock:
            generation = self._generations.get(request_id)
            if generation is None:
                return
            generation.stopping = True
            self._send({"op": "stop", "id": request_id})
        timer = threading.Timer(STOP_GRACE_S, self._kill_if_running, (request_id,))
        timer.daemon = True
        timer.start()

    def close(self, timeout: float = 1.0) -> None:
        """End the worker: its input closes (it exits at once), else it is killed."""
        with self._lock:
            self._outbox.append(None)
            self._outbox_ready.notify()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    # -- the threads -------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        """Queue a frame for the writer thread (called with the lock held)."""
        self._outbox.append(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self._outbox_ready.notify()

    def _write_requests(self, stdin: IO[bytes]) -> None:
        """Write queued frames; a stopped or dead worker blocks this thread, never a caller."""
        try:
            while True:
                with self._lock:
                    while not self._outbox:
                        self._outbox_ready.wait()
                    frame = self._outbox.popleft()
                if frame is None:
                    break
                stdin.write(frame)
                stdin.flush()
        except OSError:
            pass  # the worker is gone; the reader reports it
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def _drain_stderr(self, stderr: IO[bytes]) -> None:
        for line in stderr:
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                self._stderr.append(text)

    def _read_events(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self._dispatch(event)
        self._ended()

    def _dispatch(self, event: dict[str, Any]) -> None:
        if "id" not in event:
            if event.get("event") == "ready":
                self.ready = event
            elif event.get("event") == "failed":
                self._failure = _failure_text(event, self.model_path)
            self._settled.set()
            return
        request_id = int(event["id"])
        with self._lock:
            generation = self._generations.get(request_id)
            if generation is None:
                return
            if "text" in event:
                generation.phase = "generating"
            elif event.get("event") == "prompted":
                generation.phase = "evaluating the prompt"
            elif event.get("event") == "finished":
                del self._generations[request_id]
                if event.get("reason") in ("stop", "length"):
                    self.deaths_before = 0
        if "text" in event:
            generation.deliver(str(event["text"]))
        elif event.get("event") == "prompted":
            generation.deliver(Prompted(int(event["tokens"]), int(event["cached"])))
        elif event.get("event") == "finished":
            generation.deliver(_finished(event))

    def _ended(self) -> None:
        """The worker's output has ended: it is gone. Fail what it held, say why."""
        code = self._process.wait()
        self._stderr_reader.join(1.0)  # its last words, if it said any
        with self._lock:
            lost = self._generations
            self._generations = {}
            self.clean_end = (not lost and self._failure is None) or self._killed_for is not None
            self.ended.set()
        self._settled.set()
        for generation in lost.values():
            if self._killed_for and generation.phase == "waiting" and not generation.stopping:
                # queued behind the generation that ignored its abort; it never started
                worker_for(self.model_path, self.context_window).submit(
                    generation.request, generation.deliver
                )
                continue
            message = self._failure or self._death_text(code, generation.phase)
            generation.deliver(Finished("error", message))

    def _kill_if_running(self, request_id: int) -> None:
        with self._lock:
            if request_id not in self._generations:
                return
            self._killed_for = (
                f"it did not stop within {STOP_GRACE_S:g} s of an abort, so tether killed it"
            )
        self._process.kill()

    def _death_text(self, code: int | None, phase: Phase) -> str:
        """What happened, in a person's words, and what to do about it."""
        if self._failure is not None:
            return self._failure
        if code is None:
            how = "ended"
        elif code < 0:
            how = f"died ({_signal_name(-code)})"
        else:
            how = f"exited with status {code}"
        text = f"{PROVIDER}: the embedded model's process {how} while {phase}"
        if self._killed_for:
            text += f" ({self._killed_for})"
        elif code == -signal.SIGKILL:
            text += " (killed from outside; often the out-of-memory killer)"
        if self._stderr:
            text += f"; its last output: {self._stderr[-1][:300]}"
        text += (
            ". The session is intact and the next message starts a fresh process."
            if not self.deaths_before
            else f". It died on the previous request too ({self.deaths_before + 1} times in a"
            " row); nothing is retried."
        )
        return (
            text + " If it keeps happening, use another model (tether models; docs/models.md,"
            " 'When the embedded model fails')."
        )


def _start(target: Callable[[Any], None], stream: IO[bytes]) -> threading.Thread:
    thread = threading.Thread(target=target, args=(stream,), daemon=True)
    thread.start()
    return thread


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _finished(event: dict[str, Any]) -> Finished:
    reason = event.get("reason")
    message = str(event.get("message") or "")
    if reason in ("stop", "length", "aborted"):
        return Finished(reason, message)
    return Finished("error", f"{PROVIDER}: {message or 'the generation failed'}")


def _failure_text(event: dict[str, Any], model_path: str) -> str:
    message = str(event.get("message") or "no further detail")
    if event.get("kind") == "import":
        return (
            "The embedded local model is not available: llama-cpp-python cannot be imported"
            f" ({message}). Install it with: pip install 'tether[local]'"
        )
    return f"{PROVIDER}: cannot load {model_path}: {message}"


_workers: dict[tuple[str, int], LocalWorker] = {}
_registry = threading.Lock()


def worker_for(model_path: str, context_window: int) -> LocalWorker:
    """The live worker of this model file, started now if there is none."""
    key = (model_path, context_window)
    with _registry:
        worker = _workers.get(key)
        if worker is None or worker.ended.is_set():
            deaths = 0 if worker is None or worker.clean_end else worker.deaths_before + 1
            worker = _workers[key] = LocalWorker(model_path, context_window, deaths)
        return worker


@atexit.register
def close_workers() -> None:
    """End every worker (tether is exiting; the workers would also notice their input end)."""
    with _registry:
        workers = list(_workers.values())
        _workers.clear()
    for worker in workers:
        worker.close()
