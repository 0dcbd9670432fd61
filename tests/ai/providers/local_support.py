"""Helpers of the embedded model's tests: one streamed reply, and a llama-cpp-python that
cannot be imported (a real package of that name, shadowing the installed one)."""

from __future__ import annotations

from pathlib import Path

from tether.ai import AssistantMessage, AssistantMessageEvent, Context, Model, StreamOptions
from tether.ai.providers import get_model, stream

MODEL = get_model("local/smollm2-135m")


async def collect(
    context: Context, opts: StreamOptions, model: Model = MODEL
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    """Every event of one reply, and the final message (which must be done or error)."""
    events = [event async for event in stream(model, context, opts)]
    final = events[-1]
    assert final.type in ("done", "error")
    return events, final.message


def broken_llama_cpp(folder: Path, error: str) -> Path:
    """A ``llama_cpp`` package whose import raises ``ImportError(error)``; returns the folder
    to put first on PYTHONPATH."""
    package = folder / "shadow" / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f"raise ImportError({error!r})\n")
    return package.parent
