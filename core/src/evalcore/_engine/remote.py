"""Scoring a run's chunks in other processes: the recipe that rebuilds the run's plan there.

An executor that sends chunks to other processes or machines (Ray with evalcore-ray; a Dask or
Spark executor the same way) sends each worker a :class:`PlanRecipe` once per run, made by
:func:`make_recipe`: for each metric how to rebuild it from the installed plugins (the registry
id it was created from, or for a metric object that came from a plugin its key and parameters)
or else the metric object itself (callables and metrics defined in user code, which the
executor pickles), the options, and the run context with the budget and cache folder the
workers share. A worker process rebuilds the plan once per run (:func:`worker_plan`) and scores
each chunk with :meth:`WorkerPlan.score`, which calls the local executor's chunk function, so
the rows and corpus states are the ones a local run produces.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs

from evalcore._contract.cache_settings import default_cache_dir
from evalcore._contract.chunk import Chunk
from evalcore._contract.context import RunContext
from evalcore._contract.errors import EvalcoreError
from evalcore._contract.metric import Metric, Origin
from evalcore._lazy import publish
from evalcore._registry.registry import Registry, default_registry

from .options import RunOptions
from .plan import Plan
from .score import ChunkResult, WorkerReport, score_chunk

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
            raise EvalcoreError(f"{self.id}: a worker built {metric.id} version {metric.spec.version}, "
                                f"not version {self.version}; install the same plugin versions on every node")
        return metric


@attrs.frozen
class PlanRecipe:
    """What a worker process needs to rebuild a run's plan (picklable where the run's metric
    objects and program are)."""

    key: str
    metrics: list[Rebuild | Metric]
    options: RunOptions
    context: RunContext
    program: Callable[..., Any] | None

    def shipped(self) -> list[tuple[str, Any]]:
        """What travels as objects rather than being rebuilt, by name (metric ids, ``"the program"``):
        an executor names the one that cannot be pickled."""
        objects = [(m.id, m) for m in self.metrics if isinstance(m, Metric)]
        return objects + ([("the program", self.program)] if self.program is not None else [])


def make_recipe(key: str, plan: Plan, program: Callable[..., Any] | None, budget: Any) -> PlanRecipe:
    """The recipe of ``plan`` for run ``key`` (unique per run), whose workers share ``budget`` (an
    object with :class:`~evalcore.Budget`'s ``limit_msats``, ``remaining``, ``reserve`` and
    ``settle``) and the run's cache folder, by default this machine's (on a cluster, give the run
    a ``cache_dir`` every node mounts)."""
    cache_dir = plan.context.cache_dir or str(default_cache_dir())
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


class WorkerPlan:
    """A run's plan rebuilt in a worker process, with the threads that score its chunks."""

    def __init__(self, recipe: PlanRecipe) -> None:
        registry = default_registry()
        metrics = [m.build(registry) if isinstance(m, Rebuild) else m for m in recipe.metrics]
        for metric in metrics:
            metric.join(recipe.context)
        sources = [m.source if isinstance(m, Rebuild) else None for m in recipe.metrics]
        self.plan = Plan(metrics, recipe.options, recipe.context, sources)
        self.program = recipe.program
        self.pool = ThreadPoolExecutor(max_workers=max(recipe.options.concurrency, 2),
                                       thread_name_prefix="evalcore-worker")
        self.worker = uuid.uuid4().hex  # this process's metric objects, for the driver's usage sums
        self._reports = itertools.count(1)
        self._lock = threading.Lock()

    def calls(self, chunk: Chunk) -> int:
        """At most how many budget reservations scoring ``chunk`` makes."""
        return len(chunk.records) * self.plan.options.rollouts * len(self.plan.metrics)

    def score(self, chunk: Chunk) -> ChunkResult:
        """``chunk`` scored as the local executor scores it, with what this process's metrics have used
        and gathered in the run so far (calls, tokens, cache hits; a judge panel's verdicts)."""
        result = asyncio.run(score_chunk(self.plan, chunk, self.pool, self.program))
        metrics = self.plan.metrics
        with self._lock:
            report = WorkerReport(self.worker, next(self._reports), {m.id: m.usage_summary() for m in metrics},
                                  {m.id: state for m in metrics if (state := m.summary_state()) is not None})
        return attrs.evolve(result, report=report)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


_plans: OrderedDict[str, WorkerPlan] = OrderedDict()


def worker_plan(key: str, recipe: Callable[[], PlanRecipe]) -> WorkerPlan:
    """This process's plan of run ``key``, rebuilt from ``recipe()`` (called only the first time
    the process sees the run; the plans of the last few runs are kept)."""
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = WorkerPlan(recipe())
        while len(_plans) > _KEEP:
            _plans.popitem(last=False)[1].close()
    return plan


publish(globals())
