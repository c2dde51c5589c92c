"""``checks/accuracy_score``: exact (deep / normalised) equality or token-set Jaccard (benchmark engine)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score
from evalcore_text import collapse_whitespace, jaccard, whitespace_tokens

from ._inputs import expectations, field_value

_STRUCTURES = (Mapping, list, tuple)


def deep_equal(a: Any, b: Any, *, ignore_case: bool = False) -> bool:
    """JSON-style deep equality: ``true`` is not ``1``, dict key order does not matter.

    With ``ignore_case`` strings (values, not keys) are compared case-folded.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(
            deep_equal(a[k], b[k], ignore_case=ignore_case) for k in a
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            deep_equal(x, y, ignore_case=ignore_case) for x, y in zip(a, b)
        )
    if isinstance(a, str) and isinstance(b, str) and ignore_case:
        return a.casefold() == b.casefold()
    if isinstance(a, _STRUCTURES) or isinstance(b, _STRUCTURES):
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def scalar_text(value: Any, *, ignore_case: bool) -> str:
    """A scalar as normalised text: whitespace collapsed, optionally case-folded."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    text = collapse_whitespace(text)
    return text.casefold() if ignore_case else text


def _as_structure(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def exact_match(actual: Any, expected: Any, *, ignore_case: bool) -> bool:
    """Deep equality when either side is structured (a JSON string is parsed), else normalised text."""
    if isinstance(actual, _STRUCTURES) or isinstance(expected, _STRUCTURES):
        return deep_equal(_as_structure(actual), _as_structure(expected), ignore_case=ignore_case)
    return scalar_text(actual, ignore_case=ignore_case) == \
        scalar_text(expected, ignore_case=ignore_case)


def token_jaccard(actual: Any, expected: Any, *, ignore_case: bool) -> float:
    """Jaccard overlap of the whitespace-token sets of two scalars."""
    for role, value in (("prediction", actual), ("expected", expected)):
        if isinstance(value, _STRUCTURES):
            raise InputError(f"overlap mode compares text, got {type(value).__name__}", field=role)
    return jaccard(
        whitespace_tokens(scalar_text(actual, ignore_case=False), lowercase=ignore_case),
        whitespace_tokens(scalar_text(expected, ignore_case=False), lowercase=ignore_case),
    )


class AccuracyScore(SampleMetric):
    """Best match of the value at ``field`` against the expected output(s)."""

    def score(self, example: Record, prediction: Record) -> Score:
        actual = field_value(prediction, self.params["field"])
        expected = expectations(example, self.params["expected_output"], self.params["expected_field"])
        mode, folded = self.params["mode"], self.params["ignore_case"]
        if mode == "exact":
            value = max(float(exact_match(actual, e, ignore_case=folded)) for e in expected)
        else:
            value = max(token_jaccard(actual, e, ignore_case=folded) for e in expected)
        return Score(value, details={"accuracy": value, "mode": mode})
