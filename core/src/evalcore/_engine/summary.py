"""Aggregate results per metric: value, counts, standard error and bootstrap interval."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from evalcore._contract.display import scale
from evalcore._contract.metric import CorpusMetric, Metric
from evalcore._contract.scores import Status
from evalcore._contract.spec import aggregate_values

from .stats import bootstrap_intervals, corpus_bootstrap, declared_bootstrap, standard_error
from .usage import metric_usage


@attrs.frozen
class MetricSummary:
    """The aggregate of one metric over a dataset.

    ``value`` is the mean of per-sample values (the corpus value for corpus metrics); it is
    ``None`` when no sample could be scored (unless the metric's convention defines a value then:
    :meth:`Metric.value_if_none_scored`), or when a corpus value could not be computed
    (``details["error"]`` says why; ``details["reasons"]``, the most common reasons records went
    unscored) — never a made-up 0. ``ci``
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
    scale: str = ""
    """The declared value range with its unit, as ``evalcore list`` shows it (``0–100``, ``≥0 ms``)."""
    usage: dict[str, int] | None = None
    """Calls (``cached_calls`` of them from the cache), tokens and ``cost_msats`` (:func:`.usage.metric_usage`);
    ``None`` when the metric called nothing and cost nothing."""

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self, recurse=False)
        data["ci"] = list(self.ci) if self.ci is not None else None
        return data


@attrs.frozen
class MetricTally:
    """What :func:`summarise_all` needs of one metric: its per-record values and statuses in
    input order (``status`` 0 ok, 1 skipped, 2 error, 3 skipped for the budget; ``values``
    NaN where not ok), its cost, and the corpus states of a corpus metric."""

    metric: Metric
    values: np.ndarray
    status: np.ndarray
    cost_msats: int = 0
    states: Sequence[Any] = ()
    reasons: Sequence[dict[str, Any]] = ()
    """The most common reasons records were not scored (``status``, ``reason``, ``count``, ``hints``)."""
    warnings: Sequence[str] = ()
    """What the numbers may hide (a response equal to the reference answer on nearly every record)."""
    used: Mapping[str, Any] | None = None
    """What the metric used in this run (its :meth:`~evalcore.plugin.Metric.usage_summary` since the run
    started); ``None``: its usage report as it stands."""


def summarise_all(
    tallies: Sequence[MetricTally], *, failure_score: float | None, seed: int, n_boot: int, confidence: float,
    on_each: Callable[[str], None] | None = None,
) -> list[MetricSummary]:
    """Summarise each metric; the bootstrap intervals of the means are drawn together
    (:func:`bootstrap_intervals`: the same numbers as one metric at a time, fewer draws).
    ``on_each`` is told each metric's id as its summary is done (for progress)."""
    scored = [_scored(t, failure_score) for t in tallies]
    means = [k for k, t in enumerate(tallies)
             if not isinstance(t.metric, CorpusMetric) and getattr(t.metric.spec, "aggregate", "mean") == "mean"]
    intervals = dict(zip(means, bootstrap_intervals([scored[k] for k in means], seed=seed, n_boot=n_boot,
                                                    confidence=confidence)))
    summaries = []
    for k, tally in enumerate(tallies):
        summaries.append(_summary(tally, scored[k], intervals.get(k), seed=seed, n_boot=n_boot,
                                  confidence=confidence))
        if on_each is not None:
            on_each(tally.metric.id)
    return summaries


def _scored(tally: MetricTally, failure_score: float | None) -> np.ndarray:
    """The values a mean is taken over: the ok ones, and ``failure_score`` for each error."""
    array = tally.values[tally.status == 0]
    n_errors = int((tally.status == 2).sum())
    if failure_score is not None and n_errors:
        array = np.concatenate([array, np.full(n_errors, float(failure_score))])
    return array


def _summary(
    tally: MetricTally, array: np.ndarray, ci: tuple[float, float] | None, *,
    seed: int, n_boot: int, confidence: float,
) -> MetricSummary:
    metric, status = tally.metric, tally.status
    n_budget = int((status == 3).sum())
    n_errors = int((status == 2).sum())
    usage = dict(tally.used) if tally.used is not None else metric.usage_summary()
    base = {
        "id": metric.id, "metric_version": metric.spec.version,
        "distribution": metric.origin.distribution,
        "distribution_version": metric.origin.version,
        "direction": metric.spec.direction.value, "granularity": metric.spec.granularity.value,
        "scale": scale(metric.spec),
        "n_skipped": int((status == 1).sum()) + n_budget, "n_errors": n_errors, "n_budget_skipped": n_budget,
        "cost_msats": int(tally.cost_msats), "usage": metric_usage(usage, tally.cost_msats),
        "details": {**({"usage": usage} if usage else {}),
                    **({"reasons": list(tally.reasons)} if tally.reasons else {}),
                    **({"warnings": list(tally.warnings)} if tally.warnings else {}), **metric.summary_details()},
    }
    if isinstance(metric, CorpusMetric):
        return _corpus_summary(metric, list(tally.states), base, seed=seed, n_boot=n_boot, confidence=confidence)
    how = getattr(metric.spec, "aggregate", "mean")
    if how != "mean":  # a sum (trec_eval's num_*) or a geometric mean (gm_*): no interval of a mean
        base["details"] = {**base["details"], "aggregate": how}
        return MetricSummary(value=aggregate_values(array.tolist(), how), n=int(array.size), stderr=None,
                             ci=None, **base)
    return MetricSummary(
        value=float(array.mean()) if array.size else metric.value_if_none_scored(), n=int(array.size),
        stderr=standard_error(array), ci=ci, **base,
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
        return MetricSummary(value=None, n=0, stderr=None, ci=None, **base)

    def value_of(sample: Sequence[Any]) -> float:
        result = metric.corpus_score(sample)
        return result.value if result.ok and result.value is not None else float("nan")

    stderr, interval = None, None
    stacked = metric.stack(states)
    if metric.bootstrap and stacked is not None:
        stderr, interval = declared_bootstrap(stacked, metric.values, seed=seed, n_boot=min(n_boot, 200),
                                              confidence=confidence)
    elif metric.bootstrap:
        stderr, interval = corpus_bootstrap(states, value_of, seed=seed, n_boot=min(n_boot, 200),
                                            confidence=confidence)
    base["details"] = {**base["details"], **overall.details}
    return MetricSummary(value=float(overall.value), n=len(states), stderr=stderr, ci=interval, **base)
