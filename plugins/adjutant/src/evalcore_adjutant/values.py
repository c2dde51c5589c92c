"""Lenient readers of model-output fields, as Adjutant's checks read them.

A field may hold a JSON value or a string of JSON; a number may be written as a string.
Each reader returns ``(ok, reason)`` so a failed check can say why.
"""

from __future__ import annotations

import json
import math
from typing import Any

Check = tuple[bool, str | None]


def parse_json(value: Any) -> tuple[Any, str | None]:
    """The value, parsed when it is a string; ``(None, reason)`` when it is not valid JSON."""
    if not isinstance(value, str):
        return value, None
    try:
        return json.loads(value), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        return None, "not valid JSON: nested too deeply"


def json_array(value: Any, field: str) -> tuple[list[Any] | None, str | None]:
    """A JSON array (a list, or a string holding one)."""
    if value is None:
        return None, f"{field} is missing"
    parsed, error = parse_json(value)
    if error:
        return None, f"{field} is {error}"
    if not isinstance(parsed, list):
        return None, f"{field} is not a JSON array"
    return parsed, None


def substantive(value: Any, field: str, min_chars: int) -> Check:
    """A string of at least ``min_chars`` characters (code points, as the Adjutant document
    says "15+ chars"; not UTF-8 bytes)."""
    if not isinstance(value, str):
        return False, f"{field} is missing or not text"
    if len(value) < min_chars:
        return False, f"{field} is shorter than {min_chars} characters"
    return True, None


def boolean(value: Any, field: str) -> Check:
    """A boolean, or the string true/false in any case."""
    if isinstance(value, bool) or (isinstance(value, str) and value.lower() in {"true", "false"}):
        return True, None
    return False, f"{field} is not a boolean"


def unit_interval(value: Any, field: str) -> Check:
    """A number in 0..1 (a numeric string counts; NaN does not)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False, f"{field} is not a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False, f"{field} is missing or not a number"
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        return False, f"{field} = {value!r} is outside 0..1"
    return True, None
