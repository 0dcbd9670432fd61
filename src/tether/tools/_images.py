"""Images for the read tool: recognise them by their first bytes, fit them to what a model takes.

A file is an image when its magic bytes say so, whatever its name: a PNG saved as ``notes.txt``
is still a PNG, and a text file called ``logo.png`` is still text. Models accept images up to a
bounded size, so an image larger than ``max_side`` pixels on either side is scaled down (aspect
ratio kept) and re-encoded in its own format when Pillow can write it, else as PNG. An animated
GIF or WebP keeps only its first frame when it has to be re-encoded.

Decoding and encoding are CPU work, not I/O: :func:`prepare_image` is synchronous and the read
tool runs it in a worker thread.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

__all__ = [
    "IMAGE_MAX_BYTES",
    "IMAGE_MAX_SIDE",
    "ImageDecodeError",
    "PreparedImage",
    "detect_image_mime_type",
    "prepare_image",
]

IMAGE_MAX_SIDE = 2000
IMAGE_MAX_BYTES = 4_500_000
"""Encoded size a model provider reliably accepts (the strictest common limit is 5 MB)."""

_PIL_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}
_SHRINK_STEP = 0.75
_SMALLEST_SIDE = 64


class ImageDecodeError(Exception):
    """The bytes start like an image but Pillow cannot decode them."""


@dataclass(frozen=True, slots=True)
class PreparedImage:
    """An image ready for a model, with the size it had on disk and the size it is sent at."""

    data: bytes
    mime_type: str
    original_width: int
    original_height: int
    width: int
    height: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)


def detect_image_mime_type(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP from the file's first bytes, else ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def prepare_image(
    data: bytes,
    mime_type: str,
    *,
    max_side: int = IMAGE_MAX_SIDE,
    max_bytes: int = IMAGE_MAX_BYTES,
    resize: bool = True,
) -> PreparedImage:
    """Decode ``data``; scale it down to ``max_side`` per side and ``max_bytes`` when needed.

    An image already within both bounds (or any image when ``resize`` is false) is returned with
    its original bytes untouched. Raises :class:`ImageDecodeError` when Pillow cannot decode it.
    """
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            width, height = image.size
            if not resize or (max(width, height) <= max_side and len(data) <= max_bytes):
                return PreparedImage(data, mime_type, width, height, width, height)
            return _shrink(image, mime_type, max_side, max_bytes)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageDecodeError(str(exc) or type(exc).__name__) from exc


def _shrink(image: Image.Image, mime_type: str, max_side: int, max_bytes: int) -> PreparedImage:
    """Scale to ``max_side``, then keep shrinking by a quarter while the encoding is too big."""
    original_width, original_height = image.size
    if image.mode == "P":
        image = image.convert("RGBA")
    scale = min(1.0, max_side / max(original_width, original_height))
    while True:
        width = max(1, round(original_width * scale))
        height = max(1, round(original_height * scale))
        resized = image.resize((width, height), Image.Resampling.LANCZOS)
        encoded, encoded_type = _encode(resized, mime_type)
        if len(encoded) <= max_bytes or max(width, height) <= _SMALLEST_SIDE:
            return PreparedImage(
                encoded, encoded_type, original_width, original_height, width, height
            )
        scale *= _SHRINK_STEP


def _encode(image: Image.Image, mime_type: str) -> tuple[bytes, str]:
    """Encode in the original format when Pillow can write it (JPEG needs RGB), else as PNG."""
    target = _PIL_FORMATS.get(mime_type)
    if target is not None:
        candidate = image.convert("RGB") if target == "JPEG" and image.mode != "RGB" else image
        options = {"quality": 85} if target in {"JPEG", "WEBP"} else {}
        buffer = io.BytesIO()
        try:
            candidate.save(buffer, format=target, **options)
        except (OSError, KeyError, ValueError):
            pass
        else:
            return buffer.getvalue(), mime_type
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue(), "image/png"
