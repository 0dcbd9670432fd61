"""What a failed request tells the person: specific, never an exception, never a key.

Providers turn every failure into an ``error_message``: the HTTP status with the provider's own
words, a protocol fault, or a dropped connection. :func:`failure_text` builds that text,
:func:`is_context_overflow` recognises the many ways servers say the prompt is too long (such an
error is reported as such and never retried), and :func:`scrub_secrets` removes the API key and
anything shaped like one.
"""

from __future__ import annotations

import re

__all__ = [
    "CONTEXT_OVERFLOW_NOTE",
    "dropped_stream_text",
    "failure_text",
    "is_context_overflow",
    "is_retryable_status",
    "provider_label",
    "retry_delay",
    "scrub_secrets",
    "unexpected_failure_text",
]

CONTEXT_OVERFLOW_NOTE = "The context is too long for this model"

_LABELS = {"anthropic": "Anthropic", "openai": "OpenAI"}

_OVERFLOW = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long"
    r"|too many (input )?tokens|input is too long|exceeds the (model'?s? )?context"
    r"|reduce the length of the messages|request too large for model|string too long"
    r"|context size|exceed(s|ed)? .*(context|token limit)|exceed_context_size_error",
    re.IGNORECASE,
)
_KEY_SHAPES = re.compile(
    r"\b(sk-(?:ant-)?[A-Za-z0-9_\-]{8,}|xai-[A-Za-z0-9]{8,}|gsk_[A-Za-z0-9]{8,}|AIza[0-9A-Za-z_\-]{20,})"
)
_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})


def scrub_secrets(text: str, api_key: str | None = None) -> str:
    """``text`` with ``api_key`` and key-shaped tokens replaced by ``[redacted]``."""
    if api_key and len(api_key) >= 4:
        text = text.replace(api_key, "[redacted]")
    return _KEY_SHAPES.sub("[redacted]", text)


def is_context_overflow(text: str) -> bool:
    """Whether a provider's error text says the prompt does not fit the context window."""
    return bool(_OVERFLOW.search(text))


def is_retryable_status(status: int) -> bool:
    """429, 408/409 and 5xx (incl. Anthropic's 529 overloaded) are worth another try."""
    return status in _RETRYABLE_STATUS or status >= 500


def retry_delay(attempt: int, retry_after: str | None = None, *, cap: float = 60.0) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): ``Retry-After`` when given (seconds),
    else exponential backoff from half a second, never more than ``cap``."""
    if retry_after:
        try:
            return float(min(max(float(retry_after), 0.0), cap))
        except ValueError:
            pass
    return float(min(0.5 * 2 ** (attempt - 1), cap))


def provider_label(provider: str) -> str:
    """How errors name a provider: the built-in ones by their vendor's name, every configured
    one by the name ``models.toml`` gave it (``litellm-anth``, ``ollama``)."""
    return _LABELS.get(provider, provider)


def dropped_stream_text(exc: BaseException) -> str:
    """The one wording, for every protocol, of a connection lost after the response began."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"the connection dropped mid-stream ({detail})"


def failure_text(
    provider: str,
    *,
    status: int | None = None,
    message: str | None = None,
    kind: str | None = None,
    api_key: str | None = None,
) -> str:
    """One line for ``error_message``: who failed, the status, and the provider's own message.

    ``provider`` is named by :func:`provider_label`; a ``kind`` that only repeats the status
    (llama.cpp's ``"code": 400``) is left out. A context overflow leads with
    :data:`CONTEXT_OVERFLOW_NOTE` so no one has to decode it.
    """
    parts = [provider_label(provider)]
    if status is not None:
        parts.append(f"HTTP {status}")
    if kind and kind != str(status):
        parts.append(kind)
    head = " ".join(parts)
    detail = (message or "").strip() or "no further detail"
    text = f"{head}: {detail}"
    if is_context_overflow(detail):
        text = f"{CONTEXT_OVERFLOW_NOTE} ({text})"
    return scrub_secrets(text, api_key)


def unexpected_failure_text(provider: str, exc: BaseException, api_key: str | None = None) -> str:
    """A failure no protocol foresaw (a bug, an SDK surprise), named by its type."""
    return failure_text(
        provider, kind="unexpected failure", message=f"{type(exc).__name__}: {exc}", api_key=api_key
    )
