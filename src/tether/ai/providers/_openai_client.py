"""The official ``AsyncOpenAI`` client as tether's OpenAI protocols use it; its failures as text.

The key always comes from :func:`~._keys.api_key_for` and is handed to the SDK explicitly, so
the SDK never falls back to ``OPENAI_API_KEY`` on its own and one server's key never reaches
another; a server that needs no key gets a placeholder (the SDK insists on one). Retries stay
the SDK's (429 and 5xx before the response starts, honouring ``Retry-After`` and
``retry-after-ms``), bounded by ``StreamOptions.max_retries``. :func:`openai_failure_text` and
:func:`error_payload_text` turn the SDK's exceptions and an error inside a 200 stream into an
``error_message`` that names the status and the server's own words, never the key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx2
import openai

from .._stream import StreamOptions
from .._types import Model
from ._errors import failure_text, provider_label, unexpected_failure_text
from ._keys import api_key_env
from ._wire import cached_client

__all__ = [
    "describe_openai_failure",
    "error_payload_text",
    "missing_key_text",
    "openai_client",
    "openai_failure_text",
    "rejects_null_content",
    "sent_null_content",
]

_NO_KEY = "no-key-needed"
_NULL_CONTENT_SENT = re.compile(rb'"content":\s*null')
_NULL_CONTENT_REFUSED = re.compile(
    r"content.{0,80}(Input should be a valid string|must be a string|must not be null"
    r"|may not be null|cannot be null)",
    re.IGNORECASE | re.DOTALL,
)


class _Client(openai.AsyncOpenAI):
    """The SDK's client, except that a 5xx answering a request that carries ``"content": null``
    comes back at once: it may be a server refusing the null (llama-cpp-python's 500), which
    the driver recognises and answers with ``""`` instead of three blind retries."""

    def _should_retry(self, response: httpx2.Response) -> bool:
        if response.status_code >= 500 and _NULL_CONTENT_SENT.search(_sent(response)):
            return False
        return super()._should_retry(response)


def _sent(response: httpx2.Response) -> bytes:
    try:
        return response.request.content
    except (httpx2.RequestNotRead, RuntimeError):  # a streamed upload: no body to look at
        return b""


def sent_null_content(exc: openai.APIStatusError) -> bool:
    """Whether the refused request carried a ``"content": null`` (which the SDK does not retry)."""
    return bool(_NULL_CONTENT_SENT.search(_sent(exc.response)))


def rejects_null_content(exc: openai.APIStatusError) -> bool:
    """Whether the server refused the request for a ``"content": null`` it carried."""
    if exc.status_code not in (400, 422, 500) or not sent_null_content(exc):
        return False
    message, _code = _message_and_code(exc.body)
    return bool(_NULL_CONTENT_REFUSED.search(message or exc.message))


def missing_key_text(model: Model, api_key: str | None) -> str | None:
    """Why the request cannot be sent without a key, or ``None`` when it can.

    A provider with a key variable (``OPENAI_API_KEY`` for OpenAI, ``api_key_env`` of a
    configured server) needs its key; a server configured without one needs none.
    """
    if api_key:
        return None
    variable = api_key_env(model.provider)
    if variable is None:
        return None
    return (
        f"No API key for {provider_label(model.provider)}: set the {variable} environment variable "
        "or pass StreamOptions(api_key=...)"
    )


def openai_client(model: Model, options: StreamOptions, api_key: str | None) -> openai.AsyncOpenAI:
    """The client for ``model.base_url``, the key, the retries and the model's and the
    request's headers — one per configuration and event loop, so turns reuse connections."""
    return cached_client(
        "openai",
        model,
        options,
        api_key,
        lambda headers: _Client(
            api_key=api_key or _NO_KEY,
            base_url=model.base_url or None,
            max_retries=options.max_retries,
            default_headers=headers or None,
        ),
    )


def openai_failure_text(provider: str, exc: BaseException, api_key: str | None) -> str:
    """``error_message`` for an exception the SDK raised (status, connection, timeout...)."""
    if isinstance(exc, openai.APIStatusError):
        message, code = _message_and_code(exc.body)
        # The SDK's own "Error code: 500" (a body with an empty message) only repeats the status.
        fallback = None if exc.message == f"Error code: {exc.status_code}" else exc.message
        return failure_text(
            provider,
            status=exc.status_code,
            kind=code,
            message=message or fallback,
            api_key=api_key,
        )
    if isinstance(exc, openai.APITimeoutError):
        return failure_text(provider, kind="timeout", message="the request timed out")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f"{exc.message} ({cause})" if cause is not None and str(cause) else exc.message
        return failure_text(provider, kind="connection error", message=detail, api_key=api_key)
    return failure_text(provider, message=f"{type(exc).__name__}: {exc}", api_key=api_key)


def describe_openai_failure(provider: str, api_key: str | None) -> Callable[[Exception], str]:
    """How the OpenAI protocols word an exception: the SDK's in its own terms
    (:func:`openai_failure_text`), any other as an unexpected failure."""

    def describe(exc: Exception) -> str:
        if isinstance(exc, openai.OpenAIError):
            return openai_failure_text(provider, exc, api_key)
        return unexpected_failure_text(provider, exc, api_key)

    return describe


def error_payload_text(provider: str, payload: Any, api_key: str | None) -> str:
    """``error_message`` for an error reported inside a 200 stream: an ``error`` event, a
    ``{"error": {...}}`` chunk, a failed response's ``error`` object."""
    message, code = _message_and_code(payload)
    return failure_text(
        provider, kind=code, message=message or "the server reported an error", api_key=api_key
    )


def _message_and_code(body: Any) -> tuple[str | None, str | None]:
    """The server's own message and error code from an error body, whatever its shape."""
    if isinstance(body, str):
        return body.strip() or None, None
    if not isinstance(body, dict):
        return None, None
    error = body.get("error")
    if isinstance(error, dict):
        body = error
    elif isinstance(error, str) and not body.get("message"):
        return error, None
    message = body.get("message")
    kind = body.get("type")
    code = body.get("code") or (kind if kind != "error" else None)
    return (
        message if isinstance(message, str) and message else None,
        str(code) if isinstance(code, str | int) and code != "" else None,
    )
