"""A drop-in for the benchmark engine's metric registry: ``register_metric(key, fn)``,
``get_metric``, ``list_metrics`` / ``metric_keys``, ``apply_metrics`` and the aggregation
helpers, over evalcore's metrics (see :mod:`evalcore._compat.engine` for the details)."""

from evalcore._compat.engine import (
    aggregate_all,
    aggregate_metric_values,
    apply_metrics,
    get_metric,
    list_metrics,
    metric_keys,
    register_metric,
)

__all__ = [
    "aggregate_all", "aggregate_metric_values", "apply_metrics", "get_metric", "list_metrics", "metric_keys",
    "register_metric",
]
