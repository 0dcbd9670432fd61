"""A tether context as a Chat Completions request body, shaped by the server's ``compat`` flags.

Servers that speak Chat Completions differ in small ways (the system prompt's role, the name of
the output-token limit, whether usage can be streamed, how reasoning is asked for); each
difference is a flag of ``model.compat`` (:mod:`.._compat` documents them and detects them from
the URL). A model without a flag gets the detected value, so a hand-built :class:`Model` works
as well as one from the registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from ..._confirm_request import without_confirm_request
from ..._stream import StreamOptions
from ..._types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from .._compat import COMPAT_FLAGS, detect_compat, refused_null_content
from .._tool_choice import merged_extras

__all__ = ["REASONING_FIELDS", "ChatCompat", "chat_messages", "compat_for", "request_body"]

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Where compatible servers put reasoning text in a delta (the first non-empty one wins)."""
_REPLAYED = frozenset(REASONING_FIELDS)
_IMAGES_FROM_TOOLS = "Attached image(s) from the tool result(s) above:"
_IMAGE_ONLY_RESULT = "(the result is the attached image)"


@dataclass(frozen=True, slots=True)
class ChatCompat:
    """The ``compat`` flags of one model, checked and typed (meanings: :mod:`.._compat`).

    The system prompt goes as ``developer`` only to a reasoning model of a server with
    ``supports_developer_role`` (OpenAI's o-series and GPT-5); every model takes ``system``.
    """

    supports_developer_role: bool
    supports_usage_in_streaming: bool
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"]
    supports_reasoning_effort: bool
    thinking_format: Literal["openai", "qwen", "zai"]
    requires_tool_result_name: bool
    supports_strict_mode: bool
    supports_null_content: bool
    offer_confirm_request: bool


def compat_for(model: Model) -> ChatCompat:
    """``model.compat`` over the flags detected from ``model.base_url``.

    Raises :class:`ValueError` naming the flag when a value has the wrong type or is not one
    of the allowed strings.
    """
    flags = {**detect_compat(model.base_url), **model.compat}
    if refused_null_content(model.base_url):
        flags["supports_null_content"] = False
    for name, allowed in COMPAT_FLAGS.items():
        value = flags[name]
        if allowed is bool and not isinstance(value, bool):
            raise ValueError(f"model.compat.{name} must be true or false, not {value!r}")
        if isinstance(allowed, tuple) and value not in allowed:
            choices = " or ".join(repr(choice) for choice in allowed)
            raise ValueError(f"model.compat.{name} must be {choices}, not {value!r}")
    return ChatCompat(**{name: flags[name] for name in COMPAT_FLAGS})


def request_body(
    model: Model, context: Context, options: StreamOptions, compat: ChatCompat
) -> dict[str, Any]:
    """The JSON body of a streamed Chat Completions request; the extras (``Model.extra_body``,
    the tool choice, ``options.extra``) are merged last."""
    body: dict[str, Any] = {
        "model": model.id,
        "messages": chat_messages(model, context, compat),
        "stream": True,
    }
    if compat.supports_usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens:
        body[compat.max_tokens_field] = max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            _tool(tool.name, tool.description, tool.parameters, compat) for tool in context.tools
        ]
    if model.reasoning:
        _ask_for_reasoning(body, options, compat)
    body.update(merged_extras(model, context, options))
    return body


def chat_messages(model: Model, context: Context, compat: ChatCompat) -> list[dict[str, Any]]:
    """The transcript as Chat messages: system (or developer) prompt first, then each message."""
    images = "image" in model.input
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        developer = compat.supports_developer_role and model.reasoning
        role = "developer" if developer else "system"
        out.append({"role": role, "content": context.system_prompt})
    pending_images: list[dict[str, Any]] = []
    for message in context.messages:
        if not isinstance(message, ToolResultMessage) and pending_images:
            out.append(_user_images(pending_images))
            pending_images = []
        if isinstance(message, UserMessage):
            user = _user(message, images)
            if user is not None:
                out.append(user)
        elif isinstance(message, AssistantMessage):
            assistant = _assistant(message, compat)
            if assistant is not None:
                out.append(assistant)
        elif isinstance(message, ToolResultMessage):
            out.append(_tool_result(message, compat))
            if images:
                pending_images.extend(
                    _image_part(block)
                    for block in message.content
                    if isinstance(block, ImageContent)
                )
    if pending_images:
        out.append(_user_images(pending_images))
    return out


# -- messages ------------------------------------------------------------------------------------


def _user(message: UserMessage, images: bool) -> dict[str, Any] | None:
    """Text-only content as one string (what every server takes), else text and image parts."""
    content = message.content
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"type": "text", "text": block.text})
        elif images:
            parts.append(_image_part(block))
    if all(part["type"] == "text" for part in parts):
        text = "\n".join(part["text"] for part in parts)
        return {"role": "user", "content": text} if text else None
    return {"role": "user", "content": parts}


def _assistant(message: AssistantMessage, compat: ChatCompat) -> dict[str, Any] | None:
    """Text as ``content``, calls as ``tool_calls``; thinking goes back only in the field it came
    in (its ``signature``), which the transcript repair keeps for the same model alone."""
    text = "".join(block.text for block in message.content if isinstance(block, TextContent))
    calls = [
        {
            "id": block.id,
            "type": "function",
            "function": {
                "name": block.name,
                "arguments": json.dumps(block.arguments, ensure_ascii=False),
            },
        }
        for block in message.content
        if isinstance(block, ToolCall)
    ]
    if not text.strip() and not calls:
        return None
    empty = None if compat.supports_null_content else ""
    out: dict[str, Any] = {"role": "assistant", "content": text or empty}
    if calls:
        out["tool_calls"] = calls
    for block in message.content:
        if isinstance(block, ThinkingContent) and block.thinking and block.signature in _REPLAYED:
            field = block.signature
            out[field] = out.get(field, "") + block.thinking
    return out


def _tool_result(message: ToolResultMessage, compat: ChatCompat) -> dict[str, Any]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    if not text and any(isinstance(block, ImageContent) for block in message.content):
        text = _IMAGE_ONLY_RESULT
    out: dict[str, Any] = {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}
    if compat.requires_tool_result_name:
        out["name"] = message.tool_name
    return out


def _user_images(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Chat tool messages hold text only: their images follow in one user message."""
    return {"role": "user", "content": [{"type": "text", "text": _IMAGES_FROM_TOOLS}, *parts]}


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"},
    }


# -- tools and reasoning ---------------------------------------------------------------------


def _tool(
    name: str, description: str, parameters: dict[str, Any], compat: ChatCompat
) -> dict[str, Any]:
    if not compat.offer_confirm_request:
        parameters = without_confirm_request(parameters)
    function: dict[str, Any] = {"name": name, "description": description, "parameters": parameters}
    if compat.supports_strict_mode:
        function["strict"] = False
    return {"type": "function", "function": function}


def _ask_for_reasoning(body: dict[str, Any], options: StreamOptions, compat: ChatCompat) -> None:
    """A reasoning model's thinking level, in the server's format (where it takes one)."""
    if not compat.supports_reasoning_effort:
        return
    level = options.reasoning
    if compat.thinking_format == "qwen":
        body["enable_thinking"] = level is not None
    elif compat.thinking_format == "zai":
        body["thinking"] = {"type": "enabled" if level is not None else "disabled"}
    elif level is not None:
        body["reasoning_effort"] = level
