"""Rollout noise made visible: variance between records against variance within a record, and
pass^k / pass@k for pass/fail metrics (a run's ``details["rollout_noise"]``, added to its summaries
through the ``evalcore_summary_details`` hook and shown under its table).

With ``rollouts`` > 1 every record is scored several times (the program, or a judge, is run again);
each record's row keeps its rollouts' scores (``details["rollouts"]``). Over the ``ok`` values:

**One-way random-effects decomposition** (the ANOVA estimator). Record ``i`` has ``n_i`` values
``y_ij`` with mean ``m_i``; there are ``a`` records and ``N = sum n_i`` values, grand mean ``m``.
``MSB = sum_i n_i (m_i - m)^2 / (a - 1)`` and ``MSW = sum_ij (y_ij - m_i)^2 / (N - a)``. The model
``y_ij = mu + b_i + e_ij`` with ``Var b = between`` and ``Var e = within`` gives
``within = MSW`` and ``between = max(0, (MSB - MSW) / n0)``, ``n0 = (N - sum n_i^2 / N) / (a - 1)``
(``n0`` is the number of rollouts when every record has all of them). ``within_share`` =
``within / (between + within)``: the part of a single score's variance that is rollout noise
(judge or program), not a difference between records (1 - the intraclass correlation).

**pass^k and pass@k** for a metric whose values are all 0 or 1. A record with ``n`` scored
rollouts of which ``c`` passed: pass^k = ``C(c, k) / C(n, k)``, the chance that ``k`` rollouts
drawn without replacement all pass (tau-bench's pass^k: the chance that k i.i.d. trials all
succeed), and pass@k = ``1 - C(n - c, k) / C(n, k)``, the chance that at least one passes (the
unbiased estimator of Chen et al., 2021). Each is averaged over the records with ``n >= k``.
Rollouts that were skipped or failed are left out of ``n``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import comb
from typing import Any

KEY = "rollout_noise"
"""The key of a summary's ``details`` holding the decomposition and pass^k / pass@k."""


def variance_components(groups: Sequence[Sequence[float]]) -> dict[str, float | int] | None:
    """``between``, ``within`` and ``within_share`` of ``groups`` (one list of values per record),
    with ``records`` and ``values`` counted; ``None`` without two records or a repeated value."""
    groups = [list(g) for g in groups if len(g)]
    a = len(groups)
    total = sum(len(g) for g in groups)
    if a < 2 or total <= a:
        return None
    grand = sum(sum(g) for g in groups) / total
    means = [sum(g) / len(g) for g in groups]
    msb = sum(len(g) * (m - grand) ** 2 for g, m in zip(groups, means)) / (a - 1)
    msw = sum((y - m) ** 2 for g, m in zip(groups, means) for y in g) / (total - a)
    n0 = (total - sum(len(g) ** 2 for g in groups) / total) / (a - 1)
    between = max(0.0, (msb - msw) / n0)
    spread = between + msw
    return {"records": a, "values": total, "between": between, "within": msw,
            "within_share": msw / spread if spread > 0 else 0.0}


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k of one record: ``C(c, k) / C(n, k)`` (``k <= n``)."""
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k of one record: ``1 - C(n - c, k) / C(n, k)`` (``k <= n``)."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_rates(groups: Sequence[Sequence[float]]) -> dict[str, dict[str, float]] | None:
    """``{"pass^k": {k: rate}, "pass@k": {k: rate}}`` for k = 1 .. the most rollouts of a record
    (keys as text, for JSON); ``None`` unless every value is 0 or 1."""
    if not any(groups) or any(v not in (0.0, 1.0) for g in groups for v in g):
        return None
    counts = [(len(g), int(sum(g))) for g in groups if len(g)]
    hat: dict[str, float] = {}
    at: dict[str, float] = {}
    for k in range(1, max(n for n, _ in counts) + 1):
        eligible = [(n, c) for n, c in counts if n >= k]
        hat[str(k)] = sum(pass_hat_k(n, c, k) for n, c in eligible) / len(eligible)
        at[str(k)] = sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible)
    return {"pass^k": hat, "pass@k": at}


def rollout_noise(groups: Sequence[Sequence[float]]) -> dict[str, Any] | None:
    """The summary's ``details["rollout_noise"]`` from each record's scored rollout values."""
    components = variance_components(groups)
    rates = pass_rates(groups)
    if components is None and rates is None:
        return None
    return {**(components or {}), **(rates or {})}


def rollout_groups(rows: Iterable[Mapping[str, Any]], metric_ids: Sequence[str]) -> dict[str, list[list[float]]]:
    """Per metric, each record's ``ok`` rollout values (from the rows' ``details["rollouts"]``)."""
    groups: dict[str, list[list[float]]] = {metric_id: [] for metric_id in metric_ids}
    for row in rows:
        for metric_id, found in groups.items():
            score = row["scores"].get(metric_id) or {}
            rollouts = (score.get("details") or {}).get("rollouts") or ()  # none: no rollout was scored
            found.append([float(r["value"]) for r in rollouts
                          if r.get("status", "ok") == "ok" and r.get("value") is not None])
    return groups


def rollout_details(summaries: Mapping[str, Any], rows: Iterable[Mapping[str, Any]],
                    ) -> dict[str, dict[str, Any]]:
    """``{metric id: {"rollout_noise": ...}}`` for each per-sample metric of ``summaries`` (a run's
    summaries by metric id) where the noise of its rollouts can be told."""
    sample = [metric_id for metric_id, s in summaries.items() if s.granularity == "sample"]
    return {metric_id: {KEY: noise} for metric_id, groups in rollout_groups(rows, sample).items()
            if (noise := rollout_noise(groups)) is not None}


def noise_lines(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per metric with rollout noise, for the terminal table."""
    lines = []
    for metric_id, summary in metrics.items():
        noise = (summary.get("details") or {}).get(KEY)
        if not noise:
            continue
        parts = []
        if "within" in noise:
            parts.append(f"variance between records {noise['between']:.4g}, within a record {noise['within']:.4g} "
                         f"({100 * noise['within_share']:.0f} % of it rollout noise)")
        if "pass^k" in noise:
            parts.append("pass^k " + " ".join(f"{k}:{v:.3f}" for k, v in noise["pass^k"].items())
                         + "; pass@k " + " ".join(f"{k}:{v:.3f}" for k, v in noise["pass@k"].items()))
        lines.append(f"{metric_id} over rollouts: " + "; ".join(parts))
    return lines

