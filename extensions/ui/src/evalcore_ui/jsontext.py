"""JSON in and out: journal lines read as the engine reads them; answers that any string survives.

Answers are ASCII JSON, so a lone surrogate in a record travels as its ``\\u`` escape and the page
shows it as text; a non-finite number becomes ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

__all__ = ["dumps", "loads"]


def loads(data: bytes | str) -> Any:
    """One JSON value; lone surrogate escapes and ``NaN`` as Python's json reads them.
    Raises ``ValueError`` for text that is not JSON."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        try:
            return json.loads(data)
        except RecursionError:
            raise ValueError("nested too deeply to read") from None


def dumps(value: Any) -> bytes:
    """``value`` as ASCII JSON (non-finite numbers as ``null``, other objects as text)."""
    return json.dumps(_finite(value), ensure_ascii=True, allow_nan=False, default=str,
                      separators=(",", ":")).encode("ascii")


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
