"""Estimates from sampled traces, weighted by their sampling probabilities so they stay unbiased."""

from __future__ import annotations

import json
from typing import Any

from .store import Store

__all__ = ["weighted_mean"]


def weighted_mean(store: Store, scorer: str, metric: str) -> dict[str, Any]:
    """The mean of ``metric`` over every trace the ``scorer``'s filters admit, estimated from the
    traces it sampled: each value weighted by one over its sampling probability (the Hajek estimator),
    beside the unweighted mean of the sample."""
    total = weights = plain = 0.0
    n = 0
    for manifest in store.manifests():
        part = manifest["scorers"].get(scorer)
        rows = store.report_path(manifest, scorer).with_suffix(".rows.jsonl") if part else None
        if rows is None or not rows.exists():
            continue
        for line in rows.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            score = (row.get("scores") or {}).get(metric) if "id" in row else None
            if not score or score.get("status") != "ok":
                continue
            weight = 1 / part["probability"][row["id"]]
            total, weights, plain, n = total + weight * score["value"], weights + weight, plain + score["value"], n + 1
    return {"metric": metric, "scorer": scorer, "n": n, "weighted_mean": total / weights if n else None,
            "sample_mean": plain / n if n else None}
