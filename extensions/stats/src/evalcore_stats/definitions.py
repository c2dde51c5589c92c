"""Metric definitions as contracts: runs are compared only when they computed a metric the same way.

Two runs computed a metric the same way when they record the same metric version and the same
value of every parameter that can change its numbers. Identity parameters (``k`` of
``retrieval/ndcg@10``) are already in the metric id; the others (a judge's or an embedding
model's backend, ``model`` and ``base_url``, the sampling settings, the judge's ``prompt_hash`` and
``response_format``, ROUGE's ``use_stemmer`` ...) are recorded per metric in the journal header and
the report's provenance (``"params"``). Settings that
say only how or where a value is computed — :data:`RUN_SETTINGS`, such as ``timeout_s`` or
``cache_dir`` — are not compared. A run whose journal predates recorded parameters cannot be
checked: that is a note, not a refusal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from evalcore.plugin import InputError, Run

RUN_SETTINGS = frozenset({
    "timeout_s", "api_key_env", "cache_mode", "cache_dir", "concurrency", "max_retries",
    "backoff_base", "prices", "cost_msats", "batch_size", "device", "allow_download", "cwd", "pass_env",
    "isolation",
})
"""Parameters that change how or where a value is computed, or its cost, but not the value."""


class MetricMismatchError(InputError):
    """Runs computed a metric by different metric versions or parameters, so their numbers differ in meaning."""


def definition_differences(runs: Sequence[Run], metric_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(differences, unknown)``: one line per metric version or parameter that differs between
    ``runs``, and one per metric whose parameters some run did not record (so they were not checked)."""
    differences: list[str] = []
    unknown: list[str] = []
    for metric_id in metric_ids:
        entries = [(run.name, run.metrics[metric_id]) for run in runs]
        versions = {name: str(e["metric_version"]) for name, e in entries if e.get("metric_version") is not None}
        if len(set(versions.values())) > 1:
            differences.append(f"{metric_id}: " + _by_run("version ", versions))
        recorded = {name: e["params"] for name, e in entries if isinstance(e.get("params"), dict)}
        missing = [name for name, _ in entries if name not in recorded]
        if missing:
            unknown.append(f"{metric_id}: parameters not recorded by {', '.join(missing)} (written by an older "
                           "evalcore?); not checked")
        names = sorted({p for params in recorded.values() for p in params} - RUN_SETTINGS)
        for param in names:
            values = {run: _text(params[param]) for run, params in recorded.items() if param in params}
            if len(set(values.values())) > 1:
                differences.append(f"{metric_id}: " + _by_run(f"{param}=", values))
    return differences, unknown


ALLOW_HINT = "or compare anyway with allow_version_mismatch=True (--allow-version-mismatch)"


def require_same_definitions(runs: Sequence[Run], metric_ids: Sequence[str], *, allow: bool,
                             hint: str = ALLOW_HINT) -> list[str]:
    """Raise :class:`MetricMismatchError` naming every difference unless ``allow``; returns the
    notes to show: the differences allowed, and the metrics that could not be checked."""
    differences, unknown = definition_differences(runs, metric_ids)
    if differences and not allow:
        raise MetricMismatchError("the runs computed a metric differently, so their numbers are not comparable: "
                                  + "; ".join(differences) + "; evaluate them again with the same metric version "
                                  f"and parameters, {hint}")
    return [f"compared although computed differently: {d}" for d in differences] + unknown


def _by_run(label: str, values: dict[str, str]) -> str:
    return ", ".join(f"{label}{value} in {run}" for run, value in values.items())


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
