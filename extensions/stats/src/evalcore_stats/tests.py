"""Tests on paired per-record values: paired t-test, Wilcoxon signed-rank, Fisher randomization.

The t-test and Wilcoxon are scipy's (``ttest_rel`` and ``wilcoxon`` with their defaults,
as ranx uses them); scipy is the optional ``stats`` extra and is imported on first use.
Fisher's randomization test follows ranx (Smucker et al., CIKM 2007): the p-value is the
share of sign assignments of the per-record differences whose mean is at least as far
from zero as the observed one. It is exhaustive when the ``2**n`` assignments are no more
than the resamples asked for, and otherwise estimated from that many random assignments
drawn with ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from evalcore.plugin import EvalcoreError

_TOLERANCE = 1e-12


class MissingStatsError(EvalcoreError):
    """scipy is needed for the t-test and the Wilcoxon signed-rank test."""


def scipy_stats() -> Any:
    """``scipy.stats``, or :class:`MissingStatsError` saying how to install it."""
    try:
        from scipy import stats
    except ImportError:
        raise MissingStatsError(
            "the t-test and Wilcoxon tests need scipy: pip install scipy"
        ) from None
    return stats


def scipy_available() -> bool:
    """Whether scipy can be imported."""
    try:
        scipy_stats()
    except MissingStatsError:
        return False
    return True


def paired_t_test(base: np.ndarray, system: np.ndarray) -> tuple[float, float]:
    """Two-sided paired Student's t-test: ``(t, p)``; ``t > 0`` when the system is higher.

    Identical values give ``p = 1``; a constant non-zero difference gives ``t = ±inf, p = 0``
    (scipy would divide float noise by float noise there).
    """
    diffs = system - base
    if np.all(diffs == 0):
        return 0.0, 1.0
    if np.allclose(diffs, diffs[0], rtol=1e-12, atol=0.0):
        return math.copysign(math.inf, diffs[0]), 0.0
    result = scipy_stats().ttest_rel(system, base)
    return float(result.statistic), float(result.pvalue)


def wilcoxon(base: np.ndarray, system: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test (zero differences dropped): ``(W, p)``."""
    if np.all(system == base):
        return 0.0, 1.0
    result = scipy_stats().wilcoxon(system, base)
    return float(result.statistic), float(result.pvalue)


def fisher_randomization(base: np.ndarray, system: np.ndarray, *, resamples: int, seed: int) -> tuple[float, bool]:
    """Fisher's randomization test: ``(p, exhaustive)``."""
    diffs = system - base
    n = diffs.size
    observed = abs(diffs.mean())
    if observed == 0.0:
        return 1.0, True
    exhaustive = n < 63 and 2**n <= resamples
    if exhaustive:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
    else:
        signs = np.random.default_rng(seed).integers(2, size=(resamples, n)) * 2.0 - 1.0
    means = np.abs(signs @ diffs) / n
    hits = means >= observed - _TOLERANCE * max(1.0, observed)
    return float(hits.mean()), exhaustive


def cohens_dz(base: np.ndarray, system: np.ndarray) -> float | None:
    """Paired effect size: mean difference over the standard deviation of differences."""
    diffs = system - base
    if diffs.size < 2:
        return None
    spread = diffs.std(ddof=1)
    if spread == 0.0:
        return None
    return float(diffs.mean() / spread)
