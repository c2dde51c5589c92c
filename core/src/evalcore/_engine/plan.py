"""The plan: metrics bound and ordered (cheap proxy metrics before truth metrics)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from evalcore._contract.components import ExecutorSpec
from evalcore._contract.context import RunContext
from evalcore._contract.errors import EvalcoreError
from evalcore._contract.metric import Metric
from evalcore._contract.spec import Tier
from evalcore._lazy import publish
from evalcore._registry.functions import metric_from_callable
from evalcore._registry.registry import Registry

from .options import RunOptions

MetricLike = str | Metric | Callable[..., Any]


@attrs.frozen
class Plan:
    """What to compute: the metrics in running order, the options and the run context.

    An executor's implementation is called with the run's plan: it finds its own options in
    ``options.executor_options`` (by the ``dest`` its spec declares), the run's budget and cache
    folder in ``context``, and sends the plan to other processes with
    :func:`~evalcore.plugin.make_recipe`."""

    metrics: list[Metric]
    options: RunOptions
    context: RunContext
    sources: list[str | None]
    """For each metric, the id it was created from in the registry (``None`` for metric
    objects and callables given directly); executors on other machines rebuild from it."""
    executor: ExecutorSpec | None = None
    """The plugin executor that scores the chunks (``None``: this machine)."""

    @property
    def aliases(self) -> dict[str, str]:
        """Bare names of the metrics, where no two metrics share one."""
        names = [m.spec.name for m in self.metrics]
        return {m.id: m.spec.name for m in self.metrics if names.count(m.spec.name) == 1}

    def tier_of(self, metric: Metric) -> Tier:
        """The metric's tier in this run: its spec's, unless the ``tiers`` option overrides it."""
        override = self.options.tiers.get(metric.id)
        return Tier(override) if override is not None else metric.spec.tier

    def tier(self, tier: Tier) -> list[Metric]:
        return [m for m in self.metrics if self.tier_of(m) is tier]

    def timeout_for(self, metric: Metric) -> float | None:
        """The per-sample time limit: the run's, else the metric's ``timeout_s``, else its default."""
        if self.options.timeout_s is not None:
            return self.options.timeout_s
        own = metric.params.get("timeout_s")
        return float(own) if own is not None else metric.default_timeout_s


def resolve_executor(options: RunOptions, registry: Registry) -> ExecutorSpec | None:
    """The plugin executor ``options.executor`` names (``None`` for ``"local"``), its options checked."""
    from .options import OptionError

    if options.executor == "local":
        return None
    try:
        spec: ExecutorSpec = registry.component("executors", options.executor)
    except EvalcoreError as exc:
        raise OptionError(f"executor: {exc}") from None
    unknown = sorted(set(options.executor_options) - {option.dest for option in spec.options})
    if unknown:
        known = ", ".join(option.dest for option in spec.options) or "none"
        raise OptionError(f"the {spec.name} executor has no option {', '.join(map(repr, unknown))} (options: {known})")
    return spec


def bind_metrics(metrics: Sequence[MetricLike] | MetricLike, registry: Registry,
                 context: RunContext, tiers: dict[str, str] | None = None) -> tuple[list[Metric], list[str | None]]:
    """Metric objects for ids, objects and callables, proxy tier first (given order within a tier)."""
    if isinstance(metrics, (str, Metric)) or (callable(metrics) and not isinstance(metrics, Sequence)):
        metrics = [metrics]  # type: ignore[list-item]
    if not metrics:
        raise EvalcoreError("no metrics to evaluate")
    bound: list[tuple[Metric, str | None]] = []
    for item in metrics:  # type: ignore[union-attr]
        if isinstance(item, Metric):
            bound.append((item, None))
        elif isinstance(item, str):
            bound.append((registry.create(item), item))
        elif callable(item):
            bound.append((metric_from_callable(item), None))
        else:
            raise EvalcoreError(f"not a metric: {item!r}")
    ids = [m.id for m, _ in bound]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise EvalcoreError(f"metric listed twice: {', '.join(duplicates)}")
    unknown = sorted(set(tiers or {}) - set(ids))
    if unknown:
        raise EvalcoreError(f"option 'tiers' names metrics that are not evaluated: {', '.join(unknown)}")
    for metric, _ in bound:
        metric.join(context)

    def is_truth(pair: tuple[Metric, str | None]) -> bool:
        override = (tiers or {}).get(pair[0].id)
        return (Tier(override) if override is not None else pair[0].spec.tier) is Tier.TRUTH

    ordered = sorted(bound, key=is_truth)
    return [m for m, _ in ordered], [s for _, s in ordered]


publish(globals())
