"""``evalcore.arena``: two or more systems' answers judged pair by pair, win rates and Bradley–Terry ratings.

Each system is a JSONL file of records (or a list of record dicts) over the same ids. For every
pair of systems (A, B) the records are joined by id: the example and A's prediction, with B's
prediction fields added under their names with ``_b`` appended (``response`` -> ``response_b``),
which is what a pairwise metric such as ``judge/pairwise`` reads as its second answer. The metric
(value 1: A better, 0: B better, 0.5: a tie) is evaluated over the joined records; A's win rate is
the mean (ties as half) with a seeded percentile bootstrap interval over the records. Over every
pair, the Bradley–Terry model is fitted to the wins (ties as half a win for each) by choix's
iterative Luce spectral ranking, and each rating's interval comes from refitting on bootstrap
resamples of every pair's records. Ratings are on the Elo scale of chatbot arenas:
``1000 + 400 * log10(strength / geometric mean strength)``.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import InputError, read_records, table_lines

ELO_SCALE = 400 / math.log(10)
"""Rating points per unit of log strength (a 10× stronger system is 400 points ahead)."""


@attrs.frozen
class PairResult:
    """One pair: A's win rate against B over the records both answered and the metric scored."""

    system: str
    against: str
    n: int
    wins: int
    losses: int
    ties: int
    win_rate: float | None
    ci: tuple[float, float] | None
    n_unscored: int

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["ci"] = list(self.ci) if self.ci is not None else None
        return data


@attrs.frozen
class Rating:
    """A system's Bradley–Terry rating (Elo scale) with its bootstrap interval."""

    system: str
    rating: float
    ci: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "rating": self.rating, "ci": list(self.ci)}


