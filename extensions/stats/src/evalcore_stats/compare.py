"""``evalcore.compare``: paired significance tests of systems against a baseline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import EvalcoreError, InputError, Run, load_runs, metric_of

from . import resample
from . import tests as stat_tests
from ._types import RunLike
from .correct import CORRECTIONS, adjust
from .definitions import require_same_definitions
from .result import TEST_NAMES, Comparison, MetricComparison, TestOutcome

DEFAULT_TESTS = ("bootstrap", "randomization", "ttest", "wilcoxon", "fisher")
DEFAULT_RESAMPLES = {"bootstrap": 1000, "randomization": 10000, "fisher": 10000}
_PER_RECORD_TESTS = ("ttest", "wilcoxon", "fisher")


class RecordMismatchError(EvalcoreError):
    """The runs hold different records and intersecting them was not allowed."""


def compare(
    baseline: RunLike, *systems: RunLike, metrics: Sequence[str] | None = None,
    tests: Sequence[str] | None = None, n_resamples: int | None = None, seed: int = 0,
    correction: str = "holm", alpha: float = 0.05, confidence: float = 0.95,
    intersect: bool = False, names: Sequence[str] | None = None, allow_version_mismatch: bool = False,
) -> Comparison:
    """Compare each system with the baseline on every metric they share, record by record.

    Each run is an :class:`~evalcore.EvaluationResult`, a JSON report (with its samples
    journal) or a samples journal. ``tests`` (default: all of ``bootstrap``,
    ``randomization``, ``ttest``, ``wilcoxon``, ``fisher``) are run in that order; the
    first that applies to a metric decides its significance marker. ``n_resamples``
    overrides the defaults (1000 bootstrap resamples and 10000 randomization trials, as
    sacrebleu; 10000 Fisher assignments). P-values are corrected across all metrics and
    systems (``holm``, ``bonferroni`` or ``none``). Runs over different records raise
    :class:`RecordMismatchError` unless ``intersect=True``, which compares the shared
    records and reports how many were left out. ``names`` labels the runs (default: file
    names, or ``baseline`` / ``system N`` for results in memory). A metric the runs computed
    by different metric versions or different non-identity parameters raises
    :class:`~evalcore_stats.definitions.MetricMismatchError` naming them, unless
    ``allow_version_mismatch=True`` (then each difference is a note).
    """
    if not systems:
        raise InputError("compare needs a baseline and at least one system", field="systems")
    chosen = _check_options(tests, correction, n_resamples, alpha, confidence)
    runs = load_runs([baseline, *systems], names)
    base, others = runs[0], runs[1:]
    metric_ids, notes = _shared_metrics(runs, metrics)
    records = _shared_records(base, others, intersect)
    resamples = {k: n_resamples or v for k, v in DEFAULT_RESAMPLES.items()}
    if tests is None and not stat_tests.scipy_available():
        notes.append("scipy is not installed: t-test and Wilcoxon left out (pip install scipy)")
        chosen = [t for t in chosen if t not in ("ttest", "wilcoxon")]
    notes += require_same_definitions(runs, metric_ids, allow=allow_version_mismatch)
    pairing = _Pairing(base, seed=seed, resamples=resamples, confidence=confidence)
    entries = [
        pairing.compare(metric_id, other, records["systems"][other.name]["ids"], chosen)
        for other in others for metric_id in metric_ids
    ]
    entries = _correct(entries, chosen, correction, alpha)
    for summary in records["systems"].values():
        del summary["ids"]
    options = {"tests": list(chosen), "n_resamples": resamples, "seed": seed, "correction": correction,
               "alpha": alpha, "confidence": confidence, "intersect": intersect,
               "allow_version_mismatch": allow_version_mismatch}
    return Comparison(baseline=base.name, systems=[o.name for o in others], metrics=metric_ids,
                      entries=entries, records=records, options=options, notes=notes)


def _check_options(
    tests: Sequence[str] | None, correction: str, n_resamples: int | None, alpha: float, confidence: float,
) -> list[str]:
    chosen = list(DEFAULT_TESTS if tests is None else tests)
    unknown = [t for t in chosen if t not in TEST_NAMES]
    if unknown or not chosen:
        raise InputError(f"unknown test {unknown[0] if unknown else '(none given)'!r}; use any of "
                         + ", ".join(TEST_NAMES), field="tests")
    if tests is not None and any(t in ("ttest", "wilcoxon") for t in chosen):
        stat_tests.scipy_stats()
    if correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; use one of {', '.join(CORRECTIONS)}",
                         field="correction")
    if n_resamples is not None and n_resamples < 1:
        raise InputError(f"must be at least 1; got {n_resamples}", field="n_resamples")
    for name, value in (("alpha", alpha), ("confidence", confidence)):
        if not 0.0 < value < 1.0:
            raise InputError(f"must be between 0 and 1; got {value}", field=name)
    return list(dict.fromkeys(chosen))


def _shared_metrics(runs: list[Run], requested: Sequence[str] | None) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    if requested is not None:
        for metric_id in requested:
            lacking = [run.name for run in runs if metric_id not in run.metrics]
            if lacking:
                raise InputError(f"metric {metric_id!r} is not in run(s) {', '.join(lacking)}", field="metrics")
        return list(dict.fromkeys(requested)), notes
    shared = [m for m in runs[0].metrics if all(m in run.metrics for run in runs)]
    for run in runs:
        only = [m for m in run.metrics if m not in shared]
        if only:
            notes.append(f"not compared, only in some runs ({run.name}): {', '.join(only)}")
    if not shared:
        raise InputError("the runs share no metric", field="metrics")
    return shared, notes


def _shared_records(base: Run, others: list[Run], intersect: bool) -> dict[str, Any]:
    systems: dict[str, Any] = {}
    problems = []
    for other in others:
        missing = [r for r in base.rows if r not in other.rows]
        extra = [r for r in other.rows if r not in base.rows]
        ids = [r for r in base.rows if r in other.rows]
        systems[other.name] = {"n": len(ids), "only_in_baseline": len(missing), "only_in_system": len(extra),
                               "ids": ids}
        if missing or extra:
            problems.append(f"{other.name} lacks {len(missing)} of the baseline's records"
                            + _examples(missing) + f" and has {len(extra)} the baseline lacks" + _examples(extra)
                            + f" ({len(ids)} shared)")
    if problems and not intersect:
        raise RecordMismatchError("runs hold different records: " + "; ".join(problems)
                                  + "; compare on the shared records with intersect=True (--intersect)")
    return {"baseline": len(base.rows), "systems": systems}


def _examples(ids: list[str]) -> str:
    if not ids:
        return ""
    shown = ", ".join(repr(i) for i in ids[:3])
    return f" ({shown}{', ...' if len(ids) > 3 else ''})"


@attrs.define
class _Pairing:
    """Pairs the baseline's records with a system's and runs the tests on them."""

    base: Run
    seed: int
    resamples: dict[str, int]
    confidence: float
    _metrics: dict[str, Any] = attrs.field(factory=dict)

    def compare(self, metric_id: str, other: Run, ids: list[str], chosen: list[str]) -> MetricComparison:
        corpus = self.base.granularity(metric_id) == "corpus"
        pairs = self._corpus_pairs(metric_id, other, ids) if corpus else self._value_pairs(metric_id, other, ids)
        n = len(pairs[0])
        common = {"metric": metric_id, "system": other.name, "granularity": "corpus" if corpus else "sample",
                  "direction": self.base.direction(metric_id), "n": n, "n_unscored": len(ids) - n}
        note = None
        if n == 0:
            note = "no record scored by both runs"
            if corpus and not any("state" in (row["scores"].get(metric_id) or {}) for row in other.rows.values()):
                note = "the rows carry no per-record corpus states (written by an older evalcore?)"
        elif corpus:
            note = self._corpus_error(metric_id, *pairs)
        if note is not None:
            return MetricComparison(**common, baseline_value=None, system_value=None, difference=None, ci=None,
                                    effect_size=None, effect_size_kind="none",
                                    tests={t: TestOutcome(None, note=note) for t in chosen})
        if corpus:
            return self._corpus(common, metric_id, *pairs, chosen)
        return self._sample(common, *pairs, chosen)

    def _corpus_error(self, metric_id: str, base: list[Any], system: list[Any]) -> str | None:
        """Why a corpus value of either run cannot be computed (``None`` when both can)."""
        metric = self._metric(metric_id)
        for states in (base, system):
            score = metric.corpus_score(states)
            if not score.ok or score.value is None:
                return f"the corpus value cannot be computed: {score.error_message or score.reason}"
        return None

    def _value_pairs(self, metric_id: str, other: Run, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        base, system = [], []
        for record_id in ids:
            a = _ok(self.base.rows[record_id], metric_id)
            b = _ok(other.rows[record_id], metric_id)
            if a is not None and b is not None and a.get("value") is not None and b.get("value") is not None:
                base.append(float(a["value"]))
                system.append(float(b["value"]))
        return np.asarray(base, dtype=float), np.asarray(system, dtype=float)

    def _corpus_pairs(self, metric_id: str, other: Run, ids: list[str]) -> tuple[list[Any], list[Any]]:
        metric = self._metric(metric_id)
        base, system = [], []
        for record_id in ids:
            a = _ok(self.base.rows[record_id], metric_id)
            b = _ok(other.rows[record_id], metric_id)
            if a is not None and b is not None and a.get("state") is not None and b.get("state") is not None:
                base.append(metric.decode_state(a["state"]))
                system.append(metric.decode_state(b["state"]))
        return base, system

    def _metric(self, metric_id: str) -> Any:
        if metric_id not in self._metrics:
            self._metrics[metric_id] = metric_of(self.base, metric_id)
        return self._metrics[metric_id]

    def _sample(self, common: dict[str, Any], base: np.ndarray, system: np.ndarray,
                chosen: list[str]) -> MetricComparison:
        observed = float(system.mean() - base.mean())
        values_of, swapped = resample.mean_values(base, system)
        boot = resample.paired_bootstrap(base.size, observed, values_of, resamples=self.resamples["bootstrap"],
                                         seed=self.seed)
        outcomes: dict[str, TestOutcome] = {}
        for test in chosen:
            if test == "bootstrap":
                outcomes[test] = TestOutcome(boot.p_value)
            elif test == "randomization":
                p = resample.approximate_randomization(base.size, observed, swapped,
                                                       trials=self.resamples["randomization"], seed=self.seed)
                outcomes[test] = TestOutcome(p)
            else:
                outcomes[test] = self._per_record_test(test, base, system)
        return MetricComparison(**common, baseline_value=float(base.mean()), system_value=float(system.mean()),
                                difference=observed, ci=self._interval(boot.differences),
                                effect_size=stat_tests.cohens_dz(base, system), effect_size_kind="cohen_dz",
                                tests=outcomes)

    def _per_record_test(self, test: str, base: np.ndarray, system: np.ndarray) -> TestOutcome:
        if base.size < 2:
            return TestOutcome(None, note="needs at least two records")
        if test == "fisher":
            p, exhaustive = stat_tests.fisher_randomization(base, system, resamples=self.resamples["fisher"],
                                                            seed=self.seed)
            return TestOutcome(p, note="exhaustive" if exhaustive else None)
        run: Callable[[np.ndarray, np.ndarray], tuple[float, float]] = (
            stat_tests.paired_t_test if test == "ttest" else stat_tests.wilcoxon)
        statistic, p = run(base, system)
        return TestOutcome(p, statistic=statistic)

    def _corpus(self, common: dict[str, Any], metric_id: str, base: list[Any], system: list[Any],
                chosen: list[str]) -> MetricComparison:
        metric = self._metric(metric_id)

        def value_of(states: Sequence[Any]) -> float:
            score = metric.corpus_score(states)
            return float(score.value) if score.ok and score.value is not None else float("nan")

        base_value, system_value = value_of(base), value_of(system)
        observed = system_value - base_value
        stacked_base, stacked_system = metric.stack(base), metric.stack(system)
        if stacked_base is not None and stacked_system is not None:
            values_of, swapped = resample.declared_values(stacked_base, stacked_system, metric.values)
        else:
            values_of, swapped = resample.corpus_values(base, system, value_of, metric.merge)
        boot = None
        if metric.bootstrap:
            boot = resample.paired_bootstrap(len(base), observed, values_of,
                                             resamples=self.resamples["bootstrap"], seed=self.seed)
        outcomes: dict[str, TestOutcome] = {}
        for test in chosen:
            if test == "bootstrap":
                outcomes[test] = (TestOutcome(boot.p_value) if boot is not None else
                                  TestOutcome(None, note="this metric opts out of bootstrap resampling"))
            elif test == "randomization":
                p = resample.approximate_randomization(len(base), observed, swapped,
                                                       trials=self.resamples["randomization"], seed=self.seed)
                outcomes[test] = TestOutcome(p)
            else:
                outcomes[test] = TestOutcome(None, note="needs per-record values; a corpus metric is "
                                                         "compared by resampling its per-record statistics")
        effect = None
        if boot is not None and np.isfinite(boot.differences).all():
            spread = float(boot.differences.std(ddof=1))
            effect = observed / spread if spread > 0 else None
        return MetricComparison(**common, baseline_value=base_value, system_value=system_value,
                                difference=observed, ci=self._interval(boot.differences) if boot else None,
                                effect_size=effect, effect_size_kind="difference / bootstrap sd",
                                tests=outcomes)

    def _interval(self, differences: np.ndarray) -> tuple[float, float] | None:
        if not np.isfinite(differences).all():
            return None
        tail = (1.0 - self.confidence) / 2.0
        low, high = np.quantile(differences, [tail, 1.0 - tail])
        return float(low), float(high)


def _ok(row: dict[str, Any], metric_id: str) -> dict[str, Any] | None:
    score = row["scores"].get(metric_id)
    if not isinstance(score, dict) or score.get("status", "ok") != "ok":
        return None
    return score


def _correct(entries: list[MetricComparison], chosen: list[str], method: str, alpha: float) -> list[MetricComparison]:
    """Adjust each test's p-values across all metrics and systems; mark significance."""
    adjusted: dict[tuple[int, str], float] = {}
    for test in chosen:
        family = [(i, e.tests[test].p_value) for i, e in enumerate(entries) if e.tests[test].p_value is not None]
        for (i, _), p in zip(family, adjust([p for _, p in family], method)):
            adjusted[(i, test)] = p
    out = []
    for i, entry in enumerate(entries):
        outcomes = {t: attrs.evolve(o, p_adjusted=adjusted.get((i, t))) for t, o in entry.tests.items()}
        decided_by = next((t for t in chosen if outcomes[t].p_adjusted is not None), None)
        significant = decided_by is not None and outcomes[decided_by].p_adjusted < alpha
        out.append(attrs.evolve(entry, tests=outcomes, decided_by=decided_by, significant=bool(significant)))
    return out
