"""One-colour PNG images for the judge's image tests, and the colour of an image sent as a data URL."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

PIL = pytest.importorskip("PIL.Image")
COLOURS = {"red": (255, 0, 0), "blue": (0, 0, 255), "green": (0, 128, 0)}


def write_images(folder: Path) -> dict[str, str]:
    """A 4×4 PNG file of each colour in ``folder``: colour name -> path."""
    paths = {}
    for name, rgb in COLOURS.items():
        path = folder / f"{name}.png"
        PIL.new("RGB", (4, 4), rgb).save(path)
        paths[name] = str(path)
    return paths


def colour_of(url: str) -> str:
    """The colour name of the image in the data URL ``url``."""
    pixel = PIL.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB").getpixel((0, 0))
    return next(name for name, rgb in COLOURS.items() if rgb == pixel)
