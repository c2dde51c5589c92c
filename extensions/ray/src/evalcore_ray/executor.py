"""Chunks scored as Ray tasks, on a local Ray instance or an existing cluster.

Each task rebuilds the run's plan on its worker from the recipe the core makes for executors
that score elsewhere (:func:`~evalcore.plugin.make_recipe`; :mod:`.worker`) and scores the
chunk with the local executor's chunk function, so the rows and the raw corpus states are the
ones a local run produces; the run merges them as usual. The budget lives in one actor that
every worker reserves from (:mod:`.budget`); the model-call cache is a folder every worker reads
and writes, by default the driver's cache folder, which on a cluster must be a path every node
shares (``cache_dir``).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from evalcore.plugin import Chunk, ChunkResult, EvalcoreError, Plan, PlanRecipe, make_recipe

from . import RayUnavailable
from .budget import SharedBudget, Usage
from .worker import score_task

OnResult = Callable[[ChunkResult], bool]


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`RayUnavailable` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("executor='ray' needs Ray, which is not installed: "
                             "pip install 'ray[client]>=2.9' (evalcore-ray's dependency)") from None
    return ray


def connect(ray: Any, address: str | None) -> None:
    """Join the cluster at ``address``; without one, reuse a running Ray or start a local instance."""
    if ray.is_initialized():
        return
    try:
        if address is not None:
            ray.init(address=address)
        else:
            ray.init(address="local", num_cpus=len(os.sched_getaffinity(0)), include_dashboard=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at ray_address={address!r}" if address else "a local Ray instance"
        raise RayUnavailable(f"cannot start or reach {where}: {exc}") from None


class RayExecutor:
    """Chunks scored as Ray tasks, at most ``in_flight`` at a time (twice the cluster's CPUs)."""

    def __init__(self, plan: Plan, program: Callable[..., Any] | None) -> None:
        ray = import_ray()
        connect(ray, plan.options.executor_options.get("address"))
        self.ray = ray
        self.budget = SharedBudget(ray, plan.context.budget)
        self.key = uuid.uuid4().hex
        recipe = make_recipe(self.key, plan, program, self.budget.proxy())
        try:
            self.recipe_box = [self._put(recipe)]
        except BaseException:
            self.budget.close()
            raise
        self.task = ray.remote(num_cpus=1, max_retries=0)(score_task)
        self.in_flight = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))

    def _put(self, recipe: PlanRecipe) -> Any:
        """The recipe in Ray's object store; a metric or program that cannot be pickled is named."""
        try:
            return self.ray.put(recipe)
        except TypeError as exc:
            for name, item in recipe.shipped():
                try:
                    self.ray.cloudpickle.dumps(item)
                except Exception as item_exc:  # noqa: BLE001 - reported as the run's error
                    raise EvalcoreError(f"{name}: cannot be sent to the Ray workers ({item_exc}); "
                                        "give metrics by registry id, or make the object picklable") from None
            raise EvalcoreError(f"the run's plan cannot be sent to the Ray workers: {exc}") from None

    async def run(self, chunks: Iterator[Chunk], on_result: OnResult) -> None:
        pending: dict[asyncio.Future[tuple[ChunkResult, Usage]], Any] = {}
        go_on = True
        try:
            for chunk in chunks:
                ref = self.task.remote(self.key, self.recipe_box, chunk)
                pending[asyncio.wrap_future(ref.future())] = ref
                if len(pending) >= self.in_flight:
                    go_on = await self._drain(pending, on_result)
                    if not go_on:
                        break
            while pending and go_on:
                go_on = await self._drain(pending, on_result)
        finally:
            refs = list(pending.values())
            for ref in refs:
                self.ray.cancel(ref)
            if refs:  # let cancelled chunks hand back their budget leases before the spend is read
                self.ray.wait(refs, num_returns=len(refs), timeout=10)
            self.budget.close()

    async def _drain(self, pending: dict[asyncio.Future[tuple[ChunkResult, Usage]], Any], on_result: OnResult) -> bool:
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        go_on = True
        for future in sorted(done, key=lambda f: self._result(f)[0].index):
            del pending[future]
            result, usage = self._result(future)
            self.budget.add(usage)
            go_on = on_result(result) and go_on
        return go_on

    def _result(self, future: asyncio.Future[tuple[ChunkResult, Usage]]) -> tuple[ChunkResult, Usage]:
        """The chunk's result; an error of the run's own (a metric the workers cannot build) as itself."""
        try:
            return future.result()
        except self.ray.exceptions.RayTaskError as exc:
            if isinstance(exc.cause, EvalcoreError):
                raise exc.cause from None
            raise

    def close(self) -> None:
        self.budget.close()
        self.recipe_box = []
