"""A Chat Completions server that answered HTTP 200 with an empty stream, and why.

llama.cpp's Python server (llama-cpp-python) starts a 200 event stream and then fails inside it
before the first event when the prompt does not fit its context ("Requested tokens exceed
context window") or when asked to stream ``tool_choice: "auto"`` ("Automatic streaming tool
choice is not supported"): the body is empty and the reason is only in the server's log. That is
deterministic, so it is not retried blindly: the same request is sent once unstreamed, which
such a server answers with its reason (HTTP 400 ``context_length_exceeded``, which the caller's
context-overflow handling — compaction — recognises), or with an answer, which shows that only
streaming this request fails. Either way the person is told what was sent.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from .._errors import failure_text
from .._openai_client import openai_failure_text
from .._wire import AbortGuard

__all__ = ["describe_request", "diagnose_empty_stream"]

_SDK_ARGUMENTS = frozenset({"model", "messages", "stream", "stream_options"})
_SHOWN_TOOLS = 5


async def diagnose_empty_stream(
    client: openai.AsyncOpenAI,
    body: dict[str, Any],
    guard: AbortGuard,
    provider: str,
    api_key: str | None,
) -> str:
    """The ``error_message`` for an empty 200 stream: what was sent, and what the same request
    unstreamed says (sent once; the SDK tries once more only if that connection fails, as the
    server may close the one the empty stream came on)."""
    sent = describe_request(body)
    head = f"the server answered HTTP 200 with an empty stream (no events, no error) to {sent}"
    try:
        await guard.wait(
            client.with_options(max_retries=1).chat.completions.create(
                model=body["model"],
                messages=body["messages"],
                stream=False,
                extra_body={k: v for k, v in body.items() if k not in _SDK_ARGUMENTS},
            )
        )
    except openai.APIStatusError as exc:
        reason = openai_failure_text(provider, exc, api_key)
        # llama-cpp-python 0.3.36 answers an unstreamed "required" with HTTP 500 and an empty
        # message (an assertion that only "auto" may be answered): the advice still applies.
        advice = _choice_advice(body) if exc.status_code >= 500 else ""
        return f"{reason} — {head}; sent once more unstreamed, it got this answer{advice}"
    except openai.OpenAIError as exc:
        reason = openai_failure_text(provider, exc, api_key)
        return failure_text(provider, message=f"{head}; unstreamed it failed too: {reason}")
    advice = _choice_advice(body) or "; the server's log says why"
    return failure_text(
        provider,
        message=f"{head}; the same request unstreamed succeeded, so only streaming it fails"
        f"{advice}",
        api_key=api_key,
    )


def _choice_advice(body: dict[str, Any]) -> str:
    """What to choose instead, for a request whose tool choice llama-cpp-python cannot stream."""
    if body.get("tools") and body.get("tool_choice") in ("auto", "required"):
        return (
            "; llama.cpp's Python server streams tool calls only for a tool_choice that names a"
            " tool (auto and required it refuses): choose one tool or none (--tool-choice NAME,"
            " or extra_body in models.toml)"
        )
    return ""


def describe_request(body: dict[str, Any]) -> str:
    """The request in one phrase: model, messages, tools, tool choice, output limit, size."""
    parts = [
        f"model {json.dumps(body.get('model'))}",
        _count(len(body.get("messages", [])), "message"),
    ]
    tools = [
        t.get("function", {}).get("name", "?") for t in body.get("tools", []) if isinstance(t, dict)
    ]
    if tools:
        shown = ", ".join(tools[:_SHOWN_TOOLS]) + (", ..." if len(tools) > _SHOWN_TOOLS else "")
        parts.append(f"{_count(len(tools), 'tool')} ({shown})")
        choice = body.get("tool_choice")
        parts.append("no tool_choice" if choice is None else f"tool_choice {json.dumps(choice)}")
    for field in ("max_completion_tokens", "max_tokens"):
        if field in body:
            parts.append(f"{field} {body[field]}")
    size = len(json.dumps(body, ensure_ascii=False).encode())
    parts.append(f"{size:,} bytes")
    return "a streamed request: " + ", ".join(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
