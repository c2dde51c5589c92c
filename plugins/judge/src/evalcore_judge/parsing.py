"""Reading scores out of a judge's answer without guessing.

:func:`read_answer` reads an answer into its pydantic model (:mod:`evalcore_judge.schemas`)
and validates it; :func:`parse_judgement` reads named fields into numbers. A judge answers
with JSON (``{"score": 4, "explanation": "..."}``, possibly inside a code fence or
surrounded by prose) or plain text (``Score: 4/5``, or just ``0.8``). A named field is read
only when exactly one value is given for it; anything else (no number, two different
numbers, a value outside the scale, an empty answer) raises :class:`UnparseableJudgement`
carrying the raw text. Values are normalised to [0, 1].
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore.plugin import EvalcoreError
from pydantic import ValidationError

from .schemas import SCALES, JudgeAnswer

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


def read_answer(text: str, model: type[JudgeAnswer]) -> JudgeAnswer:
    """``text`` read into ``model`` and validated.

    The answer is the first JSON object in ``text`` (the whole answer, a fenced block, or one
    embedded in prose), its keys matched case-insensitively, a rationale under another usual
    name (``reasoning``, ``rationale`` ...) taken as the model's, a number written as text
    (``"4"``, ``"4/5"`` on a 1-5 scale) read as that number; without JSON, labelled values
    (``Score: 4/5``) or, for a one-score answer, a bare number. Then the model checks every
    field: a missing score, a value that is not a finite number, one outside the scale all
    raise :class:`UnparseableJudgement` with the reason and the raw text.
    """
    if not text or not text.strip():
        raise UnparseableJudgement("the judge returned an empty answer", text or "")
    high = SCALES[model.score_scale][1]
    obj = _json_object(text)
    if obj is not None:
        data = _fields_from_json(_lower(obj), model, text, high)
    else:
        scores = model.score_fields
        data = {name: _from_text(text, name, len(scores) == 1, high) for name in scores}
        explanation = _text_explanation(text)
        if explanation:
            data[model.rationale_field] = explanation
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UnparseableJudgement(describe_errors(exc), text) from None


def describe_errors(exc: ValidationError) -> str:
    """A validation error in one line: ``field: problem (got value)`` for each problem."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "answer"
        got = "" if error["type"] == "missing" else f" (got {error['input']!r})"
        parts.append(f"{where}: {error['msg'].lower()}{got}")
    return "; ".join(parts)


def _fields_from_json(obj: Mapping[str, Any], model: type[JudgeAnswer], text: str, high: float) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name in model.model_fields:
        key = name.lower()
        if key in obj:
            value = obj[key]
        elif name == model.rationale_field:
            value = next((obj[k] for k in _EXPLANATION_KEYS if obj.get(k)), None)
        else:
            continue
        if name in model.score_fields:
            if isinstance(value, str) and _BARE.match(value):
                value = _fraction(_BARE.match(value), text, name, high)
        elif value is None:
            continue
        elif not isinstance(value, str) and model.model_fields[name].annotation is str:
            value = json.dumps(value, ensure_ascii=False)
        data[name] = value
    return data


def _lower(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k).strip().lower(): v for k, v in obj.items()}


_DECODER = json.JSONDecoder()


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (whole answer, fenced block, or embedded)."""
    start = text.find("{")
    while start >= 0:
        try:
            obj, _ = _DECODER.raw_decode(text, start)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return obj
        start = text.find("{", start + 1)
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
