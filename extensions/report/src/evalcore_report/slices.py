"""Aggregates per slice of the data: per ``labels`` field and value, each metric's mean, n and interval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from evalcore.plugin import bootstrap_intervals

MAX_VALUES = 50
"""A label field with more distinct values than this is listed, not sliced."""


def slices(
    ids: Sequence[str], matrix: np.ndarray, labels: Mapping[str, Mapping[str, str]], *, seed: int = 0,
) -> list[dict[str, Any]]:
    """Per label field: its values (most records first), each with ``n`` and per metric column
    ``mean``, ``n`` (records with a value) and a seeded bootstrap ``ci`` of the mean.

    ``matrix`` holds one row per id of ``ids`` and one column per metric (NaN where no value);
    a field with more than :data:`MAX_VALUES` values has ``values`` empty and ``n_values`` set.
    """
    position = {record_id: i for i, record_id in enumerate(ids)}
    by_field: dict[str, dict[str, list[int]]] = {}
    for record_id, found in labels.items():
        if record_id in position:
            for field, value in found.items():
                by_field.setdefault(field, {}).setdefault(value, []).append(position[record_id])
    out = []
    for field in sorted(by_field):
        groups = sorted(by_field[field].items(), key=lambda item: (-len(item[1]), item[0]))
        if len(groups) > MAX_VALUES:
            out.append({"field": field, "n_values": len(groups), "values": []})
            continue
        values = []
        for value, rows in groups:
            columns = [matrix[rows, j] for j in range(matrix.shape[1])]
            columns = [c[np.isfinite(c)] for c in columns]
            intervals = bootstrap_intervals(columns, seed=seed)
            values.append({"value": value, "n": len(rows), "metrics": [
                {"mean": float(c.mean()) if c.size else None, "n": int(c.size), "ci": ci if c.size > 1 else None}
                for c, ci in zip(columns, intervals)]})
        out.append({"field": field, "n_values": len(groups), "values": values})
    return out
