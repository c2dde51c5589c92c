"""``evalcore.gate``: pass/fail rules over a saved run, for CI jobs and tests.

A rule is a bound on a metric's value (``at_least`` / ``at_most``) or "no worse than a
baseline" on a metric, decided by the paired tests and correction of :func:`compare`: it fails
only on a significant regression. The outcome prints as lines, GitHub Actions' job-summary
markdown, JUnit XML or JSON.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore.plugin import InputError, Run, load_run, metric_of

from ._types import RunLike
from .compare import compare
from .definitions import require_same_definitions
from .result import TEST_NAMES, MetricComparison, format_p

WORST_SHOWN = 5
KINDS = {"at_least": ">=", "at_most": "<=", "no_worse": "no worse than"}


@attrs.frozen
class GateRule:
    """One rule: ``kind`` is ``at_least``, ``at_most`` or ``no_worse``; ``threshold`` bounds the first two."""

    kind: str
    metric: str
    threshold: float | None = None

    def describe(self) -> str:
        if self.kind == "no_worse":
            return f"{self.metric} no worse than the baseline"
        return f"{self.metric} {KINDS[self.kind]} {_threshold(self.threshold)}"


@attrs.frozen
class RuleOutcome:
    """How one rule went: the value and interval, the comparison for ``no_worse``, and the worst records."""

    rule: GateRule
    passed: bool
    value: float | None
    ci: tuple[float, float] | None
    detail: str
    """The threshold, or the comparison with the baseline, as text."""
    worst: list[tuple[str, str]] = attrs.field(factory=list)
    """Up to five ``(record id, value as text)``: the records furthest on the wrong side."""
    comparison: MetricComparison | None = None

    @property
    def status(self) -> str:
        return "PASS" if self.passed else "FAIL"

    def line(self) -> str:
        """``PASS``/``FAIL``, the metric, its value with its interval, the threshold or comparison."""
        return f"{self.status}  {self.rule.metric} = {_value(self.value, self.ci)}  {self.detail}"

    def message(self) -> str:
        """The line, then the worst records (what a failed assertion shows)."""
        text = self.line()
        if self.worst:
            text += "\nworst records: " + ", ".join(f"{record} = {value}" for record, value in self.worst)
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.rule.kind, "metric": self.rule.metric, "threshold": self.rule.threshold,
                "passed": self.passed, "value": self.value, "ci": list(self.ci) if self.ci else None,
                "detail": self.detail, "worst": [{"id": i, "value": v} for i, v in self.worst],
                "comparison": self.comparison.to_dict() if self.comparison is not None else None}


@attrs.frozen
class GateResult:
    """Every rule's outcome; ``passed`` when all hold."""

    run: str
    outcomes: list[RuleOutcome]
    baseline: str | None = None

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failures(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if not o.passed]

    def __bool__(self) -> bool:
        return self.passed

    def text(self) -> str:
        """One line per rule, then how many held."""
        lines = [o.line() for o in self.outcomes]
        held = len(self.outcomes) - len(self.failures)
        lines.append(f"gate {'passed' if self.passed else 'failed'}: {held} of {len(self.outcomes)} rules hold")
        return "\n".join(lines)

    def markdown(self) -> str:
        """A GitHub Actions job summary: a heading and a table, one row per rule."""
        held = len(self.outcomes) - len(self.failures)
        mark = "✅" if self.passed else "❌"
        lines = [f"### {mark} evalcore gate {'passed' if self.passed else 'failed'}: {held} of "
                 f"{len(self.outcomes)} rules hold ({_md(self.run)})", "",
                 "| | metric | value | interval | rule |", "| --- | --- | --- | --- | --- |"]
        for o in self.outcomes:
            ci = f"[{_number(o.ci[0])}, {_number(o.ci[1])}]" if o.ci else "–"
            lines.append(f"| {'✅ pass' if o.passed else '❌ fail'} | `{_md(o.rule.metric)}` | "
                         f"{_number(o.value)} | {ci} | {_md(o.detail)} |")
        worst = [o for o in self.failures if o.worst]
        if worst:
            lines.append("")
            lines += [f"- `{_md(o.rule.metric)}` worst records: "
                      + ", ".join(f"`{_md(i)}` {_md(v)}" for i, v in o.worst) for o in worst]
        return "\n".join(lines) + "\n"

    def junit(self) -> str:
        """JUnit XML: one test suite, one test case per rule, a ``<failure>`` with its message per failed rule."""
        import xml.etree.ElementTree as ET

        counts = {"tests": str(len(self.outcomes)), "failures": str(len(self.failures)), "errors": "0",
                  "skipped": "0"}
        root = ET.Element("testsuites", {"name": "evalcore gate", **counts})
        suite = ET.SubElement(root, "testsuite", {"name": f"evalcore gate {self.run}", **counts})
        for o in self.outcomes:
            case = ET.SubElement(suite, "testcase", {"classname": "evalcore.gate", "name": o.rule.describe()})
            if o.passed:
                ET.SubElement(case, "system-out").text = o.line()
            else:
                failure = ET.SubElement(case, "failure", {"message": o.line(), "type": "GateFailure"})
                failure.text = o.message()
        ET.indent(root)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "baseline": self.baseline, "passed": self.passed,
                "rules": [o.to_dict() for o in self.outcomes]}


