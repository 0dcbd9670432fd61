"""tether's context as an OpenAI Responses request: input items, tools and options.

Nothing is stored on the server (``store: false``), so every request carries the whole
transcript as input items:

- the system prompt is ``instructions``;
- user content is ``input_text`` / ``input_image`` (a data URL; images only for models with
  image input, others get a short note);
- assistant text is an ``output_text`` message item; a thinking block whose ``signature`` holds a
  reasoning item (the whole item as JSON, ``encrypted_content`` included) is replayed verbatim;
- a tool call is a ``function_call`` item. tether's ``ToolCall.id`` is ``"<call_id>|<item_id>"``
  (see :func:`tool_call_id`): the ``call_id`` pairs the call with its result, the item id
  (``fc_...``) is sent back only alongside the reasoning item of the same message, because the
  API refuses a function-call item id whose reasoning item is missing;
- a tool result is a ``function_call_output`` item with the same ``call_id``; images from tool
  results follow in one user message after the run of results.
"""

from __future__ import annotations

import json
from typing import Any

from ..._stream import StreamOptions
from ..._types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from .._tool_choice import merged_extras

__all__ = ["request_body", "split_tool_call_id", "tool_call_id"]

Item = dict[str, Any]

_ID_SEPARATOR = "|"
_NO_IMAGE_INPUT = "(an image was left out: this model does not accept image input)"


def tool_call_id(call_id: str, item_id: str | None) -> str:
    """tether's id for a function call: its ``call_id`` and, when known, its item id."""
    return f"{call_id}{_ID_SEPARATOR}{item_id}" if item_id else call_id


def split_tool_call_id(id: str) -> tuple[str, str | None]:
    """``(call_id, item_id)`` from a tool-call id; ids from other providers have no item id."""
    call_id, separator, item_id = id.partition(_ID_SEPARATOR)
    return (call_id, item_id or None) if separator else (id, None)


def request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The keyword arguments of ``responses.create`` for one streamed request."""
    body: dict[str, Any] = {
        "model": model.id,
        "input": input_items(model, context.messages),
        "stream": True,
        "store": False,
        "max_output_tokens": options.max_tokens or model.max_tokens,
    }
    if context.system_prompt:
        body["instructions"] = context.system_prompt
    if context.tools:
        body["tools"] = [_tool_spec(tool) for tool in context.tools]
    if model.reasoning:
        body["include"] = ["reasoning.encrypted_content"]
        if options.reasoning is not None:
            body["reasoning"] = {"effort": options.reasoning, "summary": "auto"}
    elif options.temperature is not None:
        body["temperature"] = options.temperature  # reasoning models refuse a temperature
    extras = merged_extras(model, context, options)
    if extras:
        body["extra_body"] = extras
    return body


def input_items(model: Model, messages: list[Message]) -> list[Item]:
    """The transcript as Responses input items."""
    items: list[Item] = []
    result_images: list[Item] = []
    for message in messages:
        if not isinstance(message, ToolResultMessage) and result_images:
            items.append(_images_message(result_images))
            result_images = []
        if isinstance(message, UserMessage):
            content = _user_content(model, message.content)
            if content:
                items.append({"role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message))
        elif isinstance(message, ToolResultMessage):
            items.append(_tool_output(message))
            result_images.extend(_result_images(model, message))
    if result_images:
        items.append(_images_message(result_images))
    return items


def _user_content(model: Model, content: str | list[TextContent | ImageContent]) -> list[Item]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}] if content else []
    parts: list[Item] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageContent):
            parts.append(_image_part(model, block))
    return parts


def _image_part(model: Model, image: ImageContent) -> Item:
    if "image" not in model.input:
        return {"type": "input_text", "text": _NO_IMAGE_INPUT}
    url = f"data:{image.mime_type};base64,{image.data}"
    return {"type": "input_image", "image_url": url, "detail": "auto"}


def _assistant_items(message: AssistantMessage) -> list[Item]:
    items: list[Item] = []
    item_ids: list[tuple[Item, str]] = []
    replays_reasoning = False
    for block in message.content:
        if isinstance(block, ThinkingContent):
            reasoning = _reasoning_item(block)
            if reasoning is not None:
                items.append(reasoning)
                replays_reasoning = True
        elif isinstance(block, TextContent):
            if block.text:
                items.append(_output_message(block.text))
        elif isinstance(block, ToolCall):
            call_id, item_id = split_tool_call_id(block.id)
            call = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                "arguments": json.dumps(block.arguments, ensure_ascii=False),
            }
            items.append(call)
            if item_id:
                item_ids.append((call, item_id))
    if replays_reasoning:
        for call, item_id in item_ids:
            call["id"] = item_id
    return items


def _reasoning_item(block: ThinkingContent) -> Item | None:
    """The reasoning item kept in the block's signature; ``None`` for thinking without one."""
    if not block.signature:
        return None
    try:
        item = json.loads(block.signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _output_message(text: str) -> Item:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _tool_output(result: ToolResultMessage) -> Item:
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
    if not text and any(isinstance(b, ImageContent) for b in result.content):
        text = "(the result is the attached image)"
    call_id, _item_id = split_tool_call_id(result.tool_call_id)
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def _result_images(model: Model, result: ToolResultMessage) -> list[Item]:
    return [_image_part(model, b) for b in result.content if isinstance(b, ImageContent)]


def _images_message(parts: list[Item]) -> Item:
    intro = {"type": "input_text", "text": "The images returned by the tool calls above:"}
    return {"role": "user", "content": [intro, *parts]}


def _tool_spec(tool: Tool) -> Item:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,  # Responses makes tools strict by default; tether's schemas are not
    }
