"""What a run paid for: model calls (and how many the cache answered), tokens and cost, per metric
and for the whole run, and the footer that shows them under the table in dollars."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from evalcore._contract.display import dollars
from evalcore._lazy import publish

USAGE_KEYS = ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_msats")
"""The figures of a usage: calls asked (``cached_calls`` of them answered by the cache), the tokens of the
calls sent, and their cost in millisatoshis."""


def metric_usage(reported: Mapping[str, Any], cost_msats: int) -> dict[str, int] | None:
    """One metric's usage from what its instance reports (:meth:`~evalcore.plugin.Metric.usage_summary`:
    ``calls`` sent, ``prompt_tokens``, ``completion_tokens``, ``cache`` with its ``hits``) and the cost
    its records were charged; ``None`` for a metric that called nothing and cost nothing."""
    cache = reported.get("cache") or {}
    cached = int(cache.get("hits", 0) or 0)
    usage = {"calls": int(reported.get("calls", 0) or 0) + cached, "cached_calls": cached,
             "prompt_tokens": int(reported.get("prompt_tokens", 0) or 0),
             "completion_tokens": int(reported.get("completion_tokens", 0) or 0), "cost_msats": int(cost_msats)}
    return usage if usage["calls"] or usage["cost_msats"] else None


def used_since(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What a metric instance used between two of its usage reports (a metric object reused by several
    runs reports its totals): numbers subtracted, nested reports in turn, anything else as ``after``."""
    return _combined(before, after, lambda old, new: new - old)


def added(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Two usage reports together (the driver's and a worker process's): numbers added, nested
    reports in turn, anything else as ``second`` has it."""
    total = _combined(first, second, operator.add)
    return {**first, **{key: value for key, value in total.items() if value is not None or key not in first}}


def _combined(first: Mapping[str, Any], second: Mapping[str, Any], op: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """``second``'s keys: numbers ``op(first's, second's)``, nested reports in turn, anything else as
    ``second`` has it."""
    out: dict[str, Any] = {}
    for key, value in second.items():
        old = first.get(key)
        if isinstance(value, Mapping):
            out[key] = _combined(old if isinstance(old, Mapping) else {}, value, op)
        elif _number(value) and _number(old):
            out[key] = op(old, value)
        else:
            out[key] = value
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def run_usage(usages: Iterable[Mapping[str, int] | None]) -> dict[str, int]:
    """The run's usage: the sum of its metrics'."""
    total = dict.fromkeys(USAGE_KEYS, 0)
    for usage in usages:
        for key in USAGE_KEYS:
            total[key] += int((usage or {}).get(key, 0))
    return total


def usage_text(usage: Mapping[str, int]) -> str:
    """``12 calls (12 cached), 120 prompt + 60 completion tokens, $0.000048`` (the tokens of the calls sent)."""
    calls, cached = usage["calls"], usage["cached_calls"]
    parts = [f"{calls} call{'' if calls == 1 else 's'}" + (f" ({cached} cached)" if cached else "")]
    if usage["prompt_tokens"] or usage["completion_tokens"]:
        parts.append(f"{usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion tokens")
    parts.append(dollars(usage["cost_msats"]))
    return ", ".join(parts)


def cost_lines(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The footer under a run's table: each metric that called a model or cost something, and the run's
    total (none when nothing was called or paid)."""
    used = {metric_id: summary["usage"] for metric_id, summary in metrics.items() if summary.get("usage")}
    if not used:
        return []
    width = max(len(metric_id) for metric_id in used)
    lines = [f"cost  {metric_id:<{width}}  {usage_text(usage)}" for metric_id, usage in used.items()]
    if len(used) > 1:
        lines.append(f"cost  {'run':<{width}}  {usage_text(run_usage(used.values()))}")
    return lines


publish(globals())
