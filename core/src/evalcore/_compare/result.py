"""The outcome of a comparison: one entry per metric and system, with every test's p-value."""

from __future__ import annotations

from typing import Any

import attrs

TEST_NAMES = {
    "bootstrap": "paired bootstrap",
    "randomization": "approximate randomization",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank",
    "fisher": "Fisher randomization",
}


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
        from .table import format_comparison

        return format_comparison(self)
