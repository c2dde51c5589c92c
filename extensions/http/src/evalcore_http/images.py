"""Images in chat requests: OpenAI-compatible image parts from paths, URLs and data URLs.

A record names an image by a local path (read and sent base64-encoded as a data URL, at most
``max_bytes``), an ``http(s)`` URL (sent as it is: the model's server fetches it) or a
``data:image/...;base64,...`` URL (sent as it is, after checking its size). Which strings are
images follows ragas' multimodal prompts: a data URL, a URL or path ending in an image extension.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from evalcore.plugin import InputError

__all__ = ["IMAGE_EXTENSIONS", "MAX_IMAGE_BYTES", "content_text", "image_part", "image_url", "is_image"]

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp")
"""File name endings read as images (ragas' list)."""
MAX_IMAGE_BYTES = 10 * 1024 * 1024
"""The largest image sent, in bytes (ragas' limit for downloads and local files)."""
_DATA_URL = re.compile(r"^data:(image/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$", re.IGNORECASE)


def is_image(value: Any) -> bool:
    """Whether ``value`` names an image: a data URL, or an http(s) URL or path with an image extension."""
    if not isinstance(value, str) or not value or "\n" in value:
        return False
    if value.startswith("data:"):
        return _DATA_URL.match(value) is not None
    parsed = urlparse(value)
    path = parsed.path if parsed.scheme in ("http", "https") else value
    return os.path.splitext(path)[1].lower() in IMAGE_EXTENSIONS


def image_url(value: str, *, max_bytes: int = MAX_IMAGE_BYTES, field: str | None = None) -> str:
    """The URL to send for the image ``value``: a local file as a data URL, an http(s) or data URL as
    it is. A missing file, an unknown kind or an image over ``max_bytes`` is an
    :class:`~evalcore.plugin.InputError` naming ``field`` and the image."""
    shown = value if len(value) <= 80 else value[:77] + "..."
    match = _DATA_URL.match(value) if value.startswith("data:") else None
    if value.startswith("data:"):
        if match is None:
            raise InputError(f"{shown!r} is not a base64 data URL of an image", field=field)
        try:
            size = len(base64.b64decode(match.group(2), validate=False))
        except (binascii.Error, ValueError):
            raise InputError(f"{shown!r}: the data URL's base64 does not decode", field=field) from None
        _check_size(size, max_bytes, shown, field)
        return value
    if urlparse(value).scheme in ("http", "https"):
        return value
    path = Path(value)
    if not path.is_file():
        raise InputError(f"image {shown!r} not found (a path, an http(s) URL or a data: URL)", field=field)
    _check_size(path.stat().st_size, max_bytes, shown, field)
    mime = mimetypes.guess_type(path.name)[0]
    if not mime or not mime.startswith("image/"):
        raise InputError(f"image {shown!r}: not an image file ({', '.join(IMAGE_EXTENSIONS)})", field=field)
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _check_size(size: int, max_bytes: int, shown: str, field: str | None) -> None:
    if size > max_bytes:
        raise InputError(f"image {shown!r} is {size} bytes, over the limit of {max_bytes}", field=field)


def image_part(value: str, *, max_bytes: int = MAX_IMAGE_BYTES, field: str | None = None) -> dict[str, Any]:
    """The OpenAI-compatible content part of the image ``value``:
    ``{"type": "image_url", "image_url": {"url": ...}}`` (see :func:`image_url`)."""
    return {"type": "image_url", "image_url": {"url": image_url(value, max_bytes=max_bytes, field=field)}}


def content_text(content: str | Sequence[Mapping[str, Any]] | None) -> str:
    """The text of a chat message's content: the string, or the text parts of a list of parts
    joined (image parts left out)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content if part.get("type") == "text")
