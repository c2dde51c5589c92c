"""The registry functions of the public API, over the process-wide registry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evalcore._contract.metric import Metric
from evalcore._lazy import publish

from .registry import MetricInfo, PluginInfo, default_registry


def list_metrics(family: str | None = None) -> list[MetricInfo]:
    """Every installed metric (optionally one family or namespace), without importing any."""
    return default_registry().metrics(family)


def metric_keys() -> list[str]:
    """The ``namespace/name`` key of every installed metric."""
    return sorted({info.key for info in default_registry().metrics()})


def list_plugins() -> list[PluginInfo]:
    """Every discovered plugin with its load status and error."""
    return default_registry().plugins()


def describe(metric_id: str) -> MetricInfo:
    """The spec and provenance of the metric ``metric_id`` names."""
    return default_registry().describe(metric_id)


def get_metric(metric_id: str, **params: Any) -> Metric:
    """A ready-to-use metric; parameters come from the id and/or keyword arguments.

    The metric is opened with a run context read from the environment (its judge, cache and
    model settings), so a missing backend or model is reported here; a run it joins later
    (``evaluate(..., [metric])``) opens it again with that run's settings.

    >>> ndcg = get_metric("retrieval/ndcg@10")          # doctest: +SKIP
    >>> ndcg = get_metric("ndcg", k=10, gain="exp2")    # doctest: +SKIP
    """
    metric = default_registry().create(metric_id, **params)
    metric.ensure_open()
    return metric


def expand_metrics(metric_ids: Iterable[str]) -> list[str]:
    """The ids with each metric-set name replaced by its members (``all_trec``)."""
    registry = default_registry()
    return [member for metric_id in metric_ids for member in registry.expand(metric_id)]


publish(globals())
