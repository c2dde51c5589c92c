"""Prediction-powered inference: a judge's scores on every record, corrected by labels on some.

A judge (or any cheap proxy metric) scores all ``N + n`` records; a trusted label (a human's, or
a truth-tier metric) exists for ``n`` of them. Following Angelopoulos et al., "Prediction-powered
inference" (Science, 2023), with the power tuning of PPI++ (Angelopoulos, Duchi and Zrnic, 2023),
the mean of the labels over all records is estimated as

    theta = lam * mean(f unlabelled) + mean(Y - lam * f labelled)

where ``f`` is the judge's score and ``Y`` the label; its standard error is

    se = sqrt(var(lam * f unlabelled) / N + var(Y - lam * f labelled) / n)

(variances with divisor N and n) and the interval is ``theta -/+ z(1 - alpha/2) * se``. ``lam = 1``
is classic PPI, ``lam = 0`` the labelled records alone; by default ``lam`` is the value that
minimises the variance, ``cov(Y, f) / ((1 + n / N) * var(f))`` over the labelled pairs (covariance
with divisor n) and the judge's scores on all records (variance with divisor N + n - 1), clipped to
[0, 1]. These are ppi_py's ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (tested against it).
A judge whose scores are all equal carries no information: its ``lam`` is 0 (ppi_py gives NaN).

The unlabelled records are those without a label, so the two parts are independent samples.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import InputError, Run, load_run

from ._types import RunLike
from .labels import LabelSets, bind_labels, metric_range, read_labels

EXPLANATION = ("Prediction-powered inference (PPI) estimates a metric's mean over all records from its scores "
               "on every record, corrected by how far the labels differ from the scores on the labelled records; "
               "lam is the weight given to the scores (0: the labels alone, 1: the full correction; by default "
               "the weight that makes the interval narrowest).")
"""What a prediction-powered estimate is, in one plain sentence, shown wherever one is."""

_ALTERNATIVES = ("two-sided", "larger", "smaller")


@attrs.frozen
class MeanEstimate:
    """A mean with its standard error and confidence interval."""

    value: float
    se: float
    ci: tuple[float, float]
    lam: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"value": self.value, "se": self.se, "ci": list(self.ci)}
        if self.lam is not None:
            data["lam"] = self.lam
        return data


def tuned_lam(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """The ``lam`` of least variance (PPI++), clipped to [0, 1]; 0 when the judge's scores are all equal."""
    n, big_n = len(y), len(yhat_unlabelled)
    if big_n == 0 or n == 0:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    scores = np.concatenate([yhat, yhat_unlabelled])
    variance = float(np.var(scores, ddof=1)) if len(scores) > 1 else 0.0
    if not variance > 0.0:
        return 0.0
    return float(np.clip(covariance / ((1.0 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(
    y: Sequence[float], yhat: Sequence[float], yhat_unlabelled: Sequence[float], *, alpha: float = 0.05,
    lam: float | None = None, alternative: str = "two-sided",
) -> MeanEstimate:
    """The prediction-powered estimate of a mean and its interval (``lam=None``: tuned)."""
    labels, judged, unlabelled = (np.asarray(v, dtype=float).ravel() for v in (y, yhat, yhat_unlabelled))
    if len(labels) != len(judged):
        raise InputError(f"{len(labels)} labels for {len(judged)} judged scores", field="labels")
    if len(labels) < 2:
        raise InputError(f"needs at least 2 labelled records; got {len(labels)}", field="labels")
    _check_alpha(alpha)
    if lam is None:
        lam = tuned_lam(labels, judged, unlabelled)
    elif not math.isfinite(lam):
        raise InputError(f"must be a finite number; got {lam}", field="lam")
    lam = float(lam)
    if len(unlabelled) == 0:
        lam = 0.0
        imputed_mean = imputed_var = 0.0
    else:
        imputed_mean = float(np.mean(lam * unlabelled))
        imputed_var = float(np.var(lam * unlabelled)) / len(unlabelled)
    rectifier = labels - lam * judged
    value = imputed_mean + float(np.mean(rectifier))
    se = math.sqrt(imputed_var + float(np.var(rectifier)) / len(labels))
    return MeanEstimate(value, se, normal_interval(value, se, alpha, alternative), lam)


def classical_mean(y: Sequence[float], *, alpha: float = 0.05, alternative: str = "two-sided") -> MeanEstimate:
    """The mean of the labels alone with its normal interval (ppi_py's ``classical_mean_ci``)."""
    labels = np.asarray(y, dtype=float).ravel()
    if len(labels) < 2:
        raise InputError(f"needs at least 2 labelled records; got {len(labels)}", field="labels")
    _check_alpha(alpha)
    value = float(labels.mean())
    se = float(labels.std()) / math.sqrt(len(labels))
    return MeanEstimate(value, se, normal_interval(value, se, alpha, alternative))


def normal_interval(value: float, se: float, alpha: float, alternative: str = "two-sided") -> tuple[float, float]:
    """``value -/+ z * se`` as statsmodels' ``_zconfint_generic`` (one-sided: an infinite end)."""
    if alternative not in _ALTERNATIVES:
        raise InputError(f"use one of {', '.join(_ALTERNATIVES)}; got {alternative!r}", field="alternative")
    if alternative == "two-sided":
        z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
        return value - z * se, value + z * se
    if alternative == "larger":
        return value + NormalDist().inv_cdf(alpha) * se, math.inf
    return -math.inf, value + NormalDist().inv_cdf(1.0 - alpha) * se


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise InputError(f"must be between 0 and 1; got {alpha}", field="alpha")


@attrs.frozen
class PPIEntry:
    """One metric: the judge alone, the labels alone, and the prediction-powered estimate.

    With two runs every number is of the difference system - baseline.
    """

    metric: str
    n_judged: int
    n_labelled: int
    judge_mean: float | None
    labelled: MeanEstimate | None
    ppi: MeanEstimate | None
    note: str | None = None
    lams: tuple[float, ...] = ()
    """The ``lam`` of each run's estimate."""
    difference: bool = False
    range_note: str | None = None
    """Whether the intervals were clipped to the metric's range (or why they could not be)."""

    @property
    def correction(self) -> float | None:
        """PPI estimate - judge mean: how far the labels move the judge's number."""
        if self.ppi is None or self.judge_mean is None:
            return None
        return self.ppi.value - self.judge_mean

    @property
    def narrower(self) -> float | None:
        """1 - (PPI interval width / labelled-only width): the share of the interval the judge saves."""
        if self.ppi is None or self.labelled is None or self.labelled.se == 0.0:
            return None
        return 1.0 - self.ppi.se / self.labelled.se

    def sentence(self) -> str:
        if self.note is not None:
            return self.note
        correction, narrower = self.correction, self.narrower
        assert correction is not None
        if abs(correction) < 5e-13:
            moved = "the labels confirm the judge's mean"
        else:
            verb = "overstates" if correction < 0 else "understates"
            moved = f"the judge {verb}{' the difference' if self.difference else ''} by {abs(correction):.3g}"
        labels = f"the {self.n_labelled} labels alone"
        if narrower is None:
            return f"{moved}; the labels alone have no spread"
        if narrower >= 0:
            return f"{moved}; the interval is {100 * narrower:.0f} % narrower than {labels}"
        return f"{moved}; the interval is {-100 * narrower:.0f} % wider than {labels}"

    def line(self) -> str:
        """What the labels corrected and by how much, in one line: judge mean -> prediction-powered
        estimate with its interval and label count (labelled-only mean with its interval)."""
        if self.ppi is None or self.labelled is None or self.judge_mean is None:
            return f"{self.metric}: {self.sentence()}"
        what = "difference" if self.difference else "mean"
        return (f"{self.metric}: judge {what} {self.judge_mean:.4f} → prediction-powered {self.ppi.value:.4f} "
                f"{_ci(self.ppi.ci)} from {self.n_labelled} labels (labelled-only {what} {self.labelled.value:.4f} "
                f"{_ci(self.labelled.ci)}); {self.sentence()}"
                + (f"; {self.range_note}" if self.range_note else ""))

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "n_judged": self.n_judged, "n_labelled": self.n_labelled,
            "judge_mean": self.judge_mean, "labelled": None if self.labelled is None else self.labelled.to_dict(),
            "ppi": None if self.ppi is None else self.ppi.to_dict(), "correction": self.correction,
            "narrower": self.narrower, "lam": list(self.lams), "summary": self.sentence(), "note": self.note,
            "range_note": self.range_note,
        }


@attrs.frozen
class PPIResult:
    """What :func:`ppi` returns: one entry per judged metric."""

    runs: list[str]
    entries: list[PPIEntry]
    options: dict[str, Any]
    notes: list[str] = attrs.field(factory=list)

    @property
    def explanation(self) -> str:
        """What a prediction-powered estimate and its ``lam`` are, in one plain sentence."""
        return EXPLANATION

    def entry(self, metric: str) -> PPIEntry:
        for entry in self.entries:
            if entry.metric == metric:
                return entry
        raise KeyError(metric)

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.runs, "options": self.options, "entries": [e.to_dict() for e in self.entries],
                "notes": self.notes, "explanation": EXPLANATION}

    def table(self) -> str:
        level = f"{100 * (1 - self.options['alpha']):g} %"
        what = f"{self.runs[1]} - {self.runs[0]}" if len(self.runs) == 2 else self.runs[0]
        lines = [f"prediction-powered inference ({what}; {level} intervals)", EXPLANATION]
        for e in self.entries:
            lines.append(f"{e.metric}  (judged {e.n_judged}, labelled {e.n_labelled})")
            if e.ppi is not None and e.labelled is not None:
                lines.append(f"  judge only      {e.judge_mean:.4f}")
                lines.append(f"  labelled only   {e.labelled.value:.4f}  {_ci(e.labelled.ci)}")
                lams = ", ".join(f"{x:.3f}" for x in e.lams)
                lines.append(f"  PPI             {e.ppi.value:.4f}  {_ci(e.ppi.ci)}  lam={lams}")
            lines.append(f"  {e.sentence()}")
            if e.range_note:
                lines.append(f"  {e.range_note}")
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)


def _ci(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def ppi(
    run: RunLike, labels: Any, *, system: RunLike | None = None, system_labels: Any = None,
    metrics: Sequence[str] | None = None, alpha: float = 0.05, lam: float | None = None,
) -> PPIResult:
    """Prediction-powered estimates of each judged metric's mean from a run and labels on some records.

    ``run`` is an :class:`~evalcore.EvaluationResult`, a JSON report (with its samples journal) or
    a journal; ``labels`` a JSONL file of ``{"id": ..., "label": number}`` lines (each optionally
    naming its ``"metric"``) or a mapping (``{id: number}`` or ``{metric: {id: number}}``), on the
    metric's scale (a label outside the metric's range is an error). Labels apply to the metrics
    they name; those naming none to ``metrics``, or to the run's only per-record metric (with
    several, they are refused). For each labelled metric the result holds the judge's mean over all
    its records, the mean and interval of the labelled records alone, and the prediction-powered
    estimate and interval (``lam=None``: tuned as PPI++; ``lam=1``: classic PPI), at level
    ``1 - alpha``, the intervals clipped to the metric's range. An estimate that overflows is an error.

    With ``system`` (and its ``system_labels``), every number is of the difference system -
    baseline. Each run's estimate is made from its own labels, and the two are taken as
    independent: the standard error of the difference is ``sqrt(se_baseline**2 + se_system**2)``.
    Where both runs score the same records, their errors are usually positively correlated and
    the interval is then conservative.
    """
    _check_alpha(alpha)
    if lam is not None and not (math.isfinite(lam) and lam >= 0):
        raise InputError(f"must be a number of at least 0; got {lam}", field="lam")
    runs = [load_run(run)]
    label_sets: list[LabelSets] = [read_labels(labels, "labels")]
    if system is not None:
        if system_labels is None:
            raise InputError("a second run needs its own labels", field="system_labels")
        other = load_run(system, index=1)
        if other.name == runs[0].name:
            other = attrs.evolve(other, name=f"{other.name} (2)")
        runs.append(other)
        label_sets.append(read_labels(system_labels, "system_labels"))
    elif system_labels is not None:
        raise InputError("system_labels without a system", field="system_labels")
    bound = [bind_labels(sets, run_, metrics, field)
             for sets, run_, field in zip(label_sets, runs, ("labels", "system_labels"))]
    chosen = list(bound[0])
    if len(bound) == 2 and set(bound[1]) != set(chosen):
        raise InputError(f"the baseline's labels are for {', '.join(chosen)} and the system's for "
                         f"{', '.join(bound[1])}; label the same metrics in both runs", field="system_labels")
    notes: list[str] = []
    for run_, own in zip(runs, bound):
        unknown = sorted({key for by_id in own.values() for key in by_id if key not in run_.rows})
        if unknown:
            notes.append(f"{len(unknown)} labelled record(s) are not in {run_.name} and are left out"
                         f" ({', '.join(repr(u) for u in unknown[:3])}{', ...' if len(unknown) > 3 else ''})")
    entries = []
    for metric in chosen:
        parts = [_one(run_, own[metric], metric, alpha, lam) for run_, own in zip(runs, bound)]
        entries.append(parts[0] if len(parts) == 1 else _difference(parts, alpha, metric_range(runs[0], metric)))
    options = {"alpha": alpha, "lam": lam, "independent_samples": len(runs) == 2}
    return PPIResult(runs=[r.name for r in runs], entries=entries, options=options, notes=notes)


def ppi_differences(
    baseline: RunLike, systems: Sequence[RunLike], labels: Any, *, metrics: Sequence[str] | None = None,
    alpha: float = 0.05,
) -> list[PPIResult]:
    """The prediction-powered estimate of each system's difference from ``baseline`` (``compare --labels``).

    ``labels``: one labels file or mapping for every run, or a sequence of one per run, baseline first.
    """
    given = [labels] if isinstance(labels, (str, os.PathLike, Mapping)) else list(labels)
    if len(given) == 1:
        given *= 1 + len(systems)
    if len(given) != 1 + len(systems):
        raise InputError(f"give labels once for every run or once per run: {1 + len(systems)} runs, "
                         f"{len(given)} labels", field="labels")
    base = load_run(baseline)
    return [ppi(base, given[0], system=system, system_labels=own, metrics=metrics, alpha=alpha)
            for system, own in zip(systems, given[1:])]


def _values(run: Run, metric: str) -> dict[str, float]:
    out = {}
    for record_id, row in run.rows.items():
        score = row["scores"].get(metric)
        if isinstance(score, dict) and score.get("status", "ok") == "ok" and score.get("value") is not None:
            out[record_id] = float(score["value"])
    return out


def _one(run: Run, labels: dict[str, float], metric: str, alpha: float, lam: float | None) -> PPIEntry:
    judged = _values(run, metric)
    labelled_ids = [key for key in judged if key in labels]
    y = np.array([labels[key] for key in labelled_ids], dtype=float)
    yhat = np.array([judged[key] for key in labelled_ids], dtype=float)
    unlabelled = np.array([v for key, v in judged.items() if key not in labels], dtype=float)
    judge_mean = float(np.mean(list(judged.values()))) if judged else None
    if len(y) < 2:
        return PPIEntry(metric, len(judged), len(y), judge_mean, None, None,
                        note=f"{run.name}: {len(y)} labelled record(s) scored by the metric; at least 2 are needed")
    note = None if len(unlabelled) else "every scored record is labelled: the estimate is the labels' mean"
    with np.errstate(all="ignore"):  # an overflow is refused below, by name
        estimate = ppi_mean(y, yhat, unlabelled, alpha=alpha, lam=lam)
        labelled = classical_mean(y, alpha=alpha)
    _check_finite(metric, run.name, estimate)
    bounds = metric_range(run, metric)
    (estimate, labelled), range_note = _clipped((estimate, labelled), bounds, metric)
    assert estimate.lam is not None
    return PPIEntry(metric, len(judged), len(y), judge_mean, labelled, estimate, note=note,
                    lams=(estimate.lam,), range_note=range_note)


def _check_finite(metric: str, name: str, estimate: MeanEstimate) -> None:
    """Refuse an estimate that overflowed (labels or scores too large for a variance in floating point)."""
    numbers = (estimate.value, estimate.se, estimate.lam if estimate.lam is not None else 0.0)
    if not all(math.isfinite(x) for x in numbers):
        raise InputError(f"{name}: the prediction-powered estimate overflows (value {estimate.value:g}, standard "
                         f"error {estimate.se:g}, lam {estimate.lam:g}): the labels or scores are too large to "
                         "estimate with; rescale them", field=metric)


def _clipped(estimates: tuple[MeanEstimate, ...], bounds: tuple[float | None, float | None] | None,
             metric: str) -> tuple[tuple[MeanEstimate, ...], str | None]:
    """``estimates`` with their intervals clipped to ``bounds``, and a note when that changed one or
    when the range is unknown."""
    if bounds is None:
        return estimates, f"intervals not clipped to the metric's range: {metric}'s plugin is not installed"
    low = -math.inf if bounds[0] is None else bounds[0]
    high = math.inf if bounds[1] is None else bounds[1]
    out = tuple(attrs.evolve(e, ci=(min(max(e.ci[0], low), high), max(min(e.ci[1], high), low)))
                for e in estimates)
    if out == estimates:
        return estimates, None
    return out, f"intervals clipped to the metric's range ({_bounds(bounds)})"


def _bounds(bounds: tuple[float | None, float | None]) -> str:
    low, high = bounds
    return f"{'-∞' if low is None else f'{low:g}'} to {'∞' if high is None else f'{high:g}'}"


def _difference(parts: list[PPIEntry], alpha: float, bounds: tuple[float | None, float | None] | None) -> PPIEntry:
    base, system = parts
    metric = base.metric
    failed = next((p.note for p in parts if p.ppi is None), None)
    delta = (None if base.judge_mean is None or system.judge_mean is None
             else system.judge_mean - base.judge_mean)
    counts = {"n_judged": base.n_judged + system.n_judged, "n_labelled": base.n_labelled + system.n_labelled}
    if failed is not None:
        return PPIEntry(metric, **counts, judge_mean=delta, labelled=None, ppi=None, note=failed, difference=True)

    def minus(a: MeanEstimate, b: MeanEstimate, lam: float | None) -> MeanEstimate:
        value, se = a.value - b.value, math.hypot(a.se, b.se)
        return MeanEstimate(value, se, normal_interval(value, se, alpha), lam)

    assert base.ppi is not None and system.ppi is not None and base.labelled and system.labelled
    width = None if bounds is None or None in bounds else bounds[1] - bounds[0]  # type: ignore[operator]
    spread = (None, None) if width is None else (-width, width)
    (labelled, estimate), range_note = _clipped(
        (minus(system.labelled, base.labelled, None), minus(system.ppi, base.ppi, None)),
        None if bounds is None else spread, metric)
    return PPIEntry(metric, **counts, judge_mean=delta, labelled=labelled, ppi=estimate,
                    note=base.note or system.note, lams=(*base.lams, *system.lams), difference=True,
                    range_note=range_note)
