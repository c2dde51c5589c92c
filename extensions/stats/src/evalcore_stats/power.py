"""How many records a paired comparison needs: the power of the paired t-test.

The paired t-test is a one-sample t-test on the per-record differences. With ``n`` records,
standardised effect ``d = difference / sd`` (``sd``: the standard deviation of the paired
differences) and ``df = n - 1``, its power is

    two-sided:  P(T > t(1 - alpha/2, df)) + P(T < t(alpha/2, df))
    one-sided:  P(T > t(1 - alpha, df))

where ``T`` follows the noncentral t distribution with ``df`` degrees of freedom and
noncentrality ``d * sqrt(n)``, as statsmodels' ``ttest_power``. The records needed are the ``n``
where the power reaches the target (solved as statsmodels' ``TTestPower().solve_power``, then
rounded up); the minimum detectable effect at ``n`` is the difference where it does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import InputError, load_runs

from ._types import RunLike
from .tests import scipy_stats

_ALTERNATIVES = ("two-sided", "one-sided")


def ttest_power(effect: float, n: float, alpha: float, alternative: str = "two-sided") -> float:
    """Power of the paired (one-sample) t-test for standardised effect ``effect`` with ``n`` records."""
    stats = scipy_stats()
    df = n - 1.0
    nc = effect * math.sqrt(n)
    if alternative == "two-sided":
        upper = stats.t.isf(alpha / 2.0, df)
        lower = stats.t.ppf(alpha / 2.0, df)
        return _above(df, nc, upper) + _cdf(df, nc, lower)
    return _above(df, nc, stats.t.isf(alpha, df))


def _cdf(df: float, nc: float, x: float) -> float:
    """The noncentral t distribution function; far in a tail, where scipy can answer NaN for a
    probability that is 0 or 1 to double precision, the side of the noncentrality decides."""
    from scipy import special

    value = float(special.nctdtr(df, nc, x))
    if math.isnan(value):
        return 0.0 if x < nc else 1.0
    return value


def _above(df: float, nc: float, x: float) -> float:
    return 1.0 - _cdf(df, nc, x)


def _solve(fn: Any, low: float, high: float) -> float:
    """The root of increasing ``fn`` above ``low``: the upper end doubles until it brackets it."""
    from scipy import optimize

    while fn(high) < 0.0:
        low, high = high, high * 2.0
        if high > 1e12:
            raise InputError("no finite solution: the difference or the spread is too small", field="difference")
    return float(optimize.brentq(fn, low, high, xtol=1e-12, rtol=1e-14, maxiter=500))


def records_needed(effect: float, alpha: float, power: float, alternative: str = "two-sided") -> float:
    """The (fractional) number of records at which the test's power is ``power``."""
    effect = abs(effect)
    low = 2.0
    if ttest_power(effect, low, alpha, alternative) >= power:
        return low
    return _solve(lambda n: ttest_power(effect, n, alpha, alternative) - power, low, 16.0)


def detectable_effect(n: float, alpha: float, power: float, alternative: str = "two-sided") -> float:
    """The smallest standardised effect the test detects with ``n`` records at ``power``."""
    from statistics import NormalDist

    sides = 2.0 if alternative == "two-sided" else 1.0
    guess = (NormalDist().inv_cdf(1 - alpha / sides) + NormalDist().inv_cdf(power)) / math.sqrt(n)
    return _solve(lambda d: ttest_power(d, n, alpha, alternative) - power, 0.0, 2.0 * guess)


@attrs.frozen
class SamplePlan:
    """What :func:`plan_sample_size` returns."""

    sd: float
    alpha: float
    power: float
    alternative: str
    difference: float | None
    n_required: int | None
    n_exact: float | None
    power_at_required: float | None
    n: int | None
    detectable: float | None
    source: str
    metric: str | None = None
    observed_difference: float | None = None

    @property
    def effect(self) -> float | None:
        return None if self.difference is None else abs(self.difference) / self.sd

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "sd": self.sd, "source": self.source, "alpha": self.alpha, "power": self.power,
            "alternative": self.alternative, "difference": self.difference, "effect_size": self.effect,
            "n_required": self.n_required, "n_exact": self.n_exact, "power_at_required": self.power_at_required,
            "n": self.n, "detectable_difference": self.detectable, "observed_difference": self.observed_difference,
        }

    def lines(self) -> list[str]:
        test = f"a {self.alternative} paired t-test at alpha {self.alpha:g} and power {self.power:g}"
        out = [f"{self.metric + ': ' if self.metric else ''}sd of the paired differences {self.sd:.4g} ({self.source})"]
        if self.n_required is not None and self.difference is not None:
            out.append(f"to detect a difference of {abs(self.difference):.4g} (d = {self.effect:.3g}) with {test}: "
                       f"{self.n_required} records (power {self.power_at_required:.3f})")
        if self.detectable is not None:
            out.append(f"with {self.n} records, the smallest difference {test} detects is {self.detectable:.4g}")
        return out

    def table(self) -> str:
        return "\n".join(self.lines())


