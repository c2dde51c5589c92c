"""Dry runs: the calls, tokens and cost an evaluation would make, without making them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalcore._contract.display import dollars, table_lines
from evalcore._contract.metric import Metric

_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cost_msats")


def plan(source: Any, metrics: Sequence[Metric], *, chunk_size: int = 1000) -> list[dict[str, Any]]:
    """Per metric: estimated calls, tokens and cost over the records of ``source``.

    Metrics that call a model implement ``estimate(example, prediction) -> dict`` with the
    keys ``calls``, ``prompt_tokens``, ``completion_tokens`` and ``cost_msats``; the base
    class gives the spec's per-sample ``cost_msats`` and no calls. Records are read in
    chunks, so a dry run over a large file needs no more memory than a real one.
    """
    totals = {m.id: dict.fromkeys(_KEYS, 0) for m in metrics}
    count = 0
    for chunk in source.chunks(chunk_size):
        for record in chunk.records:
            count += 1
            example, prediction = dict(record.example), dict(record.prediction)
            for metric in metrics:
                estimate = metric.estimate(example, prediction)
                for key in _KEYS:
                    totals[metric.id][key] += int(estimate.get(key, 0))
    return [{"metric": metric.id, "records": count, **totals[metric.id]} for metric in metrics]


def format_plan(rows: Sequence[dict[str, Any]]) -> str:
    """The plan as a table with a total line (the cost in dollars; ``--json`` keeps ``cost_msats``)."""
    header = ["metric", "records", *_KEYS[:-1], "cost"]
    totals = {"metric": "total", "records": sum(r["records"] for r in rows) // max(len(rows), 1),
              **{k: sum(r[k] for r in rows) for k in _KEYS}}
    body = [[str(r["metric"]), *(str(r[k]) for k in ("records", *_KEYS[:-1])), dollars(r["cost_msats"])]
            for r in [*rows, totals]]
    lines = table_lines(header, body, right=range(1, len(header)))
    return "\n".join([*lines, "\n(dry run: no metric was called)"])
