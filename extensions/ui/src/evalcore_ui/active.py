"""A queue in active order: records drawn where a label narrows the estimate most (Zrnic & Candès 2024).

The records drawn from are those with a value of the queue's metric. Each is drawn with a
probability proportional to the judge's uncertainty about it, mixed with the uniform draw (a
fifth of the weight, so every record keeps at least ``0.2 / N``; ``evalcore.active_probabilities``).
The uncertainty is read from the record's score when the run's index is built (kept beside its value,
so a queue's population is one query, and a draw a bisection of the probabilities' running sums):

- a score with several values in its details (``values``: a panel's or rollouts' numbers) —
  their standard deviation;
- a verdict with a recorded ``confidence`` in [0, 1] — ``1 - confidence``;
- otherwise a value in [0, 1] read as the judge's probability of "pass" — ``sqrt(v * (1 - v))``,
  the expected error of a calibrated probability, which the paper's rule draws in proportion to
  (0 for a plain 0/1 verdict, whose records then share the uniform draw);
- anything else counts the mean of the others'.

Each draw and its probability is recorded; the estimate (``evalcore.active_mean``) uses the
longest run of draws from the first whose records are all labelled, so a skipped record holds the
estimate back until someone labels it rather than biasing it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import attrs
import evalcore
from evalcore.plugin import InputError

EPS = 0.2
"""The uniform share of the draw: every record keeps a probability of at least ``EPS / N``."""


def uncertainty(score: Any) -> float | None:
    """The judge's uncertainty about a record, from its score (see the module's rules); ``None`` if unknown."""
    if not isinstance(score, Mapping):
        return None
    details = score.get("details") if isinstance(score.get("details"), Mapping) else {}
    values = [v for v in details.get("values") or () if _number(v)] if isinstance(details.get("values"), list) else []
    if len(values) > 1:
        mean = sum(values) / len(values)
        return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    confidence = details.get("confidence")
    if _number(confidence) and 0.0 <= confidence <= 1.0:
        return 1.0 - float(confidence)
    value = score.get("value")
    if _number(value) and 0.0 <= value <= 1.0:
        return math.sqrt(value * (1.0 - value))
    return None


@attrs.frozen
class Population:
    """The records a queue draws from: ids, the judge's values and each record's draw probability."""

    ids: tuple[str, ...]
    values: tuple[float, ...]
    probabilities: tuple[float, ...]
    cumulative: list[float] = attrs.field(init=False, eq=False, repr=False)

    @cumulative.default
    def _cumulative(self) -> list[float]:
        return list(itertools.accumulate(self.probabilities))

    def draw(self, rng: random.Random) -> tuple[str, float]:
        """One record drawn with its probability, and that probability (a bisection of the running
        sums: the same draw as ``rng.choices`` with the probabilities as weights)."""
        (position,) = rng.choices(range(len(self.ids)), cum_weights=self.cumulative)
        return self.ids[position], self.probabilities[position]


def population(judged: Sequence[tuple[str, float, float | None]]) -> Population:
    """The population of the records with a value: ``(id, value, uncertainty)`` triples, as the
    index keeps them (a value that is not finite leaves its record out)."""
    rows = [row for row in judged if math.isfinite(row[1])]
    if not rows:
        raise InputError("no record has a value of the queue's metric to draw from", field="metric")
    probabilities = evalcore.active_probabilities(list(map(itemgetter(2), rows)), eps=EPS)
    return Population(tuple(map(itemgetter(0), rows)), tuple(map(itemgetter(1), rows)), tuple(probabilities.tolist()))


def estimate(people: Population, draws: Sequence[tuple[str, float]], labels: Mapping[str, float],
             width: float | None = None) -> dict[str, Any]:
    """The active estimate from the labelled draws (the longest labelled run from the first), with
    the draws still needed for an interval of ``width``."""
    used = []
    for rid, _ in draws:
        if rid not in labels:
            break
        used.append(rid)
    wanted = set(used)
    position = {rid: n for n, rid in enumerate(people.ids) if rid in wanted}
    judge_mean = sum(people.values) / len(people.values)
    found: dict[str, Any] = {"judge_mean": judge_mean, "draws": len(draws), "records": len(people.ids)}
    if len(used) < 2:
        return {**found, "note": "the active estimate needs at least 2 labelled draws"}
    probabilities = list(people.probabilities)
    for rid, p in draws[: len(used)]:
        probabilities[position[rid]] = p  # the probability each record was drawn with, as recorded
    result = evalcore.active_mean(people.values, [position[rid] for rid in used],
                                  {position[rid]: labels[rid] for rid in used}, probabilities)
    found["active"] = result.to_dict()
    if width is not None:
        found["width"] = width
        found["labels_needed"] = evalcore.labels_needed(result, width)
    return found


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)
