"""Rows as columns: the per-record table behind ``to_pandas()`` and Parquet samples files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def flatten(rows: Iterable[dict[str, Any]], metric_ids: Sequence[str]) -> dict[str, list[Any]]:
    """``id`` plus, per metric, its value, status and (where there is one) reason or error message."""
    table: dict[str, list[Any]] = {"id": []}
    for metric_id in metric_ids:
        for suffix in ("", ":status", ":message"):
            table[metric_id + suffix] = []
    for row in rows:
        table["id"].append(row["id"])
        for metric_id in metric_ids:
            score = row["scores"].get(metric_id, {})
            table[metric_id].append(score.get("value"))
            table[metric_id + ":status"].append(score.get("status", "not_run"))
            error = score.get("error")
            table[metric_id + ":message"].append(
                score.get("reason") or (f"{error['type']}: {error['message']}" if error else None))
    return table


def write_parquet(path: Path, rows: Iterable[dict[str, Any]], metric_ids: Sequence[str]) -> None:
    """The rows as a Parquet file (needs pyarrow: ``pip install "evalcore-core[parquet]"``)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        from evalcore._contract.errors import EvalcoreError

        raise EvalcoreError('Parquet samples need pyarrow: pip install "evalcore-core[parquet]"') from None
    from .files import replacing_path

    table = flatten(rows, metric_ids)
    with replacing_path(path) as tmp:
        pq.write_table(pa.table(table), tmp)
