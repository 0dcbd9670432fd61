"""Replies recorded from llama-cpp-python's OpenAI-compatible server (0.3.36, serving the
bundled SmolLM2-135M with ``--chat_format chatml-function-calling --n_ctx 512``), replayed by
the loopback server: the status line and headers as it sent them, the body byte for byte.

- ``null_content``: turn 2 with ``"content": null`` next to ``tool_calls`` (HTTP 500, 7
  validation errors);
- ``choice_auto`` / ``choice_required`` / ``overflow``: a streamed request with
  ``tool_choice: "auto"``, ``"required"``, or a prompt past the context: HTTP 200 and an empty
  body (the reason only in the server's log);
- ``choice_auto_ns`` / ``choice_required_ns`` / ``overflow_ns``: the same requests unstreamed
  (a tool call; HTTP 500 with an empty message, the server's assertion that only ``"auto"``
  may be answered; HTTP 400 ``context_length_exceeded``);
- ``choice_named``: a streamed tool call for ``tool_choice`` naming ``read``;
- ``auto_tools``: a streamed request with tools and no ``tool_choice`` (tools ignored, text cut
  at ``max_tokens``: ``finish_reason: "length"``, no usage).
"""

from __future__ import annotations

from pathlib import Path

from .loopback import Reply

__all__ = ["recorded"]

_FOLDER = Path(__file__).parent / "recorded" / "llama_cpp_python"
_FRAMING = {"content-length", "transfer-encoding", "connection", "date"}
"""Headers of the recorded framing; the loopback server sends its own (chunked)."""


def recorded(name: str) -> Reply:
    """The recorded reply ``name`` (a streamed one has no headers file of its own when it
    shares ``choice_auto``'s)."""
    head = _FOLDER / f"{name}.headers"
    if not head.exists():
        head = _FOLDER / "choice_auto.headers"
    status_line, *lines = head.read_text().splitlines()
    headers = dict(line.split(": ", 1) for line in lines if ": " in line)
    content_type = headers.pop("content-type")
    kept = {k: v for k, v in headers.items() if k.lower() not in _FRAMING}
    body = (_FOLDER / f"{name}.body").read_bytes()
    return Reply(int(status_line.split()[1]), [body] if body else [], kept, content_type)
