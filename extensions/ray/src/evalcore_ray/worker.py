"""The worker side of the Ray executor: rebuild the plan once per process, score chunks.

A :class:`PlanRecipe` is what travels to the workers: for each metric how to rebuild it
from the installed plugins (the registry id it was created from, or for a metric object
that came from a plugin its key and parameters) or else the metric object itself
(callables and metrics defined in user code, shipped with cloudpickle), the options and
the run context with the shared budget's proxy. Each worker process builds the plan from a recipe once
and keeps it for the run's later chunks; :func:`score_task` scores a chunk with
:func:`~evalcore._engine.score.score_chunk`, the function the local executor calls.
"""

from __future__ import annotations

import asyncio
import copy
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs

from evalcore._contract.chunk import Chunk
from evalcore._contract.context import RunContext
from evalcore._contract.errors import EvalcoreError
from evalcore._contract.metric import Metric, Origin
from evalcore._registry.registry import Registry

from .options import RunOptions
from .plan import Plan
from .ray_budget import BudgetProxy, Usage
from .score import ChunkResult, score_chunk

_KEEP = 4
"""Plans kept per worker process (one per run; older runs' plans are dropped)."""


@attrs.frozen
class Rebuild:
    """A plugin metric, rebuilt on the worker from its id and parameters."""

    source: str
    params: dict[str, Any]
    id: str
    version: str

    def build(self, registry: Registry) -> Metric:
        metric = registry.create(self.source, **self.params)
        if (metric.id, metric.spec.version) != (self.id, self.version):
            raise EvalcoreError(f"{self.id}: a Ray worker built {metric.id} version {metric.spec.version}, "
                                f"not version {self.version}; install the same plugin versions on every node")
        return metric


@attrs.frozen
class PlanRecipe:
    """What a worker needs to rebuild a run's plan."""

    key: str
    metrics: list[Rebuild | Metric]
    options: RunOptions
    context: RunContext
    program: Callable[..., Any] | None


def make_recipe(key: str, plan: Plan, program: Callable[..., Any] | None, budget: BudgetProxy,
                cache_dir: str | None) -> PlanRecipe:
    """The recipe of ``plan`` whose workers share ``budget`` and the cache in ``cache_dir``."""
    context = attrs.evolve(plan.context, budget=budget, cache_dir=cache_dir)
    metrics = [_recipe(metric, source) for metric, source in zip(plan.metrics, plan.sources)]
    return PlanRecipe(key, metrics, attrs.evolve(plan.options, budget=budget), context, program)


def _recipe(metric: Metric, source: str | None) -> Rebuild | Metric:
    if source is not None:
        return Rebuild(source, {}, metric.id, metric.spec.version)
    if metric.origin != Origin.local():
        return Rebuild(metric.spec.key, dict(metric.params), metric.id, metric.spec.version)
    return _detached(metric)


def _detached(metric: Metric) -> Metric:
    """A copy of ``metric`` without the driver's run context (its budget stays on the driver);
    the worker binds its own."""
    shipped = copy.copy(metric)
    del shipped.context
    return shipped


class _Prepared:
    """A rebuilt plan and the worker threads that score its chunks."""

    def __init__(self, recipe: PlanRecipe) -> None:
        from evalcore._registry.registry import default_registry

        registry = default_registry()
        metrics = [m.build(registry) if isinstance(m, Rebuild) else m for m in recipe.metrics]
        for metric in metrics:
            metric.join(recipe.context)
        sources = [m.source if isinstance(m, Rebuild) else None for m in recipe.metrics]
        self.plan = Plan(metrics, recipe.options, recipe.context, sources)
        self.program = recipe.program
        self.pool = ThreadPoolExecutor(max_workers=max(recipe.options.concurrency, 2),
                                       thread_name_prefix="evalcore-ray")

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


_prepared: OrderedDict[str, _Prepared] = OrderedDict()


def _plan_for(key: str, recipe_box: list[Any]) -> _Prepared:
    prepared = _prepared.get(key)
    if prepared is None:
        import ray

        prepared = _prepared[key] = _Prepared(ray.get(recipe_box[0]))
        while len(_prepared) > _KEEP:
            _prepared.popitem(last=False)[1].close()
    return prepared


def score_task(key: str, recipe_box: list[Any], chunk: Chunk) -> tuple[ChunkResult, Usage]:
    """Score ``chunk`` with the plan of run ``key``; the result and, without a budget limit,
    what its calls were charged (with a limit, the budget actor has counted it).

    ``recipe_box`` holds the reference to the run's :class:`PlanRecipe` inside a list, so
    Ray does not fetch it for every task; it is fetched the first time a process sees the run.
    """
    prepared = _plan_for(key, recipe_box)
    plan = prepared.plan
    budget: BudgetProxy = plan.context.budget  # type: ignore[assignment]
    budget.expect(len(chunk.records) * plan.options.rollouts * len(plan.metrics))
    try:
        result = asyncio.run(score_chunk(plan, chunk, prepared.pool, prepared.program))
    finally:
        usage = budget.flush()
    return result, usage
