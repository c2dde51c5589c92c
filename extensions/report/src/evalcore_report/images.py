"""A record's images in the report: ``example.images`` (paths, URLs, data URLs) and the image parts
of its conversation turns, shown inline.

The page's Content-Security-Policy allows images from ``data:`` URLs only (``img-src data:``), so
the page stays one file that loads nothing: a raster data URL (PNG, JPEG, GIF, WebP) is shown as it
is, a local file of such a kind is read into one (at most :data:`MAX_EMBEDDED_BYTES`), and anything
else (an http(s) URL, SVG, a file that is missing or too large) is named as text with the reason.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from collections.abc import Iterator, Mapping
from html import escape
from pathlib import Path
from typing import Any

from evalcore import Record

MAX_EMBEDDED_BYTES = 2 * 1024 * 1024
"""The largest image file embedded in the page."""
_RASTER = ("image/png", "image/jpeg", "image/gif", "image/webp")
_DATA_URL = re.compile(r"^data:(image/[a-z0-9.+-]+);base64,[A-Za-z0-9+/=]+$", re.IGNORECASE)


def references(record: Record) -> Iterator[str]:
    """The images a record names: ``example.images`` (one or a list), then in ``example.turns`` and
    ``prediction.turns`` each turn's ``images`` and the ``image_url`` parts of its content."""
    yield from _named(record.example.get("images"))
    for side in (record.example, record.prediction):
        turns = side.get("turns")
        for turn in turns if isinstance(turns, list) else []:
            if isinstance(turn, Mapping):
                yield from _named(turn.get("images"))
            content = turn.get("content") if isinstance(turn, Mapping) else None
            for part in content if isinstance(content, list) else []:
                url = (part.get("image_url") or {}) if isinstance(part, Mapping) else {}
                url = url.get("url") if isinstance(url, Mapping) else url
                if isinstance(url, str):
                    yield url


def _named(images: Any) -> Iterator[str]:
    """The references of an ``images`` value: one string or a list of them."""
    for image in [images] if isinstance(images, str) else images if isinstance(images, list) else []:
        if isinstance(image, str):
            yield image


def embedded(reference: str) -> tuple[str | None, str]:
    """``(data URL, "")`` for an image the page can show, else ``(None, why not)``."""
    match = _DATA_URL.match(reference) if reference.startswith("data:") else None
    if reference.startswith("data:"):
        if match is None or match.group(1).lower() not in _RASTER:
            return None, "not a PNG, JPEG, GIF or WebP data URL"
        return reference, ""
    if reference.startswith(("http://", "https://")):
        return None, "a URL: the report loads nothing from outside the page"
    path = Path(reference)
    mime = mimetypes.guess_type(path.name)[0]
    if mime not in _RASTER:
        return None, "not a PNG, JPEG, GIF or WebP file"
    try:
        size = path.stat().st_size
        if size > MAX_EMBEDDED_BYTES:
            return None, f"{size} bytes, over the {MAX_EMBEDDED_BYTES} embedded at most"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", ""


def images_section(record: Record) -> str:
    """The record's images as HTML (empty when it names none); every value escaped."""
    items = []
    for reference in references(record):
        shown = reference if len(reference) <= 120 else reference[:117] + "..."
        url, why = embedded(reference)
        if url is not None:
            items.append(f"<figure><img src=\"{escape(url)}\" alt=\"{escape(shown)}\">"
                         f"<figcaption>{escape(shown)}</figcaption></figure>")
        else:
            items.append(f"<p class=\"muted\">image {escape(shown)}: {escape(why)}</p>")
    return f"<h4>Images</h4><div class=\"images\">{''.join(items)}</div>" if items else ""