def plan_sample_size(
    difference: float | None = None, *, sd: float | None = None, pilot: Sequence[RunLike] | None = None,
    metric: str | None = None, n: int | None = None, alpha: float = 0.05, power: float = 0.8,
    alternative: str = "two-sided",
) -> SamplePlan:
    """Records needed to detect ``difference`` between two systems with the paired t-test, and the
    smallest difference ``n`` records detect.

    The spread comes from ``sd`` (the standard deviation of the paired per-record differences) or
    from ``pilot``, two runs (baseline, system) over the same records whose paired differences of
    ``metric`` give it (and ``n``, and, when ``difference`` is not given, the difference to plan
    for: the pilot's observed one). ``alternative`` is ``"two-sided"`` or ``"one-sided"``. The
    numbers are statsmodels' ``TTestPower().solve_power`` with the records rounded up.
    """
    if alternative not in _ALTERNATIVES:
        raise InputError(f"use one of {', '.join(_ALTERNATIVES)}; got {alternative!r}", field="alternative")
    for name, value in (("alpha", alpha), ("power", power)):
        if not 0.0 < value < 1.0:
            raise InputError(f"must be between 0 and 1; got {value}", field=name)
    if power <= alpha:
        raise InputError(f"must be above alpha ({alpha:g}); got {power:g}", field="power")
    if (sd is None) == (pilot is None):
        raise InputError("give the standard deviation of the paired differences or a pilot (two runs), one of them",
                         field="sd")
    observed = None
    if pilot is not None:
        metric, diffs = _pilot_differences(pilot, metric)
        sd = float(np.std(diffs, ddof=1))
        observed = float(np.mean(diffs))
        n = len(diffs) if n is None else n
        source = f"pilot of {len(diffs)} records"
        if difference is None and observed != 0.0:
            difference = observed
    else:
        source = "stated"
    assert sd is not None
    if not (math.isfinite(sd) and sd > 0.0):
        raise InputError(f"the standard deviation of the paired differences must be above 0; got {sd}", field="sd")
    if difference is not None and not (math.isfinite(difference) and difference != 0.0):
        raise InputError(f"must be a non-zero number; got {difference}", field="difference")
    if n is not None and n < 2:
        raise InputError(f"must be at least 2; got {n}", field="n")
    if difference is None and n is None:
        raise InputError("give the difference to detect, or a number of records for the detectable difference",
                         field="difference")
    n_exact = n_required = achieved = None
    if difference is not None:
        n_exact = records_needed(difference / sd, alpha, power, alternative)
        n_required = math.ceil(n_exact - 1e-9)
        achieved = ttest_power(abs(difference) / sd, n_required, alpha, alternative)
    detectable = None if n is None else detectable_effect(n, alpha, power, alternative) * sd
    return SamplePlan(sd=sd, alpha=alpha, power=power, alternative=alternative, difference=difference,
                      n_required=n_required, n_exact=n_exact, power_at_required=achieved, n=n,
                      detectable=detectable, source=source, metric=metric, observed_difference=observed)


def _pilot_differences(pilot: Sequence[RunLike], metric: str | None) -> tuple[str, np.ndarray]:
    if isinstance(pilot, (str, bytes)) or len(pilot) != 2:
        raise InputError("a pilot is two runs over the same records: baseline and system", field="pilot")
    base, other = load_runs(list(pilot))
    shared = [m for m in base.metrics if m in other.metrics
              and base.granularity(m) == "sample" and other.granularity(m) == "sample"]
    if metric is None:
        if len(shared) != 1:
            raise InputError(f"the pilot runs share {len(shared)} per-record metrics; choose one"
                             + (f" of {', '.join(shared)}" if shared else ""), field="metric")
        metric = shared[0]
    elif metric not in shared:
        raise InputError(f"metric {metric!r} is not a per-record metric of both pilot runs", field="metric")
    diffs = []
    for record_id, row in base.rows.items():
        if record_id not in other.rows:
            continue
        a, b = row["scores"].get(metric), other.rows[record_id]["scores"].get(metric)
        if all(isinstance(s, dict) and s.get("status", "ok") == "ok" and s.get("value") is not None for s in (a, b)):
            diffs.append(float(b["value"]) - float(a["value"]))
    if len(diffs) < 2:
        raise InputError(f"the pilot runs share {len(diffs)} scored record(s) of {metric}; at least 2 are needed",
                         field="pilot")
    return metric, np.asarray(diffs, dtype=float)
