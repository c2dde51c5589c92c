"""The tiered scorer (dsrs): proxy metrics first, truth metrics behind a threshold,
program rollouts, and a budget shared by every call made through one scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._budget import Budget
from ._engine.plan import MetricLike
from ._evaluate import EvaluationResult, evaluate
from ._metric import FeedbackScore
from ._stats import AggregateMethod


class Scorer:
    """Scores examples with a fixed metric set, threshold, rollouts and budget.

    >>> scorer = Scorer(["checks/length", "judge/llm_judge"], threshold=0.5, budget_msats=10_000)  # doctest: +SKIP
    >>> scorer.score({"query": "…"}, {"response": "…"}).score                                     # doctest: +SKIP
    """

    def __init__(
        self, metrics: Sequence[MetricLike], *, threshold: float | None = None, rollouts: int = 1,
        aggregate_by: AggregateMethod = "mean", trim: float = 0.1, budget_msats: int | None = None,
    ) -> None:
        self.metrics = list(metrics)
        self.threshold = threshold
        self.rollouts = rollouts
        self.aggregate_by = aggregate_by
        self.trim = trim
        self.budget = Budget(budget_msats)

    def evaluate(self, data: Any = None, **options: Any) -> EvaluationResult:
        """:func:`evalcore.evaluate` with this scorer's settings; spending draws on its budget."""
        return evaluate(data, self.metrics, threshold=self.threshold, rollouts=self.rollouts,
                        aggregate_by=self.aggregate_by, trim=self.trim, budget_msats=self.budget,
                        **options)

    def multi_objective(self, example: Any, prediction: Any = None, *,
                        program: Callable[..., Any] | None = None) -> list[FeedbackScore]:
        """One feedback result per metric for one example (multi-objective optimisers)."""
        row = self._row(example, prediction, program)
        return [FeedbackScore(s.get("value"), s.get("feedback"), {"metric": metric_id, **s})
                for metric_id, s in row["scores"].items()]

    def score(self, example: Any, prediction: Any = None, *,
              program: Callable[..., Any] | None = None) -> FeedbackScore:
        """The final score of one example: the truth metrics' mean when the proxy gate passes,
        else the proxy score; feedback texts joined; every metric's result in the details."""
        row = self._row(example, prediction, program)
        gate = row.get("gate")
        values = [s["value"] for s in row["scores"].values() if s["status"] == "ok"]
        final = gate["final"] if gate else (sum(values) / len(values) if values else None)
        feedback = "\n".join(f"{m}: {s['feedback']}" for m, s in row["scores"].items() if s.get("feedback"))
        return FeedbackScore(final, feedback or None, {"scores": row["scores"], "gate": gate})

    def _row(self, example: Any, prediction: Any, program: Callable[..., Any] | None) -> dict[str, Any]:
        predictions = None if program is not None else [prediction]
        result = self.evaluate(examples=[example], predictions=predictions, program=program, n_boot=1)
        if not result.samples:
            raise RuntimeError(result.stopped or "the example could not be scored")
        return result.samples[0]
