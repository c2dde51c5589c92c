"""Per record, how a system's values differ from the baseline's: the largest regressions first."""

from __future__ import annotations

import attrs
import numpy as np
from evalcore.plugin import Run

from .records import value_matrix


@attrs.frozen
class Changes:
    """The records both runs scored that changed most, with both runs' values per shared metric."""

    metrics: list[str]
    ids: list[str]
    before: np.ndarray
    after: np.ndarray
    signed: np.ndarray
    """Each change in the metric's better direction, relative to the metric's largest change (-1 … 1)."""
    worst: list[str | None]
    """Per record, the metric that regressed most (``None`` where none did)."""
    n_shared: int


def regressions(baseline: Run, system: Run, limit: int) -> Changes:
    """At most ``limit`` shared records, sorted by their largest relative regression (worst first);
    records whose values cannot be compared (no value in either run) come last."""
    metrics = [m for m in baseline.metrics if m in system.metrics]
    shared = [record_id for record_id in baseline.rows if record_id in system.rows]
    base_rows = {record_id: i for i, record_id in enumerate(baseline.rows)}
    system_rows = {record_id: i for i, record_id in enumerate(system.rows)}
    before = value_matrix(baseline, metrics)[[base_rows[r] for r in shared]]
    after = value_matrix(system, metrics)[[system_rows[r] for r in shared]]
    sign = np.array([-1.0 if baseline.direction(m) == "lower" else 1.0 for m in metrics])
    change = (after - before) * sign
    scale = np.nanmax(np.abs(change), axis=0, initial=0.0) if shared else np.zeros(len(metrics))
    signed = change / np.where(scale > 0, scale, 1.0)
    known = np.isfinite(signed)
    key = np.where(known, signed, np.inf).min(axis=1) if metrics else np.zeros(len(shared))
    order = np.argsort(key, kind="stable")[:limit]
    worst = []
    for n in order:
        j = int(np.argmin(np.where(known[n], signed[n], np.inf))) if metrics else 0
        worst.append(metrics[j] if metrics and known[n, j] and signed[n, j] < 0 else None)
    return Changes(metrics=metrics, ids=[shared[n] for n in order], before=before[order], after=after[order],
                   signed=signed[order], worst=worst, n_shared=len(shared))
