"""The outcome of a comparison: one entry per metric and system, with every test's p-value, and its text table."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
from evalcore.plugin import table_lines

TEST_NAMES = {
    "bootstrap": "paired bootstrap",
    "randomization": "approximate randomization",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank",
    "fisher": "Fisher randomization",
}


def format_p(p: float) -> str:
    """A p-value with four decimals; ``<0.0001`` below that."""
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


@attrs.frozen
class TestOutcome:
    """One test's p-value (``None`` with a note when the test does not apply)."""

    p_value: float | None
    p_adjusted: float | None = None
    statistic: float | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class MetricComparison:
    """A system against the baseline on one metric, over the records both scored."""

    metric: str
    system: str
    granularity: str
    direction: str
    n: int
    n_unscored: int
    baseline_value: float | None
    system_value: float | None
    difference: float | None
    ci: tuple[float, float] | None
    effect_size: float | None
    effect_size_kind: str
    tests: dict[str, TestOutcome]
    decided_by: str | None = None
    significant: bool = False

    @property
    def winner(self) -> str | None:
        """``"system"``, ``"baseline"`` or ``None`` (no significant difference)."""
        if not self.significant or not self.difference:
            return None
        better = self.difference > 0 if self.direction == "higher" else self.difference < 0
        return "system" if better else "baseline"

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self, recurse=False)
        data["ci"] = list(self.ci) if self.ci is not None else None
        data["tests"] = {name: outcome.to_dict() for name, outcome in self.tests.items()}
        data["winner"] = self.winner
        return data


@attrs.frozen
class Comparison:
    """Every system against the baseline on every shared metric.

    ``records`` says how many records were compared and, per system, how many of its own
    or the baseline's records were left out because the other run lacks them.
    """

    baseline: str
    systems: list[str]
    metrics: list[str]
    entries: list[MetricComparison]
    records: dict[str, Any]
    options: dict[str, Any]
    notes: list[str] = attrs.field(factory=list)

    test_names: ClassVar[dict[str, str]] = TEST_NAMES
    """Each test's name in words, by its key in ``options["tests"]`` and in an entry's ``tests``."""
    format_p = staticmethod(format_p)

    def entry(self, metric: str, system: str) -> MetricComparison:
        """The comparison of ``system`` with the baseline on ``metric``."""
        for item in self.entries:
            if item.metric == metric and item.system == system:
                return item
        raise KeyError((metric, system))

    def wins(self) -> dict[str, dict[str, list[str]]]:
        """Per system: the metrics it wins, loses, ties on (no significant difference), and
        those that could not be compared (no shared scores, or no computable value)."""
        out = {s: {"wins": [], "losses": [], "ties": [], "not_compared": []} for s in self.systems}
        for item in self.entries:
            key = ("not_compared" if item.difference is None else
                   {"system": "wins", "baseline": "losses", None: "ties"}[item.winner])
            out[item.system][key].append(item.metric)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline, "systems": list(self.systems), "metrics": list(self.metrics),
            "records": self.records, "options": self.options, "notes": list(self.notes),
            "comparisons": [item.to_dict() for item in self.entries], "wins": self.wins(),
        }

    def table(self) -> str:
        """A readable table: values, differences with intervals, markers, and wins."""
        return format_comparison(self)


# -- the comparison as a readable text table --------------------------------------------


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def marker(entry: MetricComparison) -> str:
    """``▲`` the system is significantly better, ``▼`` worse, blank otherwise."""
    return {"system": "▲", "baseline": "▼", None: ""}[entry.winner]


def _cell(entry: MetricComparison) -> str:
    if entry.difference is None:
        note = next((o.note for o in entry.tests.values() if o.note), "not compared")
        return f"- ({note})"
    ci = f" [{entry.ci[0]:+.4f}, {entry.ci[1]:+.4f}]" if entry.ci else ""
    test = entry.decided_by
    p = f" p={format_p(entry.tests[test].p_adjusted)}" if test else ""
    return f"{_number(entry.system_value)} ({_number(entry.difference, True)}{ci}{p}) {marker(entry)}".rstrip()


def format_comparison(comparison: Comparison) -> str:
    """Metric rows; the baseline's value, then each system's value, difference, interval,
    corrected p-value of the deciding test and a marker; then wins per system."""
    header = ["metric", comparison.baseline, *comparison.systems]
    rows = []
    for metric in comparison.metrics:
        entries = [comparison.entry(metric, s) for s in comparison.systems]
        rows.append([metric, _number(entries[0].baseline_value), *(_cell(e) for e in entries)])
    lines = table_lines(header, rows)
    options = comparison.options
    tests = ", ".join(TEST_NAMES[t] for t in options["tests"])
    lines += ["", f"▲/▼ significantly better/worse than {comparison.baseline} (corrected p < {options['alpha']}, "
              f"{options['correction']} correction; first applicable of: {tests}); "
              f"[{options['confidence']:.0%} paired bootstrap interval of the difference]"]
    for system, outcome in comparison.wins().items():
        lines.append(f"{system}: better on {len(outcome['wins'])}, worse on {len(outcome['losses'])}, "
                     f"no significant difference on {len(outcome['ties'])}"
                     + (f", not compared on {len(outcome['not_compared'])}" if outcome["not_compared"] else ""))
    for system, counts in comparison.records["systems"].items():
        dropped = counts["only_in_baseline"] + counts["only_in_system"]
        if dropped:
            lines.append(f"{system}: compared on {counts['n']} shared records; left out "
                         f"{counts['only_in_baseline']} only in the baseline, "
                         f"{counts['only_in_system']} only in the system")
    lines += [f"note: {note}" for note in comparison.notes]
    return "\n".join(lines)
