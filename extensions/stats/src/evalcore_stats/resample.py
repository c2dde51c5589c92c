"""Paired bootstrap and approximate randomization, drawn exactly as sacrebleu draws them.

Both tests take a *scorer*: a function from an index selection to the two systems' values
(means of per-record values for sample metrics, the corpus value of merged per-record
states for corpus metrics), so one drawing scheme serves both kinds of metric.

* Paired bootstrap (sacrebleu's ``paired_bs``): ``numpy.random.default_rng(seed)`` draws
  ``choice(n, size=(resamples, n), replace=True)`` once; each row is a resample for both
  systems. With ``d`` the observed absolute difference and ``r`` the resampled absolute
  differences, ``p = (#(r - mean(r) > d) + 1) / (resamples + 1)``.
* Approximate randomization (sacrebleu's ``paired_ar``): the same generator draws
  ``integers(2, size=(trials, n), dtype=bool)``; where a trial's cell is true the records
  of the two systems are swapped. ``p = (#(|a - b| > d) + 1) / (trials + 1)``.

Where the observed difference is exactly zero, both give ``p = 1`` (sacrebleu would
report ``1 / (resamples + 1)``, calling two identical systems different). A resampled
statistic within a relative 1e-12 of the observed one counts as equal, not greater, so
that means summed in another order do not pass for larger ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

_TOLERANCE = 1e-12

ValuesOf = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""Given an index matrix (one resample per row), each system's value per row."""


@attrs.frozen
class Bootstrap:
    """Paired bootstrap outcome: p-value and the resampled differences (system - baseline)."""

    p_value: float
    differences: np.ndarray


def paired_bootstrap(n: int, observed: float, values_of: ValuesOf, *, resamples: int, seed: int) -> Bootstrap:
    """sacrebleu's paired bootstrap resampling test (two-sided)."""
    rng = np.random.default_rng(seed)
    idxs = rng.choice(n, size=(resamples, n), replace=True)
    base, system = values_of(idxs)
    differences = system - base
    sample_diffs = np.abs(differences)
    stats = sample_diffs - sample_diffs.mean()
    return Bootstrap(_p_value(stats, abs(observed)), differences)


def approximate_randomization(
    n: int, observed: float, swapped_values: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], *,
    trials: int, seed: int,
) -> float:
    """sacrebleu's paired approximate randomization test (two-sided).

    ``swapped_values(mask)`` gives the two pseudo-systems' values for each trial: pseudo
    system A takes the baseline's record where ``mask`` is true, the system's otherwise.
    """
    rng = np.random.default_rng(seed)
    mask = rng.integers(2, size=(trials, n), dtype=bool)
    shuffled_a, shuffled_b = swapped_values(mask)
    return _p_value(np.abs(shuffled_a - shuffled_b), abs(observed))


def _p_value(stats: np.ndarray, observed: float) -> float:
    if observed == 0.0:
        return 1.0
    count = int(np.sum(stats > observed + _TOLERANCE * max(1.0, observed)))
    return (count + 1) / (len(stats) + 1)


def mean_values(base: np.ndarray, system: np.ndarray) -> tuple[ValuesOf, Callable[[np.ndarray], Any]]:
    """Resampling functions for per-record values (the statistic is the mean)."""

    def values_of(idxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return base[idxs].mean(axis=1), system[idxs].mean(axis=1)

    def swapped(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = np.where(mask, base, system).mean(axis=1)
        b = np.where(mask, system, base).mean(axis=1)
        return a, b

    return values_of, swapped


def corpus_values(
    base: Sequence[Any], system: Sequence[Any], value_of: Callable[[Sequence[Any]], float],
    merge: Callable[[Sequence[Any]], Any],
) -> tuple[ValuesOf, Callable[[np.ndarray], Any]]:
    """Resampling functions for per-record corpus states (the statistic is the corpus value).

    ``value_of`` gives the corpus value of a list of states, ``merge`` merges states. For
    randomization, records are taken in blocks of :data:`BLOCK`: every way of swapping a
    block is merged once beforehand, so a trial merges one state per block instead of one
    per record. Merging is associative, so the values are the same.
    """

    def values_of(idxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = [row.tolist() for row in idxs]
        return (np.array([value_of([base[i] for i in row]) for row in rows]),
                np.array([value_of([system[i] for i in row]) for row in rows]))

    def swapped(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(base)
        starts = range(0, n, BLOCK)
        tables = [_swap_table(base[lo:lo + BLOCK], system[lo:lo + BLOCK], merge) for lo in starts]
        codes = np.stack([mask[:, lo:lo + BLOCK] @ (1 << np.arange(min(BLOCK, n - lo))) for lo in starts], axis=1)
        full = [len(table) - 1 for table in tables]
        a, b = [], []
        for row in codes.tolist():
            a.append(value_of([table[code] for table, code in zip(tables, row)]))
            b.append(value_of([table[code ^ top] for table, code, top in zip(tables, row, full)]))
        return np.array(a), np.array(b)

    return values_of, swapped


def declared_values(
    base: Any, system: Any, values: Callable[[np.ndarray], np.ndarray],
) -> tuple[ValuesOf, Callable[[np.ndarray], Any]]:
    """Resampling functions for declared (integer array) corpus states: every resample's merged
    state at once (a matrix product), then ``values`` of them all."""

    def values_of(idxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return values(base.resampled(idxs)), values(system.resampled(idxs))

    def swapped(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = base.swapped(system, mask)
        return values(a), values(b)

    return values_of, swapped


BLOCK = 8


def _swap_table(base: Sequence[Any], system: Sequence[Any], merge: Callable[[Sequence[Any]], Any]) -> list[Any]:
    """For each bit pattern (bit j set: record j from the baseline), the merged state."""
    width = len(base)
    return [merge([base[j] if code >> j & 1 else system[j] for j in range(width)]) for code in range(1 << width)]
