"""Units: the predictions of one chunk to score, kept metric by metric (no object per sample)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalcore._contract.scores import Score, Status


class Units:
    """The examples and predictions of one chunk and everything scored on them so far.

    Unit ``u`` is rollout ``u % rollouts`` of record ``u // rollouts``. ``views`` are what
    metrics receive as predictions: each prediction itself (the units own them: readers
    give each record its own dicts) with ``"metrics"`` set to the values of the metrics
    scored before (by canonical id, and by bare name where that is unambiguous), after the
    record's own ``metrics``. ``scores`` and ``states`` hold, per metric id, one entry per
    unit; ``program_errors`` (where a program failed) and ``gate_closed`` (why truth metrics
    are skipped, where the threshold gate is closed) are per unit, or ``None`` when no unit
    has one.
    """

    __slots__ = ("examples", "views", "values", "rollouts", "program_errors", "gate_closed", "scores", "states")

    def __init__(self, examples: Sequence[dict[str, Any]], predictions: Sequence[dict[str, Any] | None],
                 rollouts: int = 1, program_errors: list[Score | None] | None = None) -> None:
        self.examples = examples
        self.rollouts = rollouts
        self.program_errors = program_errors
        self.gate_closed: list[Score | None] | None = None
        self.scores: dict[str, list[Score]] = {}
        self.states: dict[str, list[Any]] = {}
        self.views = [{} if prediction is None else prediction for prediction in predictions]
        # the record's own metrics (e.g. a quality score it carries), then the ones scored here
        self.values = [dict(own) if isinstance(own := view.get("metrics"), dict) else {} for view in self.views]
        for view, values in zip(self.views, self.values):
            view["metrics"] = values

    def __len__(self) -> int:
        return len(self.views)

    def blocked(self, truth: bool) -> list[Score | None] | None:
        """Per unit, why a metric (a truth metric if ``truth``) cannot run on it: the program
        failed, or the gate is closed; ``None`` when every unit is ready."""
        gate = self.gate_closed if truth else None
        if self.program_errors is None:
            return gate
        if gate is None:
            return self.program_errors
        return [error if error is not None else closed for error, closed in zip(self.program_errors, gate)]

    def store(self, metric_id: str, alias: str | None, scores: list[Score]) -> None:
        """Keep a metric's score of every unit; its values become visible to later metrics."""
        self.scores[metric_id] = scores
        ok = Status.OK
        for values, score in zip(self.values, scores):
            if score.status is ok and score.value is not None:
                values[metric_id] = score.value
                if alias is not None:
                    values[alias] = score.value

    def of_record(self, metric_id: str, record: int) -> list[Score]:
        """A metric's scores of the rollouts of one record."""
        start = record * self.rollouts
        return self.scores[metric_id][start:start + self.rollouts]
