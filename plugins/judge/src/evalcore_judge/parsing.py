"""Reading scores out of a judge's answer without guessing.

A judge answers with JSON (``{"score": 4, "explanation": "..."}``, possibly inside a
code fence or surrounded by prose) or plain text (``Score: 4/5``, or just ``0.8``). A
named field is read only when exactly one value is given for it; anything else (no
number, two different numbers, a value outside the scale, an empty answer) raises
:class:`UnparseableJudgement` carrying the raw text. Values are normalised to [0, 1].
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore.plugin import EvalcoreError

SCALES: dict[str, tuple[float, float]] = {"0-1": (0.0, 1.0), "1-5": (1.0, 5.0), "0-10": (0.0, 10.0)}
_EXPLANATION_KEYS = ("explanation", "reasoning", "rationale", "feedback", "reason")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_BARE = re.compile(rf"^\s*({_NUMBER})\s*(?:/\s*({_NUMBER}))?\s*\.?\s*$")


class UnparseableJudgement(EvalcoreError, ValueError):
    """The judge's answer holds no unambiguous score; ``raw`` is the answer as received."""

    def __init__(self, reason: str, raw: str) -> None:
        self.reason = reason
        self.raw = raw
        super().__init__(f"{reason}; raw answer: {raw[:200]!r}")


@attrs.frozen
class Parsed:
    """Normalised values by field name, the values as written, and the explanation."""

    values: Mapping[str, float]
    raw_values: Mapping[str, float]
    explanation: str | None


def parse_judgement(text: str, fields: Sequence[str], scale: str = "0-1") -> Parsed:
    """Read ``fields`` from ``text`` on ``scale`` (a key of :data:`SCALES`) and normalise them."""
    low, high = SCALES[scale]
    if not text or not text.strip():
        raise UnparseableJudgement("the judge returned an empty answer", text or "")
    obj = _json_object(text)
    if obj is not None:
        raw_values = {name: _from_json(obj, name, text, high) for name in fields}
        explanation = next((str(v) for k, v in _lower(obj).items() if k in _EXPLANATION_KEYS and v), None)
    else:
        raw_values = {name: _from_text(text, name, len(fields) == 1, high) for name in fields}
        explanation = _text_explanation(text)
    values = {}
    for name, value in raw_values.items():
        if not low <= value <= high:
            raise UnparseableJudgement(f"{name} {value:g} is outside the scale {scale}", text)
        values[name] = (value - low) / (high - low)
    return Parsed(values, raw_values, explanation)


def _lower(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k).strip().lower(): v for k, v in obj.items()}


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (whole answer, fenced block, or embedded)."""
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", text)]:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _from_json(obj: Mapping[str, Any], name: str, text: str, high: float) -> float:
    value = _lower(obj).get(name.lower())
    if value is None:
        raise UnparseableJudgement(f"the judge's JSON has no {name!r}", text)
    if isinstance(value, bool):
        raise UnparseableJudgement(f"{name} is a boolean, not a number", text)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _BARE.match(value):
        return _fraction(_BARE.match(value), text, name, high)
    raise UnparseableJudgement(f"{name} is {value!r}, not a number", text)


def _from_text(text: str, name: str, only_field: bool, high: float) -> float:
    label = re.compile(
        rf"\b{re.escape(name)}\b\**\s*[:=]?\s*\**\s*({_NUMBER})(?:\s*/\s*({_NUMBER}))?", re.IGNORECASE
    )
    found = {_fraction(m, text, name, high) for m in label.finditer(text)}
    if len(found) == 1:
        return found.pop()
    if len(found) > 1:
        raise UnparseableJudgement(f"the answer gives several values for {name}: {sorted(found)}", text)
    bare = _BARE.match(text)
    if only_field and bare:
        return _fraction(bare, text, name, high)
    raise UnparseableJudgement(f"no value for {name} in the answer", text)


def _fraction(match: re.Match[str], text: str, name: str, high: float) -> float:
    """The number of a match; a written ``/ N`` must name the top of the scale."""
    if match.group(2) is not None and float(match.group(2)) != high:
        raise UnparseableJudgement(f"{name} is given out of {match.group(2)}, but the scale tops at {high:g}", text)
    return float(match.group(1))


def _text_explanation(text: str) -> str | None:
    match = re.search(r"\b(?:explanation|reasoning|rationale)\b\s*[:=]\s*(.+)", text, re.IGNORECASE | re.DOTALL)
    return match.group(1).strip() if match else None
