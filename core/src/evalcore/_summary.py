"""Aggregate results per metric: value, counts, standard error and bootstrap interval."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from ._metric import CorpusMetric, Metric
from ._result import Score, Status
from ._stats import bootstrap_interval, corpus_bootstrap, standard_error


@attrs.frozen
class MetricSummary:
    """The aggregate of one metric over a dataset.

    ``value`` is the mean of per-sample values (the corpus value for corpus metrics), or
    0.0 with ``n == 0`` when no sample could be scored (the Auepora spec's rule); it is ``None``
    only when a corpus value could not be computed (``details["error"]`` says why). ``ci``
    is a seeded percentile-bootstrap interval computed from the per-sample results.
    """

    id: str
    value: float | None
    n: int
    n_skipped: int
    n_errors: int
    stderr: float | None
    ci: tuple[float, float] | None
    metric_version: str
    distribution: str
    distribution_version: str
    direction: str
    granularity: str
    cost_msats: int = 0
    n_budget_skipped: int = 0
    details: dict[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self, recurse=False)
        data["ci"] = list(self.ci) if self.ci is not None else None
        return data


def summarise(
    metric: Metric, scores: Sequence[Score], *, states: Sequence[Any] | None = None,
    failure_score: float | None, seed: int, n_boot: int, confidence: float,
    budget_skip_reason: str,
) -> MetricSummary:
    """Summarise one metric's per-record scores (and corpus states for corpus metrics)."""
    n_skipped = sum(s.status is Status.SKIPPED for s in scores)
    n_errors = sum(s.status is Status.ERROR for s in scores)
    n_budget = sum(s.status is Status.SKIPPED and s.reason == budget_skip_reason for s in scores)
    usage = metric.usage_summary()
    base = {
        "id": metric.id, "metric_version": metric.spec.version,
        "distribution": metric.origin.distribution,
        "distribution_version": metric.origin.version,
        "direction": metric.spec.direction.value, "granularity": metric.spec.granularity.value,
        "n_skipped": n_skipped, "n_errors": n_errors, "n_budget_skipped": n_budget,
        "cost_msats": sum(s.cost_msats for s in scores),
        "details": {"usage": usage} if usage else {},
    }
    if isinstance(metric, CorpusMetric):
        return _corpus_summary(metric, [s for s in (states or []) if s is not None], base,
                               seed=seed, n_boot=n_boot, confidence=confidence)
    values = [s.value for s in scores if s.status is Status.OK and s.value is not None]
    if failure_score is not None:
        values += [failure_score] * n_errors
    array = np.asarray(values, dtype=float)
    return MetricSummary(
        value=float(array.mean()) if array.size else 0.0, n=int(array.size),
        stderr=standard_error(array),
        ci=bootstrap_interval(array, seed=seed, n_boot=n_boot, confidence=confidence),
        **base,
    )


def _corpus_summary(
    metric: CorpusMetric[Any], states: list[Any], base: dict[str, Any], *,
    seed: int, n_boot: int, confidence: float,
) -> MetricSummary:
    overall = metric.corpus_score(states)
    if overall.status is Status.ERROR:
        details = {"error": {"type": overall.error_type, "message": overall.error_message}}
        base["details"] = {**base["details"], **details}
        return MetricSummary(value=None, n=len(states), stderr=None, ci=None, **base)
    if overall.status is Status.SKIPPED or overall.value is None:
        base["details"] = {**base["details"], "reason": overall.reason}
        return MetricSummary(value=0.0, n=0, stderr=None, ci=None, **base)

    def value_of(sample: Sequence[Any]) -> float:
        result = metric.corpus_score(sample)
        return result.value if result.ok and result.value is not None else float("nan")

    stderr, interval = None, None
    if metric.bootstrap:
        stderr, interval = corpus_bootstrap(states, value_of, seed=seed, n_boot=min(n_boot, 200),
                                            confidence=confidence)
    base["details"] = {**base["details"], **overall.details}
    return MetricSummary(value=float(overall.value), n=len(states), stderr=stderr, ci=interval, **base)
