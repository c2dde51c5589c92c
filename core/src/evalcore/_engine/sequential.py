"""Anytime-valid confidence sequences for the mean of bounded per-record values.

The predictable plug-in empirical-Bernstein confidence sequence (PrPl-EB) of Waudby-Smith &
Ramdas, "Estimating means of bounded random variables by betting" (JRSS-B, 2023), in the
form for records drawn without replacement from a finite set of ``N`` (Waudby-Smith & Ramdas,
"Confidence sequences for sampling without replacement", NeurIPS 2020) — the form the
authors' ``confseq`` package computes in ``predmix_empbern_twosided_cs(x, alpha, N=N)``.

For values ``x_1, x_2, ...`` scaled to [0, 1], with ``mu_t = (1/2 + sum x_i) / (t + 1)`` and
``s2_t = (1/4 + sum (x_i - mu_i)^2) / (t + 1)`` (regularised by one pseudo-observation):

* bets ``lam_t = min(c, sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))))``, ``c = 1/2``;
* ``psi_t = (x_t - mu_{t-1})^2 (-log(1 - lam_t) - lam_t)``;
* without replacement ``Z_t = (x_1 + ... + x_{t-1}) / (N - t + 1)``, ``W_t = (t - 1) / (N - t + 1)``
  (both 0 when ``N`` is unknown);
* the interval at ``t``: ``sum lam (x + Z) / sum lam (1 + W)`` plus or minus
  ``(log(2/alpha) + sum psi) / sum lam (1 + W)``, clipped to [0, 1] and intersected with every
  earlier one (the running intersection, valid because all hold at once).

With probability at least ``confidence`` every interval of the sequence covers the mean at once,
so a run may stop whenever its interval is narrow enough (or excludes 0) and still report it.
The sequence is for the mean of all ``N`` records when ``N`` is given, else of the distribution
the records are drawn from. Everything works on arrays whose last axis is time, so many
sequences are computed at once.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import numpy as np

from evalcore._lazy import publish

TRUNCATION = 0.5
"""The largest bet ``c`` (the paper's recommended 1/2)."""


@attrs.frozen
class SequenceInterval:
    """A confidence sequence's interval after ``n`` values: ``[low, high]``, the centre ``estimate``."""

    estimate: float
    low: float
    high: float
    n: int

    @property
    def width(self) -> float:
        return self.high - self.low

    def excludes(self, value: float) -> bool:
        return not self.low <= value <= self.high

    def to_dict(self) -> dict[str, float | int]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "n": self.n}


def unit_sequence(x: np.ndarray, *, confidence: float = 0.95, population: int | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre, lower and upper bounds at every time of the PrPl-EB sequence for values in [0, 1]
    (last axis = time; ``population`` = ``N`` when drawn without replacement from ``N`` values)."""
    x = np.asarray(x, dtype=float)
    if x.shape[-1] == 0:
        empty = np.empty(x.shape)
        return empty, empty, empty
    if np.any((x < 0) | (x > 1)):
        raise ValueError("values must lie in [0, 1] once scaled")
    log_term = np.log(2 / (1 - confidence))
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    sums = np.cumsum(x, axis=-1)
    mu = (0.5 + sums) / (t + 1)
    mu_before = np.concatenate([np.full(x.shape[:-1] + (1,), 0.5), mu[..., :-1]], axis=-1)
    s2 = (0.25 + np.cumsum((x - mu) ** 2, axis=-1)) / (t + 1)
    s2_before = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), s2[..., :-1]], axis=-1)
    lam = np.minimum(TRUNCATION, np.sqrt(2 * log_term / (s2_before * t * np.log1p(t))))
    psi = (x - mu_before) ** 2 * (-np.log1p(-lam) - lam)
    if population is None:
        z = w = 0.0
    else:
        if population < x.shape[-1]:
            raise ValueError(f"population {population} is smaller than the {x.shape[-1]} values drawn")
        left = population - t + 1
        sums_before = np.concatenate([np.zeros(x.shape[:-1] + (1,)), sums[..., :-1]], axis=-1)
        z, w = sums_before / left, (t - 1) / left
    weight = np.cumsum(lam * (1 + w), axis=-1)
    centre = np.cumsum(lam * (x + z), axis=-1) / weight
    margin = (log_term + np.cumsum(psi, axis=-1)) / weight
    low = np.maximum.accumulate(np.clip(centre - margin, 0, 1), axis=-1)
    high = np.minimum.accumulate(np.clip(centre + margin, 0, 1), axis=-1)
    return np.clip(centre, low, high), low, high


def mean_sequence(values: np.ndarray, low: float, high: float, *, confidence: float = 0.95,
                  population: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sequence for the mean of values in ``[low, high]`` (a metric's value range), in its units."""
    if not (np.isfinite(low) and np.isfinite(high) and high > low):
        raise ValueError(f"a confidence sequence needs a bounded value range; got [{low}, {high}]")
    span = high - low
    centre, lower, upper = unit_sequence((np.asarray(values, dtype=float) - low) / span,
                                         confidence=confidence, population=population)
    return low + span * centre, low + span * lower, low + span * upper


def final_interval(sequence: tuple[np.ndarray, np.ndarray, np.ndarray]) -> SequenceInterval | None:
    """The last interval of a one-dimensional sequence (``None`` before any value)."""
    centre, low, high = sequence
    if not len(centre):
        return None
    return SequenceInterval(float(centre[-1]), float(low[-1]), float(high[-1]), len(centre))


_MASK = (1 << 64) - 1


def draw_keys(positions: Iterable[int], seed: int) -> np.ndarray:
    """A seeded pseudo-random sort key per input position (SplitMix64 of ``seed`` and the position)."""
    with np.errstate(over="ignore"):
        z = np.fromiter(positions, dtype=np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15) & _MASK)
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


publish(globals())
