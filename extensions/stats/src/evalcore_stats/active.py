"""Active statistical inference: labels drawn where the judge is least sure, and an estimate that stays unbiased.

Following Zrnic and Candès, "Active Statistical Inference" (ICML 2024). A judge scores all ``N``
records (``f_i``); a person labels some (``Y_i``). Each label is a draw: record ``i`` is drawn with
probability ``p_i``, proportional to the judge's uncertainty ``u_i`` and mixed with the uniform
draw so that no record is left out,

    p_i = (1 - eps) * u_i / sum(u) + eps / N        (so p_i >= eps / N)

After ``T`` draws (with replacement; a record drawn again keeps the label it has, at no cost),
record ``i`` is drawn ``xi_i`` times with ``E[xi_i] = pi_i = T * p_i``, and the paper's
inverse-probability-weighted estimator of the mean label over all records is

    theta = mean_i(f_i) + (1 / N) * sum_i (Y_i - f_i) * xi_i / pi_i

the same as the mean over the draws ``t`` of ``z_t = mean(f) + (Y_t - f_t) / (N * p_t)``. The
draws are independent and each ``z_t`` is unbiased, so ``theta`` is unbiased whatever the ``p_i``
are, and its standard error is ``sd(z) / sqrt(T)`` (sample standard deviation, divisor ``T - 1``);
the interval is ``theta -/+ z(1 - alpha/2) * se``. The closer ``p_i`` is to ``|Y_i - f_i|``, the
narrower the interval: the paper's optimal rule draws in proportion to the expected error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import InputError

from .ppi import normal_interval


@attrs.frozen
class ActiveEstimate:
    """The active estimate of a mean: value, standard error, interval, and the draws and labels it used."""

    value: float
    se: float
    ci: tuple[float, float]
    draws: int
    labelled: int
    alpha: float = 0.05

    @property
    def width(self) -> float:
        """The interval's width."""
        return self.ci[1] - self.ci[0]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "se": self.se, "ci": list(self.ci), "width": self.width, "draws": self.draws,
                "labelled": self.labelled, "alpha": self.alpha}


def active_probabilities(uncertainty: Sequence[float | None], *, eps: float = 0.2) -> np.ndarray:
    """Each record's draw probability: its share of the judge's ``uncertainty`` mixed with the uniform
    draw (weight ``eps``), so every probability is at least ``eps / N``. A record with no uncertainty
    (``None``) counts the mean of the others'; when none is above 0 the draw is uniform."""
    if not 0.0 < eps <= 1.0:
        raise InputError(f"must be above 0 and at most 1; got {eps}", field="eps")
    n = len(uncertainty)
    if n == 0:
        raise InputError("no records to draw from", field="uncertainty")
    known = [float(u) for u in uncertainty if u is not None]
    if any(not math.isfinite(u) or u < 0 for u in known):
        raise InputError("uncertainties must be finite numbers of at least 0", field="uncertainty")
    fill = float(np.mean(known)) if known else 0.0
    u = np.array([fill if v is None else float(v) for v in uncertainty])
    total = float(u.sum())
    share = u / total if total > 0 else np.full(n, 1.0 / n)
    return (1.0 - eps) * share + eps / n


def active_mean(yhat: Sequence[float], draws: Sequence[int], labels: Mapping[int, float],
                probabilities: Sequence[float], *, alpha: float = 0.05) -> ActiveEstimate:
    """The active estimate of the mean label over all records, from the judge's scores ``yhat`` on every
    record, the records drawn in order (``draws``, positions in ``yhat``), each drawn record's label
    (``labels`` by position) and the probabilities the draws were made with."""
    f = np.asarray(yhat, dtype=float).ravel()
    p = np.asarray(probabilities, dtype=float).ravel()
    if len(p) != len(f):
        raise InputError(f"{len(p)} probabilities for {len(f)} judged records", field="probabilities")
    if len(draws) < 2:
        raise InputError(f"needs at least 2 draws; got {len(draws)}", field="draws")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"must be between 0 and 1; got {alpha}", field="alpha")
    missing = sorted({i for i in draws if i not in labels})
    if missing:
        raise InputError(f"{len(missing)} drawn records have no label (first: position {missing[0]})", field="labels")
    drawn = np.asarray(draws, dtype=int)
    if drawn.min() < 0 or drawn.max() >= len(f) or not np.all(p[drawn] > 0):
        raise InputError("a draw names a record outside the judged records or one drawn with probability 0",
                         field="draws")
    y = np.array([float(labels[int(i)]) for i in drawn])
    terms = f.mean() + (y - f[drawn]) / (len(f) * p[drawn])
    value = float(terms.mean())
    se = float(terms.std(ddof=1)) / math.sqrt(len(terms))
    return ActiveEstimate(value, se, normal_interval(value, se, alpha), len(terms), len(set(draws)), alpha)


def labels_needed(estimate: ActiveEstimate, width: float) -> int:
    """How many more draws bring the interval to ``width``, from the current variance estimate: the
    ``T`` with ``2 * z * sd / sqrt(T) <= width``, less the draws made (0 when already there). A draw
    of a record already labelled costs no label, so this is at most the labels still to give."""
    if not width > 0:
        raise InputError(f"must be above 0; got {width}", field="width")
    sd = estimate.se * math.sqrt(estimate.draws)
    z = NormalDist().inv_cdf(1.0 - estimate.alpha / 2.0)
    return max(0, math.ceil((2.0 * z * sd / width) ** 2) - estimate.draws)