def gate(
    result: RunLike, *, at_least: Mapping[str, float] | None = None, at_most: Mapping[str, float] | None = None,
    baseline: RunLike | None = None, no_worse: Sequence[str] = (), alpha: float = 0.05,
    tests: Sequence[str] | None = None, correction: str = "holm", n_resamples: int | None = None, seed: int = 0,
    intersect: bool = False,
) -> GateResult:
    """Check a run against rules: ``at_least={metric: bound}``, ``at_most={metric: bound}`` on its
    values, and ``no_worse=[metric, ...]`` against ``baseline``.

    ``result`` and ``baseline`` are an :class:`~evalcore.EvaluationResult` or the path of a JSON
    report or samples journal. A ``no_worse`` rule fails only when :func:`~evalcore.compare`
    finds the run significantly worse than the baseline (corrected p < ``alpha``; ``tests``,
    ``correction``, ``n_resamples``, ``seed`` and ``intersect`` as there), so noise passes. A rule
    naming a metric the run (or baseline) does not hold, and a baseline computed by another
    version of a metric or with other non-identity parameters, raise :class:`~evalcore.InputError`.
    Returns a :class:`GateResult`
    (``passed``, ``text()``, ``markdown()``, ``junit()``, ``to_dict()``).
    """
    rules = [GateRule("at_least", m, _bound(m, v)) for m, v in (at_least or {}).items()]
    rules += [GateRule("at_most", m, _bound(m, v)) for m, v in (at_most or {}).items()]
    rules += [GateRule("no_worse", m) for m in dict.fromkeys(no_worse)]
    if not rules:
        raise InputError("no rule given: name a bound (at_least / at_most; --min / --max METRIC=VALUE) or a "
                         "metric that must be no worse (no_worse; --no-worse METRIC)", field="rules")
    if no_worse and baseline is None:
        raise InputError("a no-worse rule needs a baseline run (baseline; --baseline FILE)", field="baseline")
    run = load_run(result, None if isinstance(result, (str, os.PathLike)) else "result")
    base = load_run(baseline, index=0) if baseline is not None else None
    _require(run, [r.metric for r in rules], "the result")
    outcomes: dict[int, RuleOutcome] = {}
    for i, rule in enumerate(rules):
        if rule.kind != "no_worse":
            outcomes[i] = bound_outcome(run, rule)
    if base is not None and no_worse:
        _require(base, list(dict.fromkeys(no_worse)), "the baseline")
        require_same_definitions([base, run], list(dict.fromkeys(no_worse)), allow=False,
                                 hint="or gate against a baseline evaluated with the installed version")
        comparison = compare(base, run, metrics=list(dict.fromkeys(no_worse)), tests=tests,
                             n_resamples=n_resamples, seed=seed, correction=correction, alpha=alpha,
                             intersect=intersect)
        [system] = comparison.systems  # the run's name, told apart from the baseline's if both are the same
        for i, rule in enumerate(rules):
            if rule.kind == "no_worse":
                outcomes[i] = regression_outcome(base, run, comparison.entry(rule.metric, system),
                                                 comparison.options)
    return GateResult(run=run.name, outcomes=[outcomes[i] for i in range(len(rules))],
                      baseline=base.name if base is not None else None)


def bound_outcome(run: Run, rule: GateRule) -> RuleOutcome:
    """The outcome of an ``at_least`` / ``at_most`` rule on ``run``."""
    value, ci = run_value(run, rule.metric)
    assert rule.threshold is not None
    if value is None:
        passed, detail = False, f"{KINDS[rule.kind]} {_threshold(rule.threshold)}: no value (nothing scored)"
    else:
        passed = value >= rule.threshold if rule.kind == "at_least" else value <= rule.threshold
        detail = f"{KINDS[rule.kind]} {_threshold(rule.threshold)}"
        if not passed:
            detail += f" ({'below the minimum' if rule.kind == 'at_least' else 'above the maximum'})"
    return RuleOutcome(rule, passed, value, ci, detail,
                       worst=_worst_values(run, rule.metric, low_first=rule.kind == "at_least"))