@attrs.frozen
class Arena:
    """Every pair's win rate and, over three or more systems, the ratings (best first)."""

    metric: str
    systems: list[str]
    pairs: list[PairResult]
    ratings: list[Rating]
    options: dict[str, Any]
    notes: list[str] = attrs.field(factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "systems": list(self.systems), "pairs": [p.to_dict() for p in self.pairs],
                "ratings": [r.to_dict() for r in self.ratings], "options": self.options, "notes": list(self.notes)}

    def table(self) -> str:
        """The win rates, then the arena table of ratings."""
        level = f"{self.options['confidence']:.0%}"
        rows = [[p.system, p.against, str(p.n), f"{p.wins}/{p.ties}/{p.losses}", _number(p.win_rate),
                 _interval(p.ci)] for p in self.pairs]
        lines = [f"{self.metric}: win rate of each system against another (ties as half)",
                 *table_lines(["system", "against", "n", "W/T/L", "win rate", f"{level} interval"], rows)]
        if self.ratings:
            lines += ["", "Bradley–Terry ratings (Elo scale)",
                      *table_lines(["rank", "system", "rating", f"{level} interval"],
                                   [[str(i), r.system, f"{r.rating:.0f}", f"[{r.ci[0]:.0f}, {r.ci[1]:.0f}]"]
                                    for i, r in enumerate(self.ratings, 1)])]
        return "\n".join([*lines, *(f"note: {n}" for n in self.notes)])


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def bradley_terry(wins: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    """Log strengths (mean 0) fitted to ``wins[i, j]``, the (possibly fractional) wins of ``i`` over ``j``,
    by choix's ``ilsr_pairwise_dense``; ``alpha`` regularises, so a system that never lost has a finite one."""
    import choix

    return np.asarray(choix.ilsr_pairwise_dense(np.asarray(wins, dtype=float), alpha=alpha))


def ratings_of(strengths: np.ndarray) -> np.ndarray:
    """Log strengths on the Elo scale, centred on 1000."""
    return 1000 + ELO_SCALE * (strengths - strengths.mean(axis=-1, keepdims=True))


def arena(
    systems: Mapping[str, Any] | Sequence[Any], metric: Any, *, seed: int = 0, n_resamples: int = 1000,
    confidence: float = 0.95, alpha: float = 0.01, **options: Any,
) -> Arena:
    """Judge every pair of ``systems`` with the pairwise ``metric`` (an id or a metric object) and rate them.

    ``systems`` maps names to JSONL paths or lists of record dicts (a sequence of paths is named by
    the files' names). ``options`` go to :func:`evalcore.evaluate` for every pair (``settings``,
    ``concurrency``, ``budget`` ...). Records some system lacks are left out, with a note.
    """
    named = _named(systems)
    if len(named) < 2:
        raise InputError("an arena needs at least two systems", field="systems")
    if not 0 < confidence < 1:
        raise InputError(f"must be between 0 and 1, got {confidence}", field="confidence")
    records = {name: _records(source, name) for name, source in named.items()}
    shared = [i for i in records[next(iter(records))] if all(i in r for r in records.values())]
    notes = [f"{name}: {len(r) - len(shared)} records not answered by every system, left out"
             for name, r in records.items() if len(r) > len(shared)]
    if not shared:
        raise InputError("the systems share no record id", field="systems")
    rng = np.random.default_rng(seed)
    names = list(named)
    pairs, outcomes, metric_id = [], {}, ""
    for a, b in itertools.combinations(names, 2):
        metric_id, values, unscored = _judged(records[a], records[b], shared, metric, options)
        outcomes[(a, b)] = values
        pairs.append(_pair(a, b, values, unscored, rng, n_resamples, confidence))
    ratings = _ratings(names, outcomes, rng, n_resamples, confidence, alpha) if len(names) > 2 else []
    return Arena(metric=metric_id, systems=names, pairs=pairs, ratings=ratings,
                 options={"seed": seed, "n_resamples": n_resamples, "confidence": confidence, "alpha": alpha,
                          "interval": "percentile bootstrap over records"}, notes=notes)


def _named(systems: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    if isinstance(systems, Mapping):
        return dict(systems)
    named: dict[str, Any] = {}
    for i, source in enumerate(systems):
        name = os.path.splitext(os.path.basename(os.fspath(source)))[0] if isinstance(source, (str, os.PathLike)) \
            else f"system {i + 1}"
        named[name if name not in named else f"{name} ({i + 1})"] = source
    return named


def _records(source: Any, name: str) -> dict[str, dict[str, Any]]:
    if isinstance(source, (str, os.PathLike)):
        found = read_records(source)
        if found.errors:
            raise found.errors[0]
        return {r.id: {"example": dict(r.example), "prediction": dict(r.prediction)} for r in found.records}
    out = {}
    for i, record in enumerate(source):
        if not isinstance(record, Mapping) or "id" not in record:
            raise InputError("each record is a dict with an id", field=f"{name}[{i}]")
        out[str(record["id"])] = {"example": dict(record.get("example") or {}),
                                  "prediction": dict(record.get("prediction") or {})}
    return out


def _judged(a: Mapping[str, Any], b: Mapping[str, Any], ids: Sequence[str], metric: Any,
            options: Mapping[str, Any]) -> tuple[str, np.ndarray, int]:
    """The metric's value per record of A against B (NaN where it scored none) and how many it did not score."""
    import evalcore

    joined = [{"id": i, "example": a[i]["example"],
               "prediction": {**a[i]["prediction"], **{f"{k}_b": v for k, v in b[i]["prediction"].items()}}}
              for i in ids]
    result = evalcore.evaluate(joined, [metric], **options)
    (metric_id,) = result.metrics
    by_id = {str(row["id"]): row.get("scores", {}).get(metric_id, {}) for row in result.samples}
    values = np.array([v if isinstance(v := by_id.get(i, {}).get("value"), (int, float)) else np.nan for i in ids],
                      dtype=float)
    if np.any((values[~np.isnan(values)] < 0) | (values[~np.isnan(values)] > 1)):
        raise InputError("a pairwise metric's values are 1 (A better), 0 (B better) or between (a tie)",
                         field=metric_id)
    return metric_id, values, int(np.isnan(values).sum())


def _pair(a: str, b: str, values: np.ndarray, unscored: int, rng: np.random.Generator, n_resamples: int,
          confidence: float) -> PairResult:
    scored = values[~np.isnan(values)]
    wins, losses = int((scored == 1).sum()), int((scored == 0).sum())
    if not len(scored):
        return PairResult(a, b, 0, 0, 0, 0, None, None, unscored)
    draws = scored[rng.integers(len(scored), size=(n_resamples, len(scored)))].mean(axis=1)
    tail = (1 - confidence) / 2
    ci = (float(np.quantile(draws, tail)), float(np.quantile(draws, 1 - tail)))
    return PairResult(a, b, len(scored), wins, losses, len(scored) - wins - losses, float(scored.mean()), ci,
                      unscored)


def _wins(names: Sequence[str], outcomes: Mapping[tuple[str, str], np.ndarray]) -> np.ndarray:
    index = {n: i for i, n in enumerate(names)}
    matrix = np.zeros((len(names), len(names)))
    for (a, b), values in outcomes.items():
        scored = values[~np.isnan(values)]
        matrix[index[a], index[b]] += scored.sum()
        matrix[index[b], index[a]] += (1 - scored).sum()
    return matrix


def _ratings(names: Sequence[str], outcomes: Mapping[tuple[str, str], np.ndarray], rng: np.random.Generator,
             n_resamples: int, confidence: float, alpha: float) -> list[Rating]:
    fitted = ratings_of(bradley_terry(_wins(names, outcomes), alpha))
    scored = {pair: values[~np.isnan(values)] for pair, values in outcomes.items()}
    draws = np.array([ratings_of(bradley_terry(_wins(names, {
        pair: values[rng.integers(len(values), size=len(values))] for pair, values in scored.items()
        if len(values)}), alpha))
        for _ in range(n_resamples)])
    tail = (1 - confidence) / 2
    low, high = np.quantile(draws, tail, axis=0), np.quantile(draws, 1 - tail, axis=0)
    found = [Rating(name, float(fitted[i]), (float(low[i]), float(high[i]))) for i, name in enumerate(names)]
    return sorted(found, key=lambda r: -r.rating)
