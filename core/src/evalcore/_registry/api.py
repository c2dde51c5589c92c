"""The registry functions of the public API, over the process-wide registry.

:func:`list_metrics` reads the listing cache (as ``evalcore list`` does) until something loads
the registry, so listing imports neither the plugins nor pydantic; the other functions load it.
"""

from __future__ import annotations

import sys

from evalcore._contract.env import list_cache_disabled, strict_from_env
from evalcore._lazy import publish

from . import list_cache, listed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from evalcore._contract.components import ReaderSpec, RecordViewSpec
    from evalcore._contract.metric import Metric
    from evalcore._contract.spec import MetricSpec

    from .info import MetricInfo
    from .registry import PluginInfo

_REGISTRY_MODULE = f"{__package__}.registry"


def list_metrics(family: str | None = None) -> list[MetricInfo]:
    """Every installed metric (optionally one family or namespace), without importing any."""
    infos = _installed_metrics()
    return list(infos) if family is None else [info for info in infos if info.in_family(family)]


def metric_keys() -> list[str]:
    """The ``namespace/name`` key of every installed metric."""
    return sorted({info.key for info in list_metrics()})


def list_plugins() -> list[PluginInfo]:
    """Every discovered plugin with its load status and error."""
    from .registry import default_registry

    return default_registry().plugins()


def describe(metric_id: str) -> MetricInfo:
    """The spec and provenance of the metric ``metric_id`` names."""
    from .registry import default_registry

    return default_registry().describe(metric_id)


def get_metric(metric_id: str, **params: Any) -> Metric:
    """A ready-to-use metric; parameters come from the id and/or keyword arguments.

    The metric is opened with a run context read from the environment (the cache and the
    settings groups plugins declare), so a missing backend or model is reported here; a run it
    joins later (``evaluate(..., [metric])``) opens it again with that run's settings.

    >>> ndcg = get_metric("retrieval/ndcg@10")          # doctest: +SKIP
    >>> ndcg = get_metric("ndcg", k=10, gain="exp2")    # doctest: +SKIP
    """
    from .registry import default_registry
    from .settings import run_context

    registry = default_registry()
    metric = registry.create(metric_id, **params)
    metric.join(run_context(registry))
    return metric


def open_metric(metric_id: str, *, settings: Mapping[str, Mapping[str, Any]] | None = None,
                **options: Any) -> Metric:
    """The metric ``metric_id`` opened as :func:`evalcore.evaluate` opens it: in a run context of the
    settings groups' values ``settings`` (``{"judge": {"model": ...}}``, what ``--judge-model`` gives) over
    the environment variables the groups declare, and the run ``options`` (``cache_mode``, ``cache_dir``,
    ``timeout_s``, ``seed``). For a plugin's command that scores with a metric outside a run
    (``evalcore calibrate``)."""
    from .registry import default_registry
    from .settings import run_context

    registry = default_registry()
    metric = registry.create(metric_id)
    metric.join(run_context(registry, settings=settings, **options))
    return metric


def as_metric(metric: Metric | str | Callable[..., Any]) -> Metric:
    """A metric from what :func:`evalcore.evaluate` takes: a :class:`~evalcore.Metric` as it is, an id
    through :func:`get_metric`, a callable (DSPy-style or ``fn(run, context)``) as an unregistered metric."""
    from evalcore._contract.errors import EvalcoreError
    from evalcore._contract.metric import Metric

    from .functions import metric_from_callable

    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, str):
        return get_metric(metric)
    if callable(metric):
        return metric_from_callable(metric)
    raise EvalcoreError(f"not a metric: {metric!r}; give an id, a Metric or a callable")
def record_views() -> list[RecordViewSpec]:
    """Every installed plugin's record views (:class:`~evalcore.plugin.RecordViewSpec`), plugin by
    plugin; from the listing cache while it is valid, so no view's implementation is imported."""
    from .registry import default_registry

    return default_registry().components("views")


def readers() -> list[ReaderSpec]:
    """Every installed plugin's readers (:class:`~evalcore.plugin.ReaderSpec`), plugin by plugin; from
    the listing cache while it is valid, so no reader's implementation is imported."""
    from .registry import default_registry

    return default_registry().components("readers")


def expand_metrics(metric_ids: Iterable[str]) -> list[str]:
    """The ids with each metric-set name replaced by its members (``all_trec``)."""
    from .registry import default_registry

    registry = default_registry()
    return [member for metric_id in metric_ids for member in registry.expand(metric_id)]


def _installed_metrics() -> list[MetricInfo]:
    """The process-wide registry's metrics: read from the listing cache while the registry is not
    loaded (nor strict, nor the cache turned off); else loaded, and the cache written on a miss."""
    registry_module = sys.modules.get(_REGISTRY_MODULE)
    if (registry_module is not None and registry_module.default_registry_loaded()) or strict_from_env() \
            or list_cache_disabled():
        from .registry import default_registry

        return default_registry().metrics()
    found = listed.remembered()
    now = list_cache.scan() if found is None else None
    if now is not None:
        found = listed.read(now, _spec_of)
    if found is not None:
        return found
    from .registry import default_registry, foreign_core_warning

    registry = default_registry()
    infos = registry.metrics()
    if now is not None:
        list_cache.remember(now, registry, foreign_core_warning())
    return infos


def _spec_of(key: str, distribution: str) -> MetricSpec:
    """The spec of the metric ``key`` from ``distribution`` (a cached info's spec), loading the registry."""
    from evalcore._contract.errors import UnknownMetricError

    from .registry import default_registry

    for info in default_registry().metrics():
        if info.key == key and info.origin.distribution == distribution:
            return info.spec
    raise UnknownMetricError(key, [])


publish(globals())
