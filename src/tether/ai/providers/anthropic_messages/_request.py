"""tether's context as the body of an Anthropic Messages request.

The wire format differs from tether's transcript in a few ways the API insists on: tool results
are ``tool_result`` blocks inside a user turn (consecutive results share one turn), thinking is
replayed only with its ``signature`` (redacted thinking as ``redacted_thinking`` with its opaque
``data``), tool-call ids must match ``[a-zA-Z0-9_-]{1,64}``, and thinking needs a token budget
below ``max_tokens``, forbids ``temperature``, and cannot continue a tool-calling turn that did
not begin with thinking. Prompt-cache breakpoints go on the system prompt and on the last block
of the conversation, so each turn of an agent run reads the previous turn's prefix from the
cache.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ..._stream import ReasoningLevel, StreamOptions
from ..._types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from .._tool_choice import merged_extras

__all__ = ["THINKING_BUDGETS", "request_body", "thinking_settings", "wire_tool_call_id"]

THINKING_BUDGETS: dict[ReasoningLevel, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
}
"""Thinking tokens per level (``budget_tokens``); the API accepts no fewer than 1024."""

_MIN_BUDGET = 1024
_ANSWER_FLOOR = 1024
"""Tokens kept for the answer when the model's output limit squeezes the thinking budget."""

_CACHE_POINT = {"type": "ephemeral"}
_VALID_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_INVALID_ID_CHARACTER = re.compile(r"[^a-zA-Z0-9_-]")
_IMAGE_OMITTED = "(image omitted: this model does not accept images)"

Block = dict[str, Any]


def request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The JSON body of a streamed ``POST /v1/messages`` for ``context``."""
    messages = wire_messages(context.messages, model)
    max_tokens, budget = thinking_settings(model, options)
    if budget is not None and _tool_turn_without_thinking(messages):
        max_tokens, budget = options.max_tokens or model.max_tokens, None
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": messages,
        "stream": True,
    }
    if context.system_prompt:
        body["system"] = [
            {"type": "text", "text": context.system_prompt, "cache_control": _CACHE_POINT}
        ]
    if context.tools:
        body["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in context.tools
        ]
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    body.update(merged_extras(model, context, options))
    return body


def thinking_settings(model: Model, options: StreamOptions) -> tuple[int, int | None]:
    """``(max_tokens, thinking budget or None)``.

    Thinking is on only for a reasoning model asked for a level. Its tokens count toward
    ``max_tokens``, which must exceed the budget: a smaller limit is raised by the budget (the
    caller's limit stays what the answer may use), never beyond the model's own limit; where
    that limit is the squeeze, the budget shrinks, and below the API's minimum thinking is off.
    """
    max_tokens = options.max_tokens or model.max_tokens
    if options.reasoning is None or not model.reasoning:
        return max_tokens, None
    budget = THINKING_BUDGETS[options.reasoning]
    if max_tokens <= budget:
        max_tokens = min(max_tokens + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = max_tokens - _ANSWER_FLOOR
    if budget < _MIN_BUDGET:
        return options.max_tokens or model.max_tokens, None
    return max_tokens, budget


def wire_tool_call_id(call_id: str) -> str:
    """``call_id`` if Anthropic accepts it, else a valid id derived from it (the same every
    time, so a call and its result still match, and distinct ids stay distinct)."""
    if _VALID_ID.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    readable = _INVALID_ID_CHARACTER.sub("_", call_id)[:51]
    return f"{readable}_{digest}" if readable else f"call_{digest}"


def wire_messages(messages: list[Message], model: Model) -> list[dict[str, Any]]:
    """User, assistant and tool-result messages as Anthropic turns."""
    images = "image" in model.input
    turns: list[dict[str, Any]] = []
    results: list[Block] | None = None  # the open user turn of tool results
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if results is None:
                results = []
                turns.append({"role": "user", "content": results})
            results.append(_tool_result(message, images))
            continue
        results = None
        if isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message)
            role = "assistant"
        else:
            content = message.content
            blocks = _user_blocks(
                [TextContent(content)] if isinstance(content, str) else content, images
            )
            role = "user"
        if blocks:
            turns.append({"role": role, "content": blocks})
    _mark_cache_point(turns)
    return turns


def _user_blocks(content: list[TextContent | ImageContent], images: bool) -> list[Block]:
    blocks: list[Block] = []
    for part in content:
        if isinstance(part, ImageContent):
            blocks.append(_image(part) if images else {"type": "text", "text": _IMAGE_OMITTED})
        elif part.text.strip():
            blocks.append({"type": "text", "text": part.text})
    return blocks


def _image(image: ImageContent) -> Block:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    }


def _tool_result(result: ToolResultMessage, images: bool) -> Block:
    block: Block = {
        "type": "tool_result",
        "tool_use_id": wire_tool_call_id(result.tool_call_id),
        "is_error": result.is_error,
    }
    content = _user_blocks(result.content, images)
    if content:
        block["content"] = content
    return block


def _assistant_blocks(message: AssistantMessage) -> list[Block]:
    blocks: list[Block] = []
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text.strip():
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ThinkingContent):
            blocks.extend(_thinking(part))
        elif isinstance(part, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": wire_tool_call_id(part.id),
                    "name": part.name,
                    "input": part.arguments,
                }
            )
    return blocks


def _thinking(part: ThinkingContent) -> list[Block]:
    """Signed thinking is replayed as the model wrote it; unsigned thinking (a stream cut short
    before its signature) cannot be, so it goes back as plain text."""
    if part.redacted:
        return [{"type": "redacted_thinking", "data": part.signature}] if part.signature else []
    if part.signature:
        return [{"type": "thinking", "thinking": part.thinking, "signature": part.signature}]
    return [{"type": "text", "text": part.thinking}] if part.thinking.strip() else []


def _tool_turn_without_thinking(turns: list[dict[str, Any]]) -> bool:
    """Whether the last assistant turn called tools without thinking first (it was written with
    thinking off, or by another model). The API refuses thinking for a request that continues
    such a turn, so this request goes without; the next turn of the run may think again."""
    for turn in reversed(turns):
        if turn["role"] == "assistant":
            blocks = turn["content"]
            calls = any(block["type"] == "tool_use" for block in blocks)
            return calls and blocks[0]["type"] not in ("thinking", "redacted_thinking")
    return False


def _mark_cache_point(turns: list[dict[str, Any]]) -> None:
    """A cache breakpoint on the last block of a final user turn (what the next turn reuses)."""
    if turns and turns[-1]["role"] == "user":
        last = turns[-1]["content"][-1]
        turns[-1]["content"][-1] = {**last, "cache_control": _CACHE_POINT}
