"""Units: one prediction to score (a record's example and one rollout's prediction)."""

from __future__ import annotations

from typing import Any

from .._result import Score, Status


class Unit:
    """The example, the prediction and everything scored on it so far.

    ``view`` is what metrics receive as the prediction: the prediction itself (which the
    unit owns: readers give each record its own dicts) with ``"metrics"`` set to the
    values of the metrics scored before (by canonical id, and by bare name where that is
    unambiguous). ``gate_closed`` says why truth metrics are skipped
    on this unit (the threshold gate is closed), if they are.
    """

    __slots__ = ("example", "prediction", "program_error", "scores", "states", "values", "gate_closed", "view")

    def __init__(self, example: dict[str, Any], prediction: dict[str, Any] | None,
                 program_error: Score | None = None) -> None:
        self.example = example
        self.prediction = prediction
        self.program_error = program_error
        self.scores: dict[str, Score] = {}
        self.states: dict[str, Any] | None = None  # corpus states, made on first use
        own = prediction.get("metrics") if prediction else None
        # the record's own metrics (e.g. a quality score it carries), then the ones scored here
        self.values: dict[str, Any] = dict(own) if isinstance(own, dict) else {}
        self.gate_closed: Score | None = None
        if prediction is None:
            prediction = {}
        prediction["metrics"] = self.values  # the unit owns its prediction dict
        self.view = prediction

    def store(self, metric_id: str, alias: str | None, score: Score) -> None:
        self.scores[metric_id] = score
        if score.status is Status.OK and score.value is not None:
            self.values[metric_id] = score.value
            if alias is not None:
                self.values[alias] = score.value
