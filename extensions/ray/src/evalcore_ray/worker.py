"""The Ray task: score a chunk with the run's plan, rebuilt once per worker process.

The run's :class:`~evalcore.plugin.PlanRecipe` is in Ray's object store; a worker process
fetches it the first time it sees the run (:func:`~evalcore.plugin.worker_plan` keeps the
rebuilt plan for the run's later chunks) and scores each chunk as the local executor does.
"""

from __future__ import annotations

from typing import Any

from evalcore.plugin import Chunk, ChunkResult, worker_plan

from .budget import BudgetProxy, Usage


def score_task(key: str, recipe_box: list[Any], chunk: Chunk) -> tuple[ChunkResult, Usage]:
    """Score ``chunk`` with the plan of run ``key``; the result and, without a budget limit,
    what its calls were charged (with a limit, the budget actor has counted it).

    ``recipe_box`` holds the reference to the run's recipe inside a list, so Ray does not
    fetch it for every task; it is fetched the first time a process sees the run.
    """
    import ray

    worker = worker_plan(key, lambda: ray.get(recipe_box[0]))
    budget: BudgetProxy = worker.plan.context.budget  # type: ignore[assignment]
    budget.expect(worker.calls(chunk))
    try:
        result = worker.score(chunk)
    finally:
        usage = budget.flush()
    return result, usage
