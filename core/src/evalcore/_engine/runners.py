"""One runner per metric kind: each scores a metric over the units of one chunk.

* sample metrics: synchronous ones on worker threads, the chunk split in at most
  ``concurrency`` slices (one thread hop per slice, not per sample); asynchronous ones on
  the event loop, ``concurrency`` at a time;
* batch metrics: one vectorised call per chunk (or over the reader's columns);
* corpus metrics: per-sample states, merged later.

Every runner reserves each sample's estimated cost in the run's budget before scoring
and settles it after; a sample that does not fit is skipped with :data:`BUDGET_SKIP`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from .._metric import BatchMetric, CorpusMetric, Metric, SampleMetric
from .._metric import guarded as guard
from .._result import Score
from .admission import OrderedAdmission
from .calls import aguard, call_each
from .units import Unit

BUDGET_SKIP = "budget exhausted: the estimated cost exceeds what remains"


def estimate_of(metric: Metric, unit: Unit) -> int:
    """The metric's cost estimate for one unit (its ``estimate``; the spec's if that fails)."""
    try:
        return int(metric.estimate(unit.example, unit.prediction or {}).get("cost_msats", metric.spec.cost_msats))
    except Exception:  # noqa: BLE001 - an estimate that fails falls back to the spec's
        return metric.spec.cost_msats


class MetricRunner:
    """Scores one metric over the ready units of a chunk; subclasses per metric kind."""

    def __init__(self, metric: Metric, *, budget: Any, timeout_s: float | None, concurrency: int,
                 pool: Executor, columns: Any = None) -> None:
        self.metric = metric
        self.budget = budget
        self.timeout_s = timeout_s
        self.concurrency = concurrency
        self.pool = pool
        self.columns = columns

    async def run(self, units: list[Unit]) -> list[Score]:
        raise NotImplementedError

    def _admit(self, units: Sequence[Unit]) -> tuple[list[int], list[int], dict[int, Score]]:
        """Indices of the units whose estimate fits the budget, their reservations, and skips."""
        if self.budget.limit_msats is None:
            return list(range(len(units))), [0] * len(units), {}
        admitted, reserved, refused = [], [], {}
        for i, unit in enumerate(units):
            estimate = estimate_of(self.metric, unit)
            if self.budget.reserve(estimate):
                admitted.append(i)
                reserved.append(estimate)
            else:
                refused[i] = Score.skipped(BUDGET_SKIP)
        return admitted, reserved, refused

    async def _in_thread(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)


class SyncSampleRunner(MetricRunner):
    async def run(self, units: list[Unit]) -> list[Score]:
        metric: SampleMetric = self.metric  # type: ignore[assignment]
        slices = min(self.concurrency, len(units)) or 1
        admission = OrderedAdmission(self.budget, self.timeout_s) if self.budget.limit_msats is not None else None
        # round-robin slices: with a budget, samples are admitted in input order without serialising
        parts = [list(range(start, len(units), slices)) for start in range(slices)]
        results = await asyncio.gather(*(
            self._in_thread(self._score_slice, metric, units, part, admission) for part in parts))
        out: list[Score] = [None] * len(units)  # type: ignore[list-item]
        for part, scores in zip(parts, results):
            for index, score in zip(part, scores):
                out[index] = score
        return out

    def _score_slice(self, metric: SampleMetric, units: list[Unit], indices: list[int],
                     admission: OrderedAdmission | None) -> list[Score]:
        def one(i: int) -> Score:
            unit = units[indices[i]]
            if admission is None:
                return guard(metric.score, unit.example, unit.view)
            estimate = estimate_of(metric, unit)
            if not admission.admit(indices[i], estimate):
                return Score.skipped(BUDGET_SKIP)
            score = guard(metric.score, unit.example, unit.view)
            admission.settle(estimate, score.cost_msats)
            return score

        return call_each(one, len(indices), self.timeout_s)


class AsyncSampleRunner(MetricRunner):
    async def run(self, units: list[Unit]) -> list[Score]:
        metric: SampleMetric = self.metric  # type: ignore[assignment]
        semaphore = asyncio.Semaphore(self.concurrency)
        admission = OrderedAdmission(self.budget, self.timeout_s) if self.budget.limit_msats is not None else None

        async def one(index: int, unit: Unit) -> Score:
            async with semaphore:
                if admission is None:
                    return await aguard(metric.ascore, (unit.example, unit.view), self.timeout_s)
                estimate = estimate_of(metric, unit)
                if not await admission.aadmit(index, estimate):
                    return Score.skipped(BUDGET_SKIP)
                score = await aguard(metric.ascore, (unit.example, unit.view), self.timeout_s)
                await admission.asettle(estimate, score.cost_msats)
                return score

        return list(await asyncio.gather(*(one(i, u) for i, u in enumerate(units))))


class BatchRunner(MetricRunner):
    async def run(self, units: list[Unit]) -> list[Score]:
        metric: BatchMetric = self.metric  # type: ignore[assignment]
        admitted, reserved, out = self._admit(units)
        chosen = [units[i] for i in admitted]
        scores = None
        if self.columns is not None and len(chosen) == len(units) and metric.accepts_columns(self.columns):
            scores = (await self._in_thread(metric.score_columns, self.columns)).scores()
        if scores is None:
            scores = await self._in_thread(
                metric.score_many, [u.example for u in chosen], [u.view for u in chosen])
        for i, estimate, score in zip(admitted, reserved, scores):
            self.budget.settle(estimate, score.cost_msats)
            out[i] = score
        return [out[i] for i in range(len(units))]


class CorpusRunner(MetricRunner):
    async def run(self, units: list[Unit]) -> list[Score]:
        metric: CorpusMetric[Any] = self.metric  # type: ignore[assignment]
        admitted, reserved, out = self._admit(units)
        chosen = [units[i] for i in admitted]
        pairs = await self._in_thread(metric.states, [u.example for u in chosen], [u.view for u in chosen])
        for i, estimate, (score, state) in zip(admitted, reserved, pairs):
            self.budget.settle(estimate, score.cost_msats)
            if state is not None:
                if units[i].states is None:
                    units[i].states = {}
                units[i].states[metric.id] = state
            out[i] = score
        return [out[i] for i in range(len(units))]


def runner_for(metric: Metric, **kwargs: Any) -> MetricRunner:
    """The runner for ``metric``'s kind."""
    if isinstance(metric, CorpusMetric):
        return CorpusRunner(metric, **kwargs)
    if isinstance(metric, BatchMetric):
        return BatchRunner(metric, **kwargs)
    if isinstance(metric, SampleMetric):
        return (AsyncSampleRunner if metric.is_async else SyncSampleRunner)(metric, **kwargs)
    raise TypeError(f"{type(metric).__name__} is not a sample, batch or corpus metric")
