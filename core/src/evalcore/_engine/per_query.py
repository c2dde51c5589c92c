"""Per-record values as ``trec_eval -q`` prints them: ``measure<TAB>query<TAB>value`` lines, then ``all``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any


def write_per_query(out: IO[str], names: Sequence[tuple[str, Any]], rows: Iterable[Mapping[str, Any]],
                    summaries: Mapping[str, Any]) -> None:
    """Write each record's values, then each metric's aggregate as query ``all``.

    ``names`` pairs the name to print (as the user typed it, e.g. ``P_10``) with the metric;
    values of metrics that sum (trec_eval's ``num_*``) print as integers, the others with
    four decimals, and geometric means (``gm_map``) only as ``all``, as trec_eval does. Records
    a metric skipped or failed are left out.
    """
    per_record = [(name, metric) for name, metric in names if getattr(metric.spec, "aggregate", "mean") != "gmean"]
    for row in rows:
        for name, metric in per_record:
            score = row["scores"].get(metric.id, {})
            if score.get("status") == "ok" and score.get("value") is not None:
                out.write(_line(name, row["id"], score["value"], metric))
    for name, metric in names:
        value = summaries[metric.id].value
        if value is not None:
            out.write(_line(name, "all", value, metric))


def _line(name: str, query: str, value: float, metric: Any) -> str:
    text = f"{round(value)}" if getattr(metric.spec, "aggregate", "mean") == "sum" else f"{value:.4f}"
    return f"{name:<22}\t{query}\t{text}\n"
