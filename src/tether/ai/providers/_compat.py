"""How OpenAI-compatible servers differ, as ``Model.compat`` flags, and their detection from a URL.

Every ``openai-completions`` model carries all of these flags (detected from its ``base_url``,
then overridden by the ``compat`` table of its ``models.toml`` provider):

``supports_developer_role`` (bool)
    The system prompt goes as a ``developer`` message (else ``system``).
``supports_usage_in_streaming`` (bool)
    Ask for usage with ``stream_options: {"include_usage": true}``.
``max_tokens_field`` (``"max_completion_tokens"`` | ``"max_tokens"``)
    The request field that caps the output.
``supports_reasoning_effort`` (bool)
    The server takes a reasoning level at all; when false, ``StreamOptions.reasoning`` is ignored.
``thinking_format`` (``"openai"`` | ``"qwen"`` | ``"zai"``)
    How reasoning is switched on: ``reasoning_effort: level`` (openai), ``enable_thinking``
    (qwen), ``thinking: {"type": ...}`` (zai). Reasoning text comes back in
    ``reasoning_content`` or ``reasoning`` either way.
``requires_tool_result_name`` (bool)
    A ``tool`` message must carry the tool's ``name`` (Mistral).
``supports_strict_mode`` (bool)
    Tool definitions may say ``strict: true``.
``supports_null_content`` (bool)
    An assistant message with tool calls and no text carries ``"content": null`` (OpenAI's own
    form); when false it carries ``"content": ""``. llama-cpp-python's server rejects the null
    (HTTP 500, "Input should be a valid string"): that answer is recognised, the request sent
    again once with ``""``, and the flag is false for that server from then on
    (:func:`learn_rejected_null_content`).
``offer_confirm_request`` (bool)
    Tool schemas carry the ``confirm`` property the gate injects (a model's way to ask for a
    person). Set it false for a server that forces the model's arguments with a grammar built
    from the schema (llama-cpp-python's ``chatml-function-calling``): a small model fills every
    property it is shown, ``confirm: true`` included, and its plain reads become approvals
    nobody can answer headless (the embedded ``local`` model never sees it either).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, urlsplit

__all__ = [
    "COMPAT_FLAGS",
    "detect_compat",
    "learn_rejected_null_content",
    "refused_null_content",
]

COMPAT_FLAGS: dict[str, type | tuple[str, ...]] = {
    "supports_developer_role": bool,
    "supports_usage_in_streaming": bool,
    "max_tokens_field": ("max_completion_tokens", "max_tokens"),
    "supports_reasoning_effort": bool,
    "thinking_format": ("openai", "qwen", "zai"),
    "requires_tool_result_name": bool,
    "supports_strict_mode": bool,
    "supports_null_content": bool,
    "offer_confirm_request": bool,
}
"""Each flag's type: ``bool``, or the tuple of the strings it may be."""

_COMPATIBLE_SERVER: dict[str, Any] = {
    "supports_developer_role": False,
    "supports_usage_in_streaming": True,
    "max_tokens_field": "max_tokens",
    "supports_reasoning_effort": False,
    "thinking_format": "openai",
    "requires_tool_result_name": False,
    "supports_strict_mode": False,
    "supports_null_content": True,
    "offer_confirm_request": True,
}

_OPENAI: dict[str, Any] = {
    **_COMPATIBLE_SERVER,
    "supports_developer_role": True,
    "max_tokens_field": "max_completion_tokens",
    "supports_reasoning_effort": True,
    "supports_strict_mode": True,
}

_BY_HOST_SUFFIX: dict[str, dict[str, Any]] = {
    "api.openai.com": _OPENAI,
    "openai.azure.com": _OPENAI,
    "openrouter.ai": {**_COMPATIBLE_SERVER, "supports_reasoning_effort": True},
    "api.groq.com": {**_COMPATIBLE_SERVER, "supports_reasoning_effort": True},
    "generativelanguage.googleapis.com": {**_COMPATIBLE_SERVER, "supports_reasoning_effort": True},
    "api.deepseek.com": _COMPATIBLE_SERVER,
    "api.x.ai": _COMPATIBLE_SERVER,
    "api.mistral.ai": {
        **_COMPATIBLE_SERVER,
        "supports_usage_in_streaming": False,
        "requires_tool_result_name": True,
    },
    "dashscope.aliyuncs.com": {
        **_COMPATIBLE_SERVER,
        "supports_reasoning_effort": True,
        "thinking_format": "qwen",
    },
    "dashscope-intl.aliyuncs.com": {
        **_COMPATIBLE_SERVER,
        "supports_reasoning_effort": True,
        "thinking_format": "qwen",
    },
    "api.z.ai": {**_COMPATIBLE_SERVER, "supports_reasoning_effort": True, "thinking_format": "zai"},
    "open.bigmodel.cn": {
        **_COMPATIBLE_SERVER,
        "supports_reasoning_effort": True,
        "thinking_format": "zai",
    },
}

_OLLAMA_PORT = 11434
_OLLAMA: dict[str, Any] = {**_COMPATIBLE_SERVER, "supports_reasoning_effort": True}


_REFUSED_NULL_CONTENT: set[str] = set()
"""Servers (by ``base_url``) that rejected ``"content": null`` in this process."""


def learn_rejected_null_content(base_url: str | None) -> None:
    """The server at ``base_url`` refused ``"content": null``: send ``""`` from now on."""
    if base_url:
        _REFUSED_NULL_CONTENT.add(base_url)


def detect_compat(base_url: str | None) -> dict[str, Any]:
    """Every compat flag, as the server at ``base_url`` is known to need them.

    OpenAI itself (and Azure OpenAI) gets the full Chat Completions feature set; a known hosted
    server (OpenRouter, Groq, DeepSeek, xAI, Mistral, Gemini, Qwen, Z.ai) gets what it is known to
    take; Ollama (port 11434) takes ``reasoning_effort``; any other server — llama.cpp's, vLLM,
    LM Studio, a proxy — gets the conservative set: ``system`` role, ``max_tokens``, no
    reasoning level, no strict tools. ``None`` is OpenAI's own endpoint (the SDK's default). A
    server that refused ``"content": null`` in this process gets ``supports_null_content`` false.
    """
    if base_url is None:
        return dict(_OPENAI)
    if base_url in _REFUSED_NULL_CONTENT:
        return {**_detect(base_url), "supports_null_content": False}
    return _detect(base_url)


def refused_null_content(base_url: str | None) -> bool:
    """Whether the server at ``base_url`` refused ``"content": null`` in this process (which
    outweighs any setting: sending it again cannot succeed)."""
    return base_url in _REFUSED_NULL_CONTENT


def _detect(base_url: str) -> dict[str, Any]:
    parts = urlsplit(base_url if "://" in base_url else f"http://{base_url}")
    host = (parts.hostname or "").lower()
    for suffix, flags in _BY_HOST_SUFFIX.items():
        if host == suffix or host.endswith(f".{suffix}"):
            return dict(flags)
    if _port(parts) == _OLLAMA_PORT or host == "ollama.com" or host.endswith(".ollama.com"):
        return dict(_OLLAMA)
    return dict(_COMPATIBLE_SERVER)


def _port(parts: SplitResult) -> int | None:
    try:
        return parts.port
    except ValueError:  # not a number, or out of range: no known server
        return None
