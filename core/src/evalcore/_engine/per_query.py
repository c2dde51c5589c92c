"""Per-record values as ``trec_eval -q`` prints them: ``measure<TAB>query<TAB>value`` lines, then ``all``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any


def write_per_query(out: IO[str], names: Sequence[tuple[str, Any]], rows: Iterable[Mapping[str, Any]],
                    summaries: Mapping[str, Any]) -> None:
    """Write each record's values, then each metric's aggregate as query ``all``.

    Each metric prints under the name trec_eval gives it (:meth:`~evalcore.plugin.Metric.trec_eval_name`:
    ``ndcg``, ``P_10``, ``utility_2,-1,0,0``); one trec_eval has no name for prints under the
    name ``names`` pairs it with (as the user typed it). Values of metrics that sum (trec_eval's
    ``num_*``) print as integers, the others with four decimals; geometric means (``gm_map``)
    and metrics trec_eval shows only in total (``num_q``) print only as ``all``, as trec_eval
    does. Records a metric skipped or failed are left out.
    """
    names = [(_trec_eval_name(metric) or name, metric) for name, metric in names]
    per_record = [(name, metric) for name, metric in names
                  if getattr(metric.spec, "aggregate", "mean") != "gmean"
                  and not getattr(metric, "trec_eval_summary_only", False)]
    for row in rows:
        for name, metric in per_record:
            score = row["scores"].get(metric.id, {})
            if score.get("status") == "ok" and score.get("value") is not None:
                out.write(_line(name, row["id"], score["value"], metric))
    for name, metric in names:
        value = summaries[metric.id].value
        if value is not None:
            out.write(_line(name, "all", value, metric))


def _trec_eval_name(metric: Any) -> str | None:
    named = getattr(metric, "trec_eval_name", None)
    return named() if callable(named) else None


def _line(name: str, query: str, value: float, metric: Any) -> str:
    text = f"{round(value)}" if getattr(metric.spec, "aggregate", "mean") == "sum" else f"{value:.4f}"
    return f"{name:<22}\t{query}\t{text}\n"
