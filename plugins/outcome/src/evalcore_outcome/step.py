"""Composite step scores: the dsrs ``outcome_coupled`` and Adjutant's ``step_score``."""

from __future__ import annotations

import math

from evalcore.plugin import Record, SampleMetric, Score

from . import labels


class OutcomeCoupled(SampleMetric):
    """0.4·(utility+1)/2 + 0.3·not-repeated + 0.2·verification(1/0.5/0) + 0.1·params-valid."""

    def score(self, example: Record, prediction: Record) -> Score:
        p = self.params
        utility = labels.step_utility(prediction)
        repeated = labels.flag(prediction, "was_repeated")
        sign, delta = labels.improvement(prediction, p["verification_counts"])
        params_valid = labels.flag(prediction, "params_valid")
        parts = {
            "utility": (utility + 1.0) / 2.0,
            "repetition": 0.0 if repeated else 1.0,
            "verification": {1: 1.0, 0: 0.5, -1: 0.0}[sign],
            "schema": 1.0 if params_valid else 0.0,
        }
        weights = {
            "utility": p["utility_weight"], "repetition": p["repetition_weight"],
            "verification": p["verification_weight"], "schema": p["schema_weight"],
        }
        value = math.fsum(weights[k] * parts[k] for k in parts)
        return Score(value, details={"components": parts, "weights": weights, "verification_delta": delta})


class StepScore(SampleMetric):
    """utility·0.4 + 0.3 if tests improved − 0.2 if repeated − min(tokens/10000, 0.1)."""

    def score(self, example: Record, prediction: Record) -> Score:
        p = self.params
        utility = labels.step_utility(prediction)
        sign, delta = labels.improvement(prediction, p["verification_counts"])
        repeated = labels.flag(prediction, "was_repeated")
        tokens = labels.count(prediction, "cost_tokens", minimum=0)
        parts = {
            "utility": utility * p["utility_weight"],
            "improvement": p["improvement_bonus"] if sign > 0 else 0.0,
            "repetition": -p["repetition_penalty"] if repeated else 0.0,
            "cost": -min(tokens / p["tokens_per_penalty_unit"], p["cost_penalty_cap"]),
        }
        return Score(math.fsum(parts.values()), details={"components": parts, "verification_delta": delta})
