"""Anytime-valid intervals for the differences of finished runs (``compare --sequential``).

For each system and per-record metric with a bounded value range, the paired PrPl-EB confidence
sequence (:func:`paired_difference_interval`) of the per-record difference ``system - baseline``
over the records both scored, taken in an order drawn with ``seed``; its last interval is
reported beside the bootstrap one. A finished run has scored every record of its file, so the
sequence is the with-replacement form: its target is the mean difference of the systems on
records like these, not of these records alone. It is wider than the bootstrap interval, and it
stays valid however often the runs were looked at while records were added.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import evalcore
import numpy as np
from evalcore.plugin import EvalcoreError, Run, draw_keys, final_interval, load_runs, mean_sequence

from ._types import RunLike


def sequence_differences(baseline: RunLike, *systems: RunLike, metrics: Sequence[str] | None = None,
                         confidence: float = 0.95, seed: int = 0,
                         registry: evalcore.Registry | None = None) -> list[dict[str, Any]]:
    """Per system and metric: the difference's estimate, the sequence's ``low`` / ``high`` after
    ``n`` shared records, and whether it excludes 0 (``decided``). Metrics without per-record
    values or a bounded range are listed with ``note`` instead."""
    runs = load_runs([baseline, *systems])
    base = runs[0]
    found = []
    for system in runs[1:]:
        for metric_id in metrics or [m for m in base.metrics if m in system.metrics]:
            entry: dict[str, Any] = {"system": system.name, "metric": metric_id}
            span = _value_range(registry, metric_id)
            if base.granularity(metric_id) != "sample" or span is None:
                found.append({**entry, "note": "needs per-record values in a bounded value range"})
                continue
            a, b = _paired(base, system, metric_id)
            interval = paired_difference_interval(a, b, *span, confidence=confidence, seed=seed)
            if interval is None:
                found.append({**entry, "note": "no record scored by both"})
                continue
            found.append({**entry, **interval.to_dict(), "decided": interval.excludes(0.0)})
    return found


def _value_range(registry: evalcore.Registry | None, metric_id: str) -> tuple[float, float] | None:
    try:
        info = evalcore.describe(metric_id) if registry is None else registry.resolve(metric_id)[0]
        low, high = info.spec.value_range
    except EvalcoreError:
        return None
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return None
    return float(low), float(high)


def _paired(base: Run, system: Run, metric_id: str) -> tuple[np.ndarray, np.ndarray]:
    """The two runs' ok values on the records both scored."""
    pairs = []
    for record_id, row in base.rows.items():
        other = system.rows.get(record_id)
        first, second = row["scores"].get(metric_id), (other or {}).get("scores", {}).get(metric_id)
        if _ok(first) and _ok(second):
            pairs.append((first["value"], second["value"]))  # type: ignore[index]
    values = np.asarray(pairs, dtype=float).reshape(-1, 2)
    return values[:, 0], values[:, 1]


def _ok(score: Any) -> bool:
    return isinstance(score, dict) and score.get("status") == "ok" and score.get("value") is not None


def sequence_lines(found: list[dict[str, Any]], confidence: float) -> list[str]:
    """The entries as text lines under the comparison's table."""
    lines = [f"anytime-valid {confidence:.0%} confidence sequences of the difference (system - baseline):"]
    for entry in found:
        where = f"  {entry['system']}  {entry['metric']}: "
        if "note" in entry:
            lines.append(where + entry["note"])
        else:
            lines.append(where + f"{entry['estimate']:+.4g} [{entry['low']:.4g}, {entry['high']:.4g}] over "
                                 f"{entry['n']} records" + ("; excludes 0" if entry["decided"] else ""))
    return lines


def paired_sequence(a: np.ndarray, b: np.ndarray, low: float, high: float, *, confidence: float = 0.95,
                    population: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sequence for the mean difference ``a - b`` of two systems' values on the same records,
    each in ``[low, high]`` (so the difference lies in ``[low - high, high - low]``)."""
    span = high - low
    return mean_sequence(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), -span, span,
                         confidence=confidence, population=population)


def paired_difference_interval(baseline: np.ndarray, system: np.ndarray, low: float, high: float, *,
                               confidence: float = 0.95, seed: int = 0) -> Any:
    """The last interval (``estimate``, ``low``, ``high``, ``n``) of the confidence sequence of the
    mean difference ``system - baseline`` over paired values in ``[low, high]``, the pairs taken in
    an order drawn with ``seed`` (``None`` without a pair)."""
    pairs = np.column_stack([np.asarray(baseline, dtype=float), np.asarray(system, dtype=float)])
    order = np.argsort(draw_keys(range(len(pairs)), seed), kind="stable")
    return final_interval(paired_sequence(pairs[order, 1], pairs[order, 0], low, high, confidence=confidence))
