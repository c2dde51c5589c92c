"""``checks/policy_compliance``: no policy violations reported (the benchmark engine's registry)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score

from ._inputs import field_value


def violation_count(value: Any, field: str) -> int:
    """The number of violations from an int, a list of violations, or ``{"count": n}``."""
    if isinstance(value, Mapping):
        if "count" not in value:
            raise InputError("a mapping of violations needs a 'count'", field=field)
        return violation_count(value["count"], f"{field}.count")
    if isinstance(value, bool) or not isinstance(value, (int, float, Sequence)) or isinstance(value, str):
        raise InputError(f"expected an int, a list or {{'count': n}}; got {value!r:.60}", field=field)
    if isinstance(value, Sequence):
        return len(value)
    if value < 0 or value != int(value):
        raise InputError(f"a violation count must be a whole number >= 0; got {value!r}", field=field)
    return int(value)


class PolicyCompliance(SampleMetric):
    """1.0 when the prediction reports zero policy violations, else 0.0."""

    def score(self, example: Record, prediction: Record) -> Score:
        path = self.params["field"]
        count = violation_count(field_value(prediction, path), f"prediction.{path}")
        compliant = count == 0
        feedback = "compliant" if compliant else f"{count} policy violation(s)"
        return Score(float(compliant), feedback=feedback,
                     details={"policy_violations": count, "compliant": compliant})
