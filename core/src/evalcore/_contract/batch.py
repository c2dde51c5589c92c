"""Scoring many pairs in one call of a sample metric's batch hook, with each pair's result
checked as :func:`~evalcore._contract.metric.result_check` checks one (see
``SampleMetric.score_batch``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import ScoringError
from .scores import Score

Batch = Callable[[Sequence[Any], Sequence[Any]], Sequence[Any]]


def batch_results(batch: Batch, one: Callable[[Any, Any], Score], check: Callable[[Any], Score],
                  examples: Sequence[Any], predictions: Sequence[Any], owner: str) -> list[Score]:
    """``batch(examples, predictions)``, each result through ``check``.

    A result object that recurs (metrics hand out one :class:`Score` per distinct outcome) is
    checked once. If the call raises, every pair is scored by ``one`` (a guarded per-pair call)
    instead, so a failing pair is that pair's error and the others keep their values; only an
    interrupt propagates. ``owner`` (the metric's id) names a batch that returns too few results.
    """
    try:
        raw = batch(examples, predictions)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - isolate the failing pair by scoring one at a time
        return [one(e, p) for e, p in zip(examples, predictions)]
    if len(raw) != len(examples):
        raise ScoringError(f"{owner} returned {len(raw)} results for {len(examples)} samples")
    checked: dict[int, Score] = {}  # by id() of a result object: each is alive in ``raw``
    out = []
    append = out.append
    for result in raw:
        key = id(result)
        score = checked.get(key)
        if score is None:
            score = checked[key] = check(result)
        append(score)
    return out
