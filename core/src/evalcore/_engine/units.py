"""Units: one prediction to score (a record's example and one rollout's prediction)."""

from __future__ import annotations

from typing import Any

import attrs

from .._result import Score


@attrs.define(slots=True)
class Unit:
    """The example, the prediction and everything scored on it so far.

    ``view`` is what metrics receive as the prediction: the prediction's fields plus
    ``"metrics"``, the values of the metrics scored before (by canonical id, and by bare
    name where that is unambiguous).
    """

    example: dict[str, Any]
    prediction: dict[str, Any] | None
    program_error: Score | None = None
    scores: dict[str, Score] = attrs.field(factory=dict)
    states: dict[str, Any] = attrs.field(factory=dict)
    values: dict[str, float] = attrs.field(factory=dict)
    gate_closed: Score | None = None
    """Why truth metrics are skipped on this unit (the threshold gate is closed), if they are."""
    view: dict[str, Any] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.view = {**(self.prediction or {}), "metrics": self.values}

    def store(self, metric_id: str, alias: str | None, score: Score) -> None:
        self.scores[metric_id] = score
        if score.ok and score.value is not None:
            self.values[metric_id] = score.value
            if alias is not None:
                self.values[alias] = score.value
