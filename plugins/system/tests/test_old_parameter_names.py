"""Old parameter names (``timing_key``, ``score_field_path``, ``cost_field_path``, ``lowercase``,
``top_k``) still work and give the same numbers as the new ones."""

from __future__ import annotations

import warnings

import evalcore
import pytest

PREDICTIONS = [
    {"response": "A a b B c", "timings": {"retrieval": 40.0, "end_to_end": 120.0}, "metrics": {"acc": 0.9},
     "spend": 0.3, "retrieved": [{"doc_id": str(i), "metadata": {"embedding": v}}
                                 for i, v in enumerate([[1, 0], [0, 1], [1, 1]])]},
    {"response": "a b a", "timings": {"retrieval": 60.0}, "duration_ms": 300.0, "metrics": {"acc": 0.5},
     "spend": 2.0, "retrieved": [{"doc_id": "x", "metadata": {"embedding": [1, 2]}},
                                 {"doc_id": "y", "metadata": {"embedding": [2, 1]}}]},
]


def values(metric: evalcore.Metric) -> list[float | None]:
    results = metric.states([{}] * len(PREDICTIONS), PREDICTIONS) if hasattr(metric, "merge") else \
        [(metric.score_one({}, p), None) for p in PREDICTIONS]
    found = [score.value for score, _ in results]
    if hasattr(metric, "merge"):
        found.append(metric.corpus_score([state for _, state in results]).value)
    return found


@pytest.mark.parametrize(("metric_id", "new", "was"), [
    ("system/mean_latency", {"timing_field": "retrieval"}, {"timing_key": "retrieval"}),
    ("system/quantile_latency", {"timing_field": "retrieval"}, {"timing_key": "retrieval"}),
    ("system/technical_performance", {"timing_field": "retrieval", "latency_threshold_ms": 50.0},
     {"timing_key": "retrieval", "latency_threshold_ms": 50.0}),
    ("system/cost_efficiency", {"score_field": "metrics.acc", "cost_field": "spend"},
     {"score_field_path": "metrics.acc", "cost_field_path": "spend"}),
    ("system/distinct_n", {"ignore_case": True, "n": 1}, {"lowercase": True, "n": 1}),
    ("system/intra_list_diversity", {"k": 2}, {"top_k": 2}),
])
def test_old_name_gives_the_same_number(metric_id: str, new: dict, was: dict) -> None:
    metric = evalcore.get_metric(metric_id, **new)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", evalcore.DeprecatedParameterWarning)
        before = evalcore.get_metric(metric_id, **was)
    assert before.id == metric.id and before.params == metric.params
    assert values(before) == values(metric)
    if metric_id != "system/cost_efficiency":  # needs a score path: no run without one
        assert values(metric) != values(evalcore.get_metric(metric_id)), "the parameter should matter here"
