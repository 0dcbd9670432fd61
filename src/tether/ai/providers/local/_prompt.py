"""What the embedded model reads: tether's context as chat messages, the tools described in text.

A small local model has no tool-calling wire format, so the system message tells it how a call
is written — ``{"name": <tool>, "arguments": {...}}``, the one shape the grammar lets it emit
(see :mod:`._grammar`) — and lists each tool with its description and parameter schema.
Earlier calls are shown to it in that same shape, and their results come back as messages of
the ``tool`` role. The GGUF's chat template then turns these messages into the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..._types import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from .._transform import IMAGE_OMITTED

__all__ = ["TOOL_INSTRUCTIONS", "call_head", "call_text", "chat_messages"]

ChatMessage = dict[str, str]

TOOL_INSTRUCTIONS = (
    "You can use tools. To use one, reply with nothing but a JSON object of the form "
    '{"name": "<tool name>", "arguments": {...}} whose arguments follow that tool\'s parameters; '
    "its result comes back in a message from the tool. To answer without a tool, reply in plain "
    "text."
)


def call_head(name: str) -> str:
    """The text of a call up to its arguments: ``{"name": "read", "arguments": ``."""
    return '{"name": ' + json.dumps(name) + ', "arguments": '


def call_text(name: str, arguments: dict[str, Any]) -> str:
    """A whole call as the model writes it."""
    return call_head(name) + json.dumps(arguments, ensure_ascii=False) + "}"


def chat_messages(context: Context, tools: Sequence[Tool]) -> list[ChatMessage]:
    """The role/content messages for the chat template; ``tools`` are the ones described."""
    messages: list[ChatMessage] = []
    system = _system_text(context.system_prompt, tools)
    if system:
        messages.append({"role": "system", "content": system})
    for message in context.messages:
        if isinstance(message, UserMessage):
            messages.append({"role": "user", "content": _plain(message.content)})
        elif isinstance(message, ToolResultMessage):
            messages.append({"role": "tool", "content": _plain(message.content)})
        elif isinstance(message, AssistantMessage):
            content = _assistant_text(message)
            if content:
                messages.append({"role": "assistant", "content": content})
    return messages


def _system_text(system_prompt: str, tools: Sequence[Tool]) -> str:
    if not tools:
        return system_prompt
    listed = "\n".join(
        f"- {tool.name}: {tool.description}\n  Parameters: {json.dumps(tool.parameters)}"
        for tool in tools
    )
    described = f"{TOOL_INSTRUCTIONS}\n\nTools:\n{listed}"
    return f"{system_prompt}\n\n{described}" if system_prompt else described


def _plain(content: str | Sequence[TextContent | ImageContent]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        block.text if isinstance(block, TextContent) else IMAGE_OMITTED for block in content
    )


def _assistant_text(message: AssistantMessage) -> str:
    parts = []
    for block in message.content:
        if isinstance(block, TextContent) and block.text:
            parts.append(block.text)
        elif isinstance(block, ToolCall):
            parts.append(call_text(block.name, block.arguments))
    return "\n".join(parts)
