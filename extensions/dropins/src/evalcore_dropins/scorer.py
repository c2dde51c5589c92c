"""The tiered scorer of the dsrs metrics: proxy metrics first, truth metrics behind a
threshold, program rollouts aggregated before the gate and before the final score, and a
budget shared by every call made through one scorer."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalcore import Budget, EvalcoreError, EvaluationResult, FeedbackScore, Metric, Tier, evaluate, get_metric
from evalcore.plugin import aggregate, as_metric, call_program, without_unscored_warning

# The dsrs ScorerBuilder's defaults (metric id, parameters); the length check asks for a
# non-empty output of at most 100,000 characters. The LLM judge needs a judge configured.
DEFAULT_PROXY_METRICS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("checks/format", {}), ("checks/length", {"min_chars": 1, "max_chars": 100_000}), ("checks/syntax", {}),
)
DEFAULT_TRUTH_METRICS: tuple[tuple[str, dict[str, Any]], ...] = (("judge/llm_judge", {}), ("checks/diff", {}))
NO_METRICS = (
    "Scorer has no metrics: pass metric ids or instances, or start from "
    "Scorer.with_default_proxy_metrics() (format, length, syntax) and/or "
    ".with_default_truth_metrics() (LLM judge, diff)"
)


class _Chainable:
    """A method that works on the class (starting from no metrics) and on an instance (adding to it)."""

    def __init__(self, fn: Callable[..., Scorer]) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance: Scorer | None, owner: type[Scorer]) -> Callable[..., Scorer]:
        def call(**options: Any) -> Scorer:
            return self.fn(instance, owner, **options)

        call.__doc__ = self.fn.__doc__
        return call


class Scorer:
    """Scores an example with a fixed metric set, threshold, rollouts and budget.

    ``score`` runs the proxy metrics on every rollout's prediction, aggregates each metric
    over the rollouts (``aggregate_by``: mean, median, min, max, trimmed_mean), gates on the
    mean of those proxy values, runs the truth metrics on every rollout when the gate is
    open, aggregates them the same way and returns their mean as the final score (the proxy
    score when the gate is closed or no truth metric scored). ``tiers`` overrides a metric's
    tier (``{"checks/diff": "truth"}``), so either reading of a metric is available.

    >>> scorer = Scorer.with_default_proxy_metrics().with_default_truth_metrics(threshold=0.5)  # doctest: +SKIP
    >>> scorer.score({"query": "…"}, {"response": "…"}).score                                   # doctest: +SKIP
    """

    def __init__(
        self, metrics: Sequence[Metric | str | Callable[..., Any]], *, threshold: float | None = None,
        rollouts: int = 1, aggregate_by: str = "mean", trim: float = 0.1, budget_msats: int | Budget | None = None,
        tiers: Mapping[str, str] | None = None,
    ) -> None:
        if not metrics:
            raise EvalcoreError(NO_METRICS)
        if rollouts < 1:
            raise EvalcoreError(f"Scorer: parameter 'rollouts' must be >= 1; got {rollouts}")
        try:
            aggregate([0.0], aggregate_by, trim=trim)
        except ValueError as exc:
            raise EvalcoreError(f"Scorer: parameter 'aggregate_by': {exc}") from None
        self.metrics = [as_metric(m) for m in metrics]
        self.tiers = {key: _tier(key, value) for key, value in (tiers or {}).items()}
        unknown = sorted(set(self.tiers) - {m.id for m in self.metrics})
        if unknown:
            raise EvalcoreError(f"Scorer: parameter 'tiers' names metrics it does not have: {', '.join(unknown)}")
        self.threshold = threshold
        self.rollouts = rollouts
        self.aggregate_by = aggregate_by
        self.trim = trim
        self.budget = budget_msats if isinstance(budget_msats, Budget) else Budget(budget_msats)

    @_Chainable
    def with_default_proxy_metrics(self: Scorer | None, cls: type[Scorer], **options: Any) -> Scorer:
        """Add the default proxy metrics (format, length, syntax); options set the scorer's settings."""
        return cls._extended(self, DEFAULT_PROXY_METRICS, options)

    @_Chainable
    def with_default_truth_metrics(self: Scorer | None, cls: type[Scorer], **options: Any) -> Scorer:
        """Add the default truth metrics (LLM judge, diff); options set the scorer's settings."""
        return cls._extended(self, DEFAULT_TRUTH_METRICS, options)

    @classmethod
    def _extended(cls, base: Scorer | None, defaults: Sequence[tuple[str, dict[str, Any]]],
                  options: Mapping[str, Any]) -> Scorer:
        settings: dict[str, Any] = {}
        metrics: list[Metric] = []
        if base is not None:
            settings = {"threshold": base.threshold, "rollouts": base.rollouts, "aggregate_by": base.aggregate_by,
                        "trim": base.trim, "budget_msats": base.budget, "tiers": base.tiers}
            metrics = list(base.metrics)
        for metric_id, params in defaults:
            metric = get_metric(metric_id, **params)
            if metric.id not in {m.id for m in metrics}:
                metrics.append(metric)
        return cls(metrics, **{**settings, **options})

    def tier_of(self, metric: Metric) -> Tier:
        """The metric's tier in this scorer (its spec's unless ``tiers`` overrides it)."""
        return self.tiers.get(metric.id, metric.spec.tier)

    # -- scoring -------------------------------------------------------------------------

    def score(self, example: Any, prediction: Any = None, *,
              program: Callable[..., Any] | None = None) -> FeedbackScore:
        """The final score of one example, the feedback texts joined, every metric's result and
        the gate decision in the details."""
        scores, gate = self._score(example, prediction, program)
        feedback = "\n".join(f"{m}: {s['feedback']}" for m, s in scores.items() if s.get("feedback"))
        return FeedbackScore(gate["final"], feedback or None, {"scores": scores, "gate": gate})

    def multi_objective(self, example: Any, prediction: Any = None, *,
                        program: Callable[..., Any] | None = None) -> list[FeedbackScore]:
        """One feedback result per metric for one example (multi-objective optimisers)."""
        scores, _ = self._score(example, prediction, program)
        return [FeedbackScore(s.get("value"), s.get("feedback"), {"metric": metric_id, **s})
                for metric_id, s in scores.items()]

    def evaluate(self, data: Any = None, **options: Any) -> EvaluationResult:
        """:func:`evalcore.evaluate` with this scorer's settings over a dataset; spending draws
        on its budget. Tier overrides go to the evaluator as its ``tiers`` option."""
        if self.tiers:
            options["tiers"] = {key: tier.value for key, tier in self.tiers.items()}
        return evaluate(data, self.metrics, threshold=self.threshold, rollouts=self.rollouts,
                        aggregate_by=self.aggregate_by, trim=self.trim, budget_msats=self.budget, **options)

    def _score(self, example: Any, prediction: Any,
               program: Callable[..., Any] | None) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        predictions = self._predictions(example, prediction, program)
        proxies = [m for m in self.metrics if self.tier_of(m) is Tier.PROXY]
        truths = [m for m in self.metrics if self.tier_of(m) is Tier.TRUTH]
        scores = self._run(proxies, example, predictions)
        proxy_values = [scores[m.id]["value"] for m in proxies if scores[m.id].get("value") is not None]
        proxy_score = sum(proxy_values) / len(proxy_values) if proxy_values else None
        passed = self.threshold is None or not proxies or (proxy_score is not None and proxy_score >= self.threshold)
        if passed:
            scores.update(self._run(truths, example, predictions))
        else:
            reason = (f"proxy score {proxy_score:.4g} is below the threshold {self.threshold:g}"
                      if proxy_score is not None else "no proxy metric produced a score, so the gate is closed")
            scores.update({m.id: {"value": None, "status": "skipped", "reason": reason, "gate": "threshold"}
                           for m in truths})
        truth_values = [scores[m.id]["value"] for m in truths if scores[m.id].get("value") is not None]
        final = sum(truth_values) / len(truth_values) if passed and truth_values else proxy_score
        ordered = {m.id: scores[m.id] for m in self.metrics}
        gate = {"proxy_score": proxy_score, "passed": passed, "threshold": self.threshold, "final": final,
                "rollouts": len(predictions), "aggregate": self.aggregate_by}
        return ordered, gate

    def _predictions(self, example: Any, prediction: Any, program: Callable[..., Any] | None) -> list[Any]:
        if program is None:
            if self.rollouts > 1:
                raise EvalcoreError("Scorer: rollouts > 1 needs program= to produce the predictions")
            return [prediction]
        return [call_program(program, example) for _ in range(self.rollouts)]

    def _run(self, metrics: Sequence[Metric], example: Any, predictions: Sequence[Any]) -> dict[str, dict[str, Any]]:
        """Each metric's result over the rollouts: per-rollout results and their aggregate."""
        if not metrics:
            return {}
        rows = [self._row(metrics, example, prediction) for prediction in predictions]
        return {metric.id: self._combine([row["scores"][metric.id] for row in rows]) for metric in metrics}

    def _row(self, metrics: Sequence[Metric], example: Any, prediction: Any) -> dict[str, Any]:
        """The row of one rollout's prediction (one run each: the rollouts share the example's id)."""
        with without_unscored_warning():  # one example at a time: a skip is the scorer's answer, not news
            result = evaluate(examples=[example], predictions=[prediction], metrics=list(metrics),
                              budget_msats=self.budget, n_boot=1)
        if result.stopped and not result.samples:
            raise EvalcoreError(result.stopped)
        return result.samples[0]

    def _combine(self, rollouts: list[dict[str, Any]]) -> dict[str, Any]:
        if len(rollouts) == 1:
            return rollouts[0]
        values = [r["value"] for r in rollouts if r.get("status") == "ok" and r.get("value") is not None]
        cost = sum(r.get("cost_msats") or 0 for r in rollouts)
        if not values:
            return {**rollouts[0], "cost_msats": cost, "rollouts": rollouts}
        feedback = next((r["feedback"] for r in rollouts if r.get("feedback")), None)
        combined: dict[str, Any] = {"value": aggregate(values, self.aggregate_by, trim=self.trim), "status": "ok",
                                    "cost_msats": cost, "aggregate": self.aggregate_by, "rollouts": rollouts}
        if feedback:
            combined["feedback"] = feedback
        return combined


def _tier(metric_id: str, value: Any) -> Tier:
    try:
        return Tier(value)
    except ValueError:
        raise EvalcoreError(f"Scorer: parameter 'tiers': {metric_id!r} -> {value!r}; use 'proxy' or 'truth'") from None