def regression_outcome(base: Run, run: Run, entry: MetricComparison, options: Mapping[str, Any]) -> RuleOutcome:
    """The outcome of a ``no_worse`` rule from the comparison of ``run`` with ``base`` on one metric."""
    rule = GateRule("no_worse", entry.metric)
    value, ci = run_value(run, entry.metric)
    if entry.difference is None:
        note = next((o.note for o in entry.tests.values() if o.note), "not compared")
        return RuleOutcome(rule, False, value, ci, f"not compared with {base.name}: {note}", comparison=entry)
    test = entry.decided_by
    p = f"p={format_p(entry.tests[test].p_adjusted)} ({TEST_NAMES[test]}, {options['correction']})" if test else ""
    diff_ci = f" [{entry.ci[0]:+.4f}, {entry.ci[1]:+.4f}]" if entry.ci else ""
    regressed = entry.winner == "baseline"
    verdict = ("significantly worse" if regressed else
               "no significant difference" if entry.winner is None else "significantly better")
    detail = (f"no worse than {base.name} = {_number(entry.baseline_value)}: difference {entry.difference:+.4f}"
              f"{diff_ci} {p}: {verdict} (alpha {options['alpha']})").replace("  ", " ")
    return RuleOutcome(rule, not regressed, value, ci, detail,
                       worst=_worst_changes(base, run, entry) if regressed or entry.difference else [],
                       comparison=entry)


def run_value(run: Run, metric_id: str) -> tuple[float | None, tuple[float, float] | None]:
    """The run's value of a metric and its interval: from its report, else computed from its rows
    (the mean of the scored records, or the corpus value of their states; no interval then)."""
    summary = run.summary.get(metric_id)
    if summary is not None:
        ci = summary.get("ci")
        value = summary.get("value")
        return (None if value is None else float(value)), (tuple(ci) if ci else None)  # type: ignore[return-value]
    scores = [row["scores"].get(metric_id) for row in run.rows.values()]
    scored = [s for s in scores if isinstance(s, dict) and s.get("status", "ok") == "ok"]
    if run.granularity(metric_id) == "corpus":
        states = [s["state"] for s in scored if s.get("state") is not None]
        if not states:
            return None, None
        metric = metric_of(run, metric_id)
        score = metric.corpus_score([metric.decode_state(s) for s in states])
        return (float(score.value) if score.ok and score.value is not None else None), None
    values = [float(s["value"]) for s in scored if s.get("value") is not None]
    values = [v for v in values if not math.isnan(v)]
    return (sum(values) / len(values) if values else None), None


def _worst_values(run: Run, metric_id: str, *, low_first: bool) -> list[tuple[str, str]]:
    if run.granularity(metric_id) == "corpus":
        return []
    values = []
    for record_id, row in run.rows.items():
        score = row["scores"].get(metric_id)
        if isinstance(score, dict) and score.get("status", "ok") == "ok" and score.get("value") is not None:
            values.append((float(score["value"]), record_id))
    values.sort(key=lambda item: item[0], reverse=not low_first)
    return [(record_id, _number(value)) for value, record_id in values[:WORST_SHOWN]]


def _worst_changes(base: Run, run: Run, entry: MetricComparison) -> list[tuple[str, str]]:
    if entry.granularity == "corpus":
        return []
    changes = []
    for record_id, row in run.rows.items():
        if record_id not in base.rows:
            continue
        a, b = base.rows[record_id]["scores"].get(entry.metric), row["scores"].get(entry.metric)
        if all(isinstance(s, dict) and s.get("status", "ok") == "ok" and s.get("value") is not None for s in (a, b)):
            before, after = float(a["value"]), float(b["value"])  # type: ignore[index]
            loss = before - after if entry.direction == "higher" else after - before
            if loss > 0:
                changes.append((loss, record_id, before, after))
    changes.sort(key=lambda item: -item[0])
    return [(record_id, f"{_number(before)} -> {_number(after)}") for _, record_id, before, after
            in changes[:WORST_SHOWN]]


def _require(run: Run, metric_ids: Sequence[str], what: str) -> None:
    missing = [m for m in dict.fromkeys(metric_ids) if m not in run.metrics]
    if missing:
        held = ", ".join(run.metrics) or "none"
        raise InputError(f"{what} ({run.name}) holds no metric {', '.join(repr(m) for m in missing)}; "
                         f"it holds: {held}", source=run.source)


def parse_bound(text: str) -> tuple[str, float]:
    """``METRIC=VALUE`` (the last ``=`` splits, so ids with parameters work) as ``(metric, value)``."""
    metric, sep, value = text.rpartition("=")
    if not sep or not metric:
        raise InputError(f"expected METRIC=VALUE, got {text!r}", field="rule")
    return metric.strip(), _bound(metric, value)


def _bound(metric: str, value: Any) -> float:
    try:
        bound = float(value)
    except (TypeError, ValueError):
        raise InputError(f"the bound must be a number, got {value!r}", field=metric) from None
    if math.isnan(bound):
        raise InputError("the bound must be a number, got NaN", field=metric)
    return bound


def _threshold(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if abs(value) < 1000 else f"{value:.1f}"


def _value(value: float | None, ci: tuple[float, float] | None) -> str:
    text = _number(value)
    return f"{text} [{_number(ci[0])}, {_number(ci[1])}]" if ci else text


def _md(text: str) -> str:
    """Text for a markdown table cell: pipes, backticks and line breaks made harmless."""
    return str(text).replace("|", "\\|").replace("`", "'").replace("\n", " ")
