"""What the report shows about one run: aggregates, per-record values and grouped failures."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from evalcore.plugin import EvalcoreError, Run, bootstrap_intervals, metric_of, standard_error


def aggregates(run: Run) -> dict[str, dict[str, Any]]:
    """Per metric: the report's aggregate, or one computed from the rows for a bare journal
    (the intervals of all metrics drawn together, as the engine's summary draws them)."""
    out: dict[str, dict[str, Any]] = {}
    pending: dict[str, np.ndarray] = {}
    for metric_id, info in run.metrics.items():
        if metric_id in run.summary:
            out[metric_id] = dict(run.summary[metric_id])
            continue
        values = np.asarray(values_of(run, metric_id), dtype=float)
        statuses = Counter(str(_score(row, metric_id).get("status", "ok")) for row in run.rows.values())
        corpus = info.get("granularity") == "corpus"
        value = corpus_value(run, metric_id) if corpus else (float(values.mean()) if values.size else None)
        if not corpus:
            pending[metric_id] = values
        out[metric_id] = {
            "value": value, "n": int(values.size),
            "n_skipped": statuses.get("skipped", 0), "n_errors": statuses.get("error", 0),
            "stderr": None if corpus else standard_error(values), "ci": None,
            "direction": info.get("direction"), "granularity": info.get("granularity"),
            "metric_version": info.get("metric_version"), "distribution": info.get("distribution"),
            "distribution_version": info.get("distribution_version"),
        }
    for metric_id, ci in zip(pending, bootstrap_intervals(list(pending.values()), seed=0)):
        out[metric_id]["ci"] = ci
    return out


def corpus_value(run: Run, metric_id: str) -> float | None:
    """The corpus value from the rows' states (``None`` without states or the metric's plugin)."""
    try:
        metric = metric_of(run, metric_id)
    except EvalcoreError:
        return None
    states = [metric.decode_state(score["state"]) for row in run.rows.values()
              if (score := _score(row, metric_id)).get("status", "ok") == "ok" and score.get("state") is not None]
    result = metric.corpus_score(states) if states else None
    return float(result.value) if result is not None and result.ok and result.value is not None else None


def values_of(run: Run, metric_id: str) -> list[float]:
    """The metric's ``ok`` per-record values, in record order."""
    values = (ok_value(row["scores"].get(metric_id)) for row in run.rows.values())
    return [value for value in values if value is not None]


def ok_value(score: Any) -> float | None:
    """A score's value when its status is ``ok`` and the value a number, else ``None``."""
    if isinstance(score, dict) and score.get("status", "ok") == "ok":
        value = score.get("value")
        if isinstance(value, (int, float)):
            return float(value)
    return None


def failures(run: Run) -> list[dict[str, Any]]:
    """Errors and skips grouped by metric, status and message, most frequent first."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for record_id, row in run.rows.items():
        for metric_id, score in row["scores"].items():
            status = score.get("status", "ok") if isinstance(score, dict) else "ok"
            if status == "error":
                error = score.get("error") or {}
                error = error if isinstance(error, dict) else {"message": error}
                message = f"{error.get('type', 'Error')}: {error.get('message', '')}"
            elif status == "skipped":
                message = str(score.get("reason") or "(no reason given)")
            else:
                continue
            groups.setdefault((metric_id, status, message), []).append(record_id)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [{"metric": m, "status": s, "message": msg, "count": len(ids), "records": ids[:5]}
            for (m, s, msg), ids in ordered]


def _score(row: dict[str, Any], metric_id: str) -> dict[str, Any]:
    score = row["scores"].get(metric_id)
    return score if isinstance(score, dict) else {}
