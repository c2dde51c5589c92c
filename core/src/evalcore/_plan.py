"""Dry runs: the calls, tokens and cost an evaluation would make, without making them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._metric import Metric
from ._records import Record

_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cost_msats")


def plan(records: Sequence[Record], metrics: Sequence[Metric]) -> list[dict[str, Any]]:
    """Per metric: estimated calls, tokens and cost over ``records``.

    Metrics that call a model implement ``estimate(example, prediction) -> dict`` with the
    keys ``calls``, ``prompt_tokens``, ``completion_tokens`` and ``cost_msats``; for the
    others the spec's per-sample ``cost_msats`` is used and no calls are counted.
    """
    rows = []
    for metric in metrics:
        totals = dict.fromkeys(_KEYS, 0)
        estimator = getattr(metric, "estimate", None)
        for record in records:
            if callable(estimator):
                estimate = estimator(dict(record.example), dict(record.prediction))
                for key in _KEYS:
                    totals[key] += int(estimate.get(key, 0))
            else:
                totals["cost_msats"] += metric.spec.cost_msats
        rows.append({"metric": metric.id, "records": len(records), **totals})
    return rows


def format_plan(rows: Sequence[dict[str, Any]]) -> str:
    """The plan as a table with a total line."""
    header = ["metric", "records", *_KEYS]
    totals = ["total", str(sum(r["records"] for r in rows) // max(len(rows), 1)),
              *(str(sum(r[k] for r in rows)) for k in _KEYS)]
    body = [[str(r[h]) for h in header] for r in rows] + [totals]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("\n(dry run: no metric was called)")
    return "\n".join(lines)
