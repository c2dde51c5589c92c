"""``cost_efficiency``: score per unit of cost (the benchmark engine's registry)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalcore import ParameterError
from evalcore.plugin import InputError, Record, SampleMetric, Score, Status, get_path

_MISSING = object()
_TOKEN_PAIRS = (("prompt_tokens", "completion_tokens"), ("input_tokens", "output_tokens"))


def _number(value: Any, field: str) -> float:
    if isinstance(value, Mapping):
        value = value.get("value", value.get("score"))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"expected a finite number, got {value!r:.40}", field=field)
    return float(value)


def token_count(usage: Any) -> float | None:
    """Tokens used: ``total_tokens``, else prompt + completion, else input + output; ``None`` if absent."""
    if not isinstance(usage, Mapping):
        return None
    if usage.get("total_tokens") is not None:
        return _number(usage["total_tokens"], "prediction.usage.total_tokens")
    for first, second in _TOKEN_PAIRS:
        if usage.get(first) is not None or usage.get(second) is not None:
            return sum(_number(usage.get(k) or 0, f"prediction.usage.{k}") for k in (first, second))
    return None


def _not_supported(reason: str, message: str) -> Score:
    return Score(None, Status.SKIPPED, reason=f"not supported: {reason} ({message})",
                 details={"supported": False, "efficiency": None, "reason": reason})


class CostEfficiency(SampleMetric):
    """``score / cost``; cost from ``cost_field`` or from tokens × ``token_to_cost_rate``."""

    def setup(self) -> None:
        if self.params["score_value"] is None and self.params["score_field"] is None:
            raise ParameterError(f"{self.spec.key} needs score_value or score_field")

    def _score(self, prediction: Record) -> float | None:
        if self.params["score_value"] is not None:
            return self.params["score_value"]
        path = self.params["score_field"]
        raw = get_path(prediction, path, None)
        return None if raw is None else _number(raw, f"prediction.{path}")

    def _cost(self, prediction: Record) -> tuple[float, str] | None:
        path = self.params["cost_field"]
        raw = get_path(prediction, path, None)
        if raw is not None:
            return _number(raw, f"prediction.{path}"), path
        tokens = token_count(prediction.get("usage"))
        if tokens is None:
            return None
        return tokens * self.params["token_to_cost_rate"], "usage tokens"

    def score(self, example: Record, prediction: Record) -> Score:
        value = self._score(prediction)
        if value is None:
            return _not_supported("missing_score", f"prediction.{self.params['score_field']} is missing")
        found = self._cost(prediction)
        if found is None:
            where = f"prediction.{self.params['cost_field']}"
            return _not_supported("missing_usage", f"no {where} and no token counts in prediction.usage")
        cost, source = found
        if cost < 0:
            raise InputError(f"a cost must be >= 0; got {cost!r}", field=source)
        if cost == 0:
            return _not_supported("zero_cost", "the cost is 0, so score per cost is undefined")
        efficiency = value / cost
        return Score(efficiency, details={
            "supported": True, "efficiency": efficiency, "reason": None, "score": value,
            "cost": cost, "cost_source": source,
        })
