"""The comparison as a readable text table."""

from __future__ import annotations

from .result import TEST_NAMES, Comparison, MetricComparison


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def format_p(p: float) -> str:
    """A p-value with four decimals; ``<0.0001`` below that."""
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


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
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
             for row in [header, ["-" * w for w in widths], *rows]]
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
